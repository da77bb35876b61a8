package transform

import (
	"cmp"
	"container/heap"
	"slices"

	"github.com/pfold/pfold/fold"
)

// Top keeps the n heaviest of the stacks pushed to it, in memory
// proportional to n. Of stacks with equal counts, the first pushed wins,
// so the choice is deterministic.
type Top struct {
	n    int
	seq  int64
	h    topHeap
	free [][]byte // stack buffers of evicted entries, for reuse
}

// TopEntry is a stack kept by Top.
type TopEntry struct {
	Stack []byte
	Count fold.Count
	seq   int64 // push order
}

// NewTop returns a Top keeping n stacks.
func NewTop(n int) *Top { return &Top{n: n} }

// Push offers a stack; it is copied when kept.
func (t *Top) Push(stack []byte, c fold.Count) {
	t.seq++
	if t.n <= 0 {
		return
	}
	if len(t.h) < t.n {
		heap.Push(&t.h, TopEntry{Stack: t.copy(stack), Count: c, seq: t.seq})
		return
	}
	// The root is the weakest entry kept; a newcomer must beat it
	// strictly, since ties go to the earlier stack.
	if !t.h[0].Count.Less(c) {
		return
	}
	t.free = append(t.free, t.h[0].Stack)
	t.h[0] = TopEntry{Stack: t.copy(stack), Count: c, seq: t.seq}
	heap.Fix(&t.h, 0)
}

func (t *Top) copy(stack []byte) []byte {
	var b []byte
	if n := len(t.free); n > 0 {
		b, t.free = t.free[n-1][:0], t.free[:n-1]
	}
	return append(b, stack...)
}

// Entries returns the stacks kept, in the order they were pushed.
func (t *Top) Entries() []TopEntry {
	e := slices.Clone(t.h)
	slices.SortFunc(e, func(a, b TopEntry) int { return cmp.Compare(a.seq, b.seq) })
	return e
}

// topHeap is a min-heap of the weakest entry: the smallest count, and of
// equal counts the latest pushed.
type topHeap []TopEntry

func (h topHeap) Len() int { return len(h) }
func (h topHeap) Less(i, j int) bool {
	if h[i].Count.Less(h[j].Count) {
		return true
	}
	if h[j].Count.Less(h[i].Count) {
		return false
	}
	return h[i].seq > h[j].seq
}
func (h topHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *topHeap) Push(x any)   { *h = append(*h, x.(TopEntry)) }
func (h *topHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
