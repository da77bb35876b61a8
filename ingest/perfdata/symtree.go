package perfdata

// perf keeps a binary's symbols in a red-black tree keyed by start
// (symbols__insert in tools/perf/util/symbol.c) and names an address by
// the first symbol holding it on the way down from the root
// (symbols__find). Where symbols overlap, which one that is depends on
// the tree's shape: V8's builtins hold labels (construct_stub_create_
// deopt_addr inside Builtins_JSConstructStubGeneric), a JIT map may name
// a range twice, and perf names some addresses by the label, others by
// the function, as the rebalancing fell. A table whose symbols overlap
// builds perf's tree again, by the same insertions and erasures in the
// same order, and looks those addresses up in it; every other address
// needs only the sorted table.
//
// Insertion and erasure are the textbook red-black algorithms, which
// Linux's lib/rbtree.c implements: the same rotations and colours, so
// the same shape. A start equal to a node's goes to its right.

// symTree is perf's tree of a table's symbols, by their index in the
// sorted table: for table index i, left[i] and right[i] (-1: none).
type symTree struct {
	left, right []int32
	root        int32
}

// rbTree is a red-black tree of nodes 0..n-1 keyed by key[i]. Each case
// of the algorithms has a mirror image; kid[d] holds the children on side
// d (0 left, 1 right) so that one code serves both.
type rbTree struct {
	key    []uint64
	kid    [2][]int32 // -1: none
	parent []int32
	red    []bool
	root   int32
}

func newRBTree(key []uint64) *rbTree {
	n := len(key)
	t := &rbTree{key: key, kid: [2][]int32{make([]int32, n), make([]int32, n)}, parent: make([]int32, n), red: make([]bool, n), root: -1}
	for i := range n {
		t.kid[0][i], t.kid[1][i], t.parent[i] = -1, -1, -1
	}
	return t
}

func (t *rbTree) isRed(x int32) bool { return x >= 0 && t.red[x] }

// side returns the side of its parent p that x (maybe none) is on.
func (t *rbTree) side(x, p int32) int {
	if x == t.kid[0][p] {
		return 0
	}
	return 1
}

// replace puts v where u was under u's parent.
func (t *rbTree) replace(u, v int32) {
	if p := t.parent[u]; p < 0 {
		t.root = v
	} else {
		t.kid[t.side(u, p)][p] = v
	}
	if v >= 0 {
		t.parent[v] = t.parent[u]
	}
}

// rotate lifts x's child on side 1-d into x's place, x going down on
// side d: d 0 rotates left.
func (t *rbTree) rotate(x int32, d int) {
	y := t.kid[1-d][x]
	c := t.kid[d][y]
	t.kid[1-d][x] = c
	if c >= 0 {
		t.parent[c] = x
	}
	t.replace(x, y)
	t.kid[d][y] = x
	t.parent[x] = y
}

// insert adds node z: left of a node whose key is greater, else right.
func (t *rbTree) insert(z int32) {
	p := int32(-1)
	d := 0
	for x := t.root; x >= 0; x = t.kid[d][x] {
		p = x
		d = 1
		if t.key[z] < t.key[x] {
			d = 0
		}
	}
	t.parent[z] = p
	if p < 0 {
		t.root = z
	} else {
		t.kid[d][p] = z
	}
	t.red[z] = true
	for t.isRed(t.parent[z]) {
		p := t.parent[z]
		g := t.parent[p]
		d := t.side(p, g)
		if u := t.kid[1-d][g]; t.isRed(u) {
			t.red[p], t.red[u], t.red[g] = false, false, true
			z = g
			continue
		}
		if z == t.kid[1-d][p] {
			z = p
			t.rotate(z, d)
			p = t.parent[z]
		}
		t.red[p], t.red[g] = false, true
		t.rotate(g, 1-d)
	}
	t.red[t.root] = false
}

// erase removes node z; a node with two children gives its place to its
// successor, as rb_erase does.
func (t *rbTree) erase(z int32) {
	wasRed := t.red[z]
	var x, xp int32 // x (maybe none) took the removed place under xp
	switch {
	case t.kid[0][z] < 0 || t.kid[1][z] < 0:
		x, xp = max(t.kid[0][z], t.kid[1][z]), t.parent[z]
		t.replace(z, x)
	default:
		y := t.kid[1][z]
		for t.kid[0][y] >= 0 {
			y = t.kid[0][y]
		}
		wasRed = t.red[y]
		x, xp = t.kid[1][y], y
		if t.parent[y] != z {
			xp = t.parent[y]
			t.replace(y, x)
			t.kid[1][y] = t.kid[1][z]
			t.parent[t.kid[1][y]] = y
		}
		t.replace(z, y)
		t.kid[0][y] = t.kid[0][z]
		t.parent[t.kid[0][y]] = y
		t.red[y] = t.red[z]
	}
	t.kid[0][z], t.kid[1][z], t.parent[z] = -1, -1, -1
	if wasRed {
		return
	}
	for x != t.root && !t.isRed(x) {
		d := t.side(x, xp)
		w := t.kid[1-d][xp]
		if t.isRed(w) {
			t.red[w], t.red[xp] = false, true
			t.rotate(xp, d)
			w = t.kid[1-d][xp]
		}
		if !t.isRed(t.kid[0][w]) && !t.isRed(t.kid[1][w]) {
			t.red[w] = true
			x, xp = xp, t.parent[xp]
			continue
		}
		if !t.isRed(t.kid[1-d][w]) {
			t.red[t.kid[d][w]], t.red[w] = false, true
			t.rotate(w, 1-d)
			w = t.kid[1-d][xp]
		}
		t.red[w], t.red[xp] = t.red[xp], false
		t.red[t.kid[1-d][w]] = false
		t.rotate(xp, d)
		x = t.root
	}
	if x >= 0 {
		t.red[x] = false
	}
}

// markCovered marks each symbol that an earlier one overlaps, or that
// starts where an earlier one does: only there can perf's tree name an
// address otherwise than the table's last symbol starting at or before
// it.
func markCovered(syms []symbol) {
	var maxEnd uint64
	for i := range syms {
		sy := &syms[i]
		sy.covered = i > 0 && (maxEnd > sy.start || syms[i-1].start == sy.start)
		maxEnd = max(maxEnd, sy.end)
	}
}

// tree builds perf's tree of t: the symbols inserted in their order
// (seq), then the erasures fixup made, then the symbols added after it
// (the PLT's).
func (t *symtab) tree() *symTree {
	if t.rb != nil {
		return t.rb
	}
	n := len(t.syms) + len(t.erased)
	key := make([]uint64, n)
	index := make([]int32, n) // by seq: index in t.syms, or -1
	for i := range index {
		index[i] = -1
	}
	for i, sy := range t.syms {
		key[sy.seq], index[sy.seq] = sy.start, int32(i)
	}
	for _, sy := range t.erased {
		key[sy.seq] = sy.start
	}
	rb := newRBTree(key)
	for i := 0; i < t.inserted; i++ {
		rb.insert(int32(i))
	}
	for _, sy := range t.erased {
		rb.erase(int32(sy.seq))
	}
	for i := t.inserted; i < n; i++ {
		rb.insert(int32(i))
	}
	at := func(seq int32) int32 {
		if seq < 0 {
			return -1
		}
		return index[seq]
	}
	st := &symTree{left: make([]int32, len(t.syms)), right: make([]int32, len(t.syms)), root: at(rb.root)}
	for i, sy := range t.syms {
		st.left[i], st.right[i] = at(rb.kid[0][sy.seq]), at(rb.kid[1][sy.seq])
	}
	t.rb = st
	return st
}

// find returns the index of the symbol perf's symbols__find names addr
// by, or -1.
func (t *symtab) find(addr uint64) int32 {
	st := t.tree()
	for n := st.root; n >= 0; {
		sy := &t.syms[n]
		switch {
		case addr < sy.start:
			n = st.left[n]
		case addr > sy.end || addr == sy.end && addr != sy.start:
			n = st.right[n]
		default:
			return n
		}
	}
	return -1
}
