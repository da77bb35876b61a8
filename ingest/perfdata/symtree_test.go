package perfdata

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkRB fails unless t is a red-black tree whose in-order walk is
// want: a black root, no red node with a red child, the same number of
// black nodes on every path down, parents that match children.
func checkRB(t *testing.T, rb *rbTree, want []int32) {
	t.Helper()
	if rb.root >= 0 && (rb.red[rb.root] || rb.parent[rb.root] != -1) {
		t.Fatalf("root %d: red %v, parent %d", rb.root, rb.red[rb.root], rb.parent[rb.root])
	}
	var got []int32
	var walk func(x int32) int
	walk = func(x int32) int {
		if x < 0 {
			return 1
		}
		for _, c := range []int32{rb.kid[0][x], rb.kid[1][x]} {
			if c >= 0 && rb.parent[c] != x {
				t.Fatalf("node %d: child %d has parent %d", x, c, rb.parent[c])
			}
			if c >= 0 && rb.red[x] && rb.red[c] {
				t.Fatalf("red node %d has red child %d", x, c)
			}
		}
		l := walk(rb.kid[0][x])
		got = append(got, x)
		r := walk(rb.kid[1][x])
		if l != r {
			t.Fatalf("node %d: %d black nodes down its left, %d down its right", x, l, r)
		}
		if !rb.red[x] {
			l++
		}
		return l
	}
	walk(rb.root)
	if !slices.Equal(got, want) {
		t.Fatalf("in order %v, want %v", got, want)
	}
}

// TestRBTree inserts and erases at random, with keys that repeat: the
// tree stays a red-black tree, and its order is by key, then by
// insertion, as perf's tree keeps equal starts.
func TestRBTree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		n := 1 + r.IntN(300)
		key := make([]uint64, n)
		for i := range key {
			key[i] = uint64(r.IntN(n/2 + 1))
		}
		rb := newRBTree(key)
		live := []int32{}
		for i := range n {
			rb.insert(int32(i))
			live = append(live, int32(i))
		}
		byKey := func(live []int32) []int32 {
			s := slices.Clone(live)
			slices.SortStableFunc(s, func(a, b int32) int {
				switch {
				case key[a] < key[b]:
					return -1
				case key[a] > key[b]:
					return 1
				}
				return int(a - b)
			})
			return s
		}
		checkRB(t, rb, byKey(live))
		for len(live) > 0 && r.IntN(4) > 0 {
			i := r.IntN(len(live))
			rb.erase(live[i])
			live = slices.Delete(live, i, i+1)
			checkRB(t, rb, byKey(live))
		}
	}
}

// TestLookupOverlaps: an address in symbols that overlap is named by
// the first holding it on the way down perf's tree, so by its shape;
// elsewhere by the last symbol starting at or before it.
func TestLookupOverlaps(t *testing.T) {
	f := symbol{start: 100, end: 200, typ: 2} // a function
	l := symbol{start: 150, end: 150}         // a label in it, reaching to 300
	b := symbol{start: 300, end: 400, typ: 2}
	a := symbol{start: 0, end: 50, typ: 2}
	type probe struct {
		addr uint64
		want int32 // index in the sorted table
	}
	for _, c := range []struct {
		name   string
		syms   []symbol
		probes []probe
	}{
		// Inserted f, l, b: the third insertion rotates l up to the
		// root, and the function's second half is the label's.
		{"label at the root", []symbol{f, l, b}, []probe{{99, -1}, {100, 0}, {149, 0}, {150, 1}, {199, 1}, {250, 1}, {300, 2}, {400, -1}}},
		// Inserted a, f, l, b: f is rotated up to the root and stays
		// there, above the label: the function is named to its end.
		{"function at the root", []symbol{a, f, l, b}, []probe{{49, 0}, {50, -1}, {100, 1}, {150, 1}, {199, 1}, {200, 2}, {250, 2}, {300, 3}}},
	} {
		tab := symtab{syms: slices.Clone(c.syms)}
		fixup(&tab, false)
		d := &dso{state: dsoLoaded, tab: tab}
		s := &symbolizer{}
		for _, p := range c.probes {
			if got := s.lookup(d, p.addr); got != p.want {
				t.Errorf("%s: lookup(%d) = %d, want %d", c.name, p.addr, got, p.want)
			}
		}
	}
}
