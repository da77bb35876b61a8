package table

import "math/bits"

// Ints numbers uint64 keys 0, 1, … in order of first appearance. A key
// lives in its slot beside its id, so a lookup reads one slot (rarely a
// few neighbours) and nothing else. The zero Ints is empty.
type Ints struct {
	slots []intSlot
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
	for i := home(HashInt(k)) & mask; ; i = next(i, mask) {
		s := &t.slots[i]
		if s.id == 0 || s.key == k {
			return s.id - 1
		}
	}
}

// Add returns the id of k, adding it when new.
func (t *Ints) Add(k uint64) (id int32, added bool) {
	if len(t.slots) == 0 {
		t.slots = make([]intSlot, minSlots)
	}
	mask := len(t.slots) - 1
	i := home(HashInt(k)) & mask
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
	t.slots = make([]intSlot, grown(len(old)))
	mask := len(t.slots) - 1
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		i := home(HashInt(s.key)) & mask
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

// HashInt is xxhash of k's 8 bytes, little-endian: xxhash.Sum64 of them,
// without the slice.
func HashInt(k uint64) uint64 {
	const (
		prime1 uint64 = 11400714785074694791
		prime2 uint64 = 14029467366897019727
		prime3 uint64 = 1609587929392839161
		prime4 uint64 = 9650029242287828579
		prime5 uint64 = 2870177450012600261
	)
	h := prime5 + 8
	h ^= bits.RotateLeft64(k*prime2, 31) * prime1
	h = bits.RotateLeft64(h, 27)*prime1 + prime4
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}
