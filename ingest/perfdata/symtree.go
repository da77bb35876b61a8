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

// rbTree is a red-black tree of nodes 0..n-1 keyed by key[i].
type rbTree struct {
	key                 []uint64
	left, right, parent []int32
	red                 []bool
	root                int32
}

func newRBTree(key []uint64) *rbTree {
	n := len(key)
	t := &rbTree{key: key, left: make([]int32, n), right: make([]int32, n), parent: make([]int32, n), red: make([]bool, n), root: -1}
	for i := range n {
		t.left[i], t.right[i], t.parent[i] = -1, -1, -1
	}
	return t
}

func (t *rbTree) isRed(x int32) bool { return x >= 0 && t.red[x] }

// replace puts v where u was under u's parent.
func (t *rbTree) replace(u, v int32) {
	p := t.parent[u]
	switch {
	case p < 0:
		t.root = v
	case t.left[p] == u:
		t.left[p] = v
	default:
		t.right[p] = v
	}
	if v >= 0 {
		t.parent[v] = p
	}
}

func (t *rbTree) rotateLeft(x int32) {
	y := t.right[x]
	t.right[x] = t.left[y]
	if t.left[y] >= 0 {
		t.parent[t.left[y]] = x
	}
	t.replace(x, y)
	t.left[y] = x
	t.parent[x] = y
}

func (t *rbTree) rotateRight(x int32) {
	y := t.left[x]
	t.left[x] = t.right[y]
	if t.right[y] >= 0 {
		t.parent[t.right[y]] = x
	}
	t.replace(x, y)
	t.right[y] = x
	t.parent[x] = y
}

// insert adds node z: left of a node whose key is greater, else right.
func (t *rbTree) insert(z int32) {
	p := int32(-1)
	for x := t.root; x >= 0; {
		p = x
		if t.key[z] < t.key[x] {
			x = t.left[x]
		} else {
			x = t.right[x]
		}
	}
	t.parent[z] = p
	switch {
	case p < 0:
		t.root = z
	case t.key[z] < t.key[p]:
		t.left[p] = z
	default:
		t.right[p] = z
	}
	t.red[z] = true
	for t.isRed(t.parent[z]) {
		p := t.parent[z]
		g := t.parent[p]
		if p == t.left[g] {
			if u := t.right[g]; t.isRed(u) {
				t.red[p], t.red[u], t.red[g] = false, false, true
				z = g
				continue
			}
			if z == t.right[p] {
				z = p
				t.rotateLeft(z)
				p = t.parent[z]
			}
			t.red[p], t.red[g] = false, true
			t.rotateRight(g)
		} else {
			if u := t.left[g]; t.isRed(u) {
				t.red[p], t.red[u], t.red[g] = false, false, true
				z = g
				continue
			}
			if z == t.left[p] {
				z = p
				t.rotateRight(z)
				p = t.parent[z]
			}
			t.red[p], t.red[g] = false, true
			t.rotateLeft(g)
		}
	}
	t.red[t.root] = false
}

// erase removes node z; a node with two children gives its place to its
// successor, as rb_erase does.
func (t *rbTree) erase(z int32) {
	y, wasRed := z, t.red[z]
	var x, xp int32 // x (maybe none) took y's place under xp
	switch {
	case t.left[z] < 0:
		x, xp = t.right[z], t.parent[z]
		t.replace(z, x)
	case t.right[z] < 0:
		x, xp = t.left[z], t.parent[z]
		t.replace(z, x)
	default:
		y = t.right[z]
		for t.left[y] >= 0 {
			y = t.left[y]
		}
		wasRed = t.red[y]
		x = t.right[y]
		if t.parent[y] == z {
			xp = y
		} else {
			xp = t.parent[y]
			t.replace(y, x)
			t.right[y] = t.right[z]
			t.parent[t.right[y]] = y
		}
		t.replace(z, y)
		t.left[y] = t.left[z]
		t.parent[t.left[y]] = y
		t.red[y] = t.red[z]
	}
	t.left[z], t.right[z], t.parent[z] = -1, -1, -1
	if wasRed {
		return
	}
	for x != t.root && !t.isRed(x) {
		if x == t.left[xp] {
			w := t.right[xp]
			if t.isRed(w) {
				t.red[w], t.red[xp] = false, true
				t.rotateLeft(xp)
				w = t.right[xp]
			}
			if !t.isRed(t.left[w]) && !t.isRed(t.right[w]) {
				t.red[w] = true
				x, xp = xp, t.parent[xp]
				continue
			}
			if !t.isRed(t.right[w]) {
				t.red[t.left[w]], t.red[w] = false, true
				t.rotateRight(w)
				w = t.right[xp]
			}
			t.red[w], t.red[xp] = t.red[xp], false
			t.red[t.right[w]] = false
			t.rotateLeft(xp)
		} else {
			w := t.left[xp]
			if t.isRed(w) {
				t.red[w], t.red[xp] = false, true
				t.rotateRight(xp)
				w = t.left[xp]
			}
			if !t.isRed(t.left[w]) && !t.isRed(t.right[w]) {
				t.red[w] = true
				x, xp = xp, t.parent[xp]
				continue
			}
			if !t.isRed(t.left[w]) {
				t.red[t.right[w]], t.red[w] = false, true
				t.rotateLeft(w)
				w = t.left[xp]
			}
			t.red[w], t.red[xp] = t.red[xp], false
			t.red[t.left[w]] = false
			t.rotateRight(xp)
		}
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
		st.left[i], st.right[i] = at(rb.left[sy.seq]), at(rb.right[sy.seq])
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
