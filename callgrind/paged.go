package callgrind

// paged is a growing array in pages of pageLen elements: it grows
// without copying what it holds, so a table of millions of records never
// holds two copies of itself, nor the slack of a doubled capacity.
type paged[T any] struct {
	pages [][]T
	n     int
}

const pageLen = 1 << 16

func (a *paged[T]) len() int { return a.n }

// at returns element i; the pointer stays valid as the array grows.
func (a *paged[T]) at(i int32) *T { return &a.pages[i/pageLen][i%pageLen] }

// add appends v and returns its index.
func (a *paged[T]) add(v T) int32 {
	if a.n%pageLen == 0 {
		a.pages = append(a.pages, make([]T, pageLen))
	}
	i := a.n
	a.pages[i/pageLen][i%pageLen] = v
	a.n++
	return int32(i)
}
