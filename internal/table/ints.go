package table

// Ints numbers uint64 keys 0, 1, … in order of first appearance. A key
// lives in its slot beside its id, so a lookup reads one slot (rarely a
// few neighbours) and nothing else. The zero Ints is empty.
type Ints struct {
	slots []intSlot
	shift uint // shift(len(slots))
	n     int
}

type intSlot struct {
	key uint64
	id  int32 // id+1, 0 when empty
}

// Find returns the id of k, or -1.
func (t *Ints) Find(k uint64) int32 {
	if len(t.slots) == 0 {
		return -1
	}
	mask := len(t.slots) - 1
	for i := int(HashInt(k) >> t.shift); ; i = next(i, mask) {
		s := &t.slots[i]
		if s.id == 0 || s.key == k {
			return s.id - 1
		}
	}
}

// Add returns the id of k, adding it when new.
func (t *Ints) Add(k uint64) (id int32, added bool) {
	if len(t.slots) == 0 {
		t.slots, t.shift = make([]intSlot, minSlots), shift(minSlots)
	}
	mask := len(t.slots) - 1
	i := int(HashInt(k) >> t.shift)
	for ; t.slots[i].id != 0; i = next(i, mask) {
		if t.slots[i].key == k {
			return t.slots[i].id - 1, false
		}
	}
	id = int32(t.n)
	t.slots[i] = intSlot{key: k, id: id + 1}
	t.n++
	if overloaded(t.n, len(t.slots)) {
		t.grow()
	}
	return id, true
}

func (t *Ints) grow() {
	old := t.slots
	n := grown(len(old))
	t.slots, t.shift = make([]intSlot, n), shift(n)
	mask := n - 1
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		i := int(HashInt(s.key) >> t.shift)
		for t.slots[i].id != 0 {
			i = next(i, mask)
		}
		t.slots[i] = s
	}
}

// Len returns the number of keys.
func (t *Ints) Len() int { return t.n }

// Size returns the bytes the table holds.
func (t *Ints) Size() int64 { return int64(len(t.slots)) * 16 }

// Reset empties the table, keeping its slots for reuse.
func (t *Ints) Reset() {
	clear(t.slots)
	t.n = 0
}

// HashInt is the hash of integer keys: the key times 2^64/φ (Fibonacci
// hashing), whose top bits, where the home slot is taken, depend on
// every bit of the key. It is one multiply where xxhash of the key's 8
// bytes is five, and igprof's call-tree table, which looks up a child
// per line of a dump, folded 17% slower with xxhash (CPU time per op,
// BenchmarkIgProf PERF_TICKS/16MB, interleaved, n=10).
func HashInt(k uint64) uint64 { return k * 0x9e3779b97f4a7c15 }
