package report

import (
	"cmp"
	"slices"

	"github.com/pfold/pfold/fold"
)

// Frame is what a profile knows of one frame name.
type Frame struct {
	Name string
	// Self counts the samples whose leaf is this frame.
	Self fold.Count
	// Total counts the samples whose stack holds this frame, each stack
	// once however often the frame recurses in it.
	Total fold.Count
}

// Edge is a caller→callee pair of frames, by index in Profile.Frames,
// with the samples whose stack has the caller call the callee directly
// (once per stack, like Total).
type Edge struct {
	Caller, Callee int
	Weight         fold.Count
}

// Profile sums folded stacks per frame name and per call edge.
type Profile struct {
	Frames []Frame
	// Total is the sum of the counts of all stacks added.
	Total  fold.Count
	Stacks int64

	ids   map[string]int32
	seen  []uint64 // per frame: the last stack that counted it
	edges map[[2]int32]*edgeSum
	gen   uint64
	path  []int32
}

type edgeSum struct {
	w    fold.Count
	seen uint64
}

// New returns an empty Profile.
func New() *Profile {
	return &Profile{ids: map[string]int32{}, edges: map[[2]int32]*edgeSum{}}
}

// Add adds a stack (frames joined by ';', root first) with count c. It
// fails only when an integer sum overflows.
func (p *Profile) Add(stack []byte, c fold.Count) error {
	p.gen++
	p.Stacks++
	var err error
	if p.Total, err = p.Total.Add(c); err != nil {
		return err
	}
	p.path = p.path[:0]
	fold.Frames(stack, func(name []byte) bool {
		id, ok := p.ids[string(name)]
		if !ok {
			id = int32(len(p.Frames))
			p.ids[string(name)] = id
			p.Frames = append(p.Frames, Frame{Name: string(name)})
			p.seen = append(p.seen, 0)
		}
		p.path = append(p.path, id)
		return true
	})
	for i, id := range p.path {
		if p.seen[id] != p.gen {
			p.seen[id] = p.gen
			if p.Frames[id].Total, err = p.Frames[id].Total.Add(c); err != nil {
				return err
			}
		}
		if i == 0 {
			continue
		}
		key := [2]int32{p.path[i-1], id}
		e := p.edges[key]
		if e == nil {
			e = &edgeSum{}
			p.edges[key] = e
		}
		if e.seen != p.gen {
			e.seen = p.gen
			if e.w, err = e.w.Add(c); err != nil {
				return err
			}
		}
	}
	if n := len(p.path); n > 0 {
		leaf := &p.Frames[p.path[n-1]]
		leaf.Self, err = leaf.Self.Add(c)
	}
	return err
}

// Edges returns the call edges, heaviest first.
func (p *Profile) Edges() []Edge {
	es := make([]Edge, 0, len(p.edges))
	for k, e := range p.edges {
		es = append(es, Edge{Caller: int(k[0]), Callee: int(k[1]), Weight: e.w})
	}
	slices.SortFunc(es, func(a, b Edge) int {
		if c := compareCount(b.Weight, a.Weight); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Caller, b.Caller); c != 0 {
			return c
		}
		return cmp.Compare(a.Callee, b.Callee)
	})
	return es
}

// BySelf returns the frame indexes sorted by self samples, most first,
// then by total and name; byTotal sorts by total first.
func (p *Profile) sorted(byTotal bool) []int {
	idx := make([]int, len(p.Frames))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &p.Frames[i], &p.Frames[j]
		first, second := compareCount(b.Self, a.Self), compareCount(b.Total, a.Total)
		if byTotal {
			first, second = second, first
		}
		if first != 0 {
			return first
		}
		if second != 0 {
			return second
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return idx
}

func compareCount(a, b fold.Count) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}

// percent returns c as a percentage of the profile's total.
func (p *Profile) percent(c fold.Count) float64 {
	t := p.Total.Float64()
	if t == 0 {
		return 0
	}
	return c.Float64() * 100 / t
}
