package callgrind

import (
	"bytes"
	"hash/maphash"
)

// The tables below keep a Profile free of per-frame strings and pointers:
// every string lives once in one byte arena and everything else refers to
// it by an int32 id, so a profile of millions of frames is a few large
// pointer-free slices the garbage collector never scans.

// strtab interns byte strings, numbering them 0, 1, … in order of first
// appearance.
type strtab struct {
	seed  maphash.Seed
	arena []byte   // the strings, back to back
	ends  []int    // ends[id]: the end of string id in arena
	slots []uint64 // open addressing: tag<<32 | id+1, 0 when empty
	mask  uint64
}

func newStrtab() *strtab {
	return &strtab{seed: maphash.MakeSeed(), slots: make([]uint64, 1024), mask: 1023}
}

// len returns the number of strings.
func (t *strtab) len() int { return len(t.ends) }

// get returns string id; it is valid until the next intern.
func (t *strtab) get(id int32) []byte {
	start := 0
	if id > 0 {
		start = t.ends[id-1]
	}
	return t.arena[start:t.ends[id]:t.ends[id]]
}

// lookup returns the id of s, or -1.
func (t *strtab) lookup(s []byte) int32 {
	id, _ := t.find(s, maphash.Bytes(t.seed, s))
	return id
}

// intern returns the id of s, adding it when new.
func (t *strtab) intern(s []byte) (id int32, added bool) {
	h := maphash.Bytes(t.seed, s)
	id, slot := t.find(s, h)
	if id >= 0 {
		return id, false
	}
	id = int32(len(t.ends))
	t.arena = append(t.arena, s...)
	t.ends = append(t.ends, len(t.arena))
	t.slots[slot] = tag(h) | uint64(id+1)
	if uint64(len(t.ends))*4 > uint64(len(t.slots))*3 {
		t.grow()
	}
	return id, true
}

// tag keeps the high half of a string's hash in its slot: most slots
// that hold another string are passed over without reading it, and the
// table grows without hashing the strings again. The slot of a string
// comes from that half too.
func tag(h uint64) uint64 { return h &^ (1<<32 - 1) }

// find returns the id of s and its slot, or -1 and the empty slot where s
// goes.
func (t *strtab) find(s []byte, h uint64) (int32, uint64) {
	for i := h >> 32 & t.mask; ; i = (i + 1) & t.mask {
		v := t.slots[i]
		if v == 0 {
			return -1, i
		}
		if id := int32(uint32(v)) - 1; v&^(1<<32-1) == tag(h) && bytes.Equal(t.get(id), s) {
			return id, i
		}
	}
}

func (t *strtab) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	t.mask = uint64(len(t.slots) - 1)
	for _, v := range old {
		if v == 0 {
			continue
		}
		i := v >> 32 & t.mask
		for t.slots[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = v
	}
}

// pairtab maps pairs of int32 ids to int32 values.
type pairtab struct {
	keys []uint64 // a<<32 | b
	vals []int32  // value+1, 0 when empty
	n    int
	mask uint64
}

func newPairtab() *pairtab {
	return &pairtab{keys: make([]uint64, 1024), vals: make([]int32, 1024), mask: 1023}
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// slot returns the slot of key k: its own, or the empty one where it
// goes.
func (t *pairtab) slot(k uint64) uint64 {
	// Fibonacci hashing spreads the ids, which are small and dense.
	for i := (k * 0x9e3779b97f4a7c15) >> 32 & t.mask; ; i = (i + 1) & t.mask {
		if t.vals[i] == 0 || t.keys[i] == k {
			return i
		}
	}
}

// get returns the value of (a, b), or -1.
func (t *pairtab) get(a, b int32) int32 {
	return t.vals[t.slot(pairKey(a, b))] - 1
}

// put sets the value of (a, b), which must be absent.
func (t *pairtab) put(a, b, v int32) {
	k := pairKey(a, b)
	i := t.slot(k)
	t.keys[i], t.vals[i] = k, v+1
	if t.n++; uint64(t.n)*4 > uint64(len(t.vals))*3 {
		keys, vals := t.keys, t.vals
		t.keys, t.vals = make([]uint64, 2*len(keys)), make([]int32, 2*len(vals))
		t.mask = uint64(len(t.vals) - 1)
		for j, v := range vals {
			if v != 0 {
				i := t.slot(keys[j])
				t.keys[i], t.vals[i] = keys[j], v
			}
		}
	}
}
