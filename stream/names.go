package stream

import (
	"bytes"
	"hash/maphash"
)

// Names interns byte strings (frame names), numbering them 0, 1, … in
// order of first appearance. It is made for millions of names at the
// least memory a name, growing without copying what it holds: the names
// live back to back in 1 MiB chunks, and each id is one uint64 in pages
// of 64Ki ids; the hash slots are the only array that doubles. Nothing
// in it is a pointer the garbage collector scans but the chunk and page
// lists. A name costs its bytes, 8 bytes for its place and 8 to 16 bytes
// of hash slots (11 on average).
type Names struct {
	seed   maphash.Seed
	chunks [][]byte   // the names, back to back
	cur    int        // the chunk being filled, -1 for none
	pages  [][]uint64 // id → chunk<<40 | offset<<20 | length (see place)
	n      int
	slots  []uint64 // open addressing: the hash's high half | id+1, 0 when empty
	mask   uint64
	size   int64 // bytes of chunks, pages and slots
}

const (
	namesChunk = 1 << 20
	namesPage  = 1 << 16
	// A name of namesLong bytes or more has a chunk of its own, and its
	// place says namesLong: its length is the chunk's.
	namesLong = 1<<20 - 1
)

// NewNames returns an empty table.
func NewNames() *Names {
	return &Names{seed: maphash.MakeSeed(), cur: -1, slots: make([]uint64, 1024), mask: 1023, size: 8 << 10}
}

// Len returns the number of names.
func (t *Names) Len() int { return t.n }

// Size returns the bytes the table holds.
func (t *Names) Size() int64 { return t.size }

// Get returns name id. It aliases the table: do not modify it.
func (t *Names) Get(id int) []byte {
	p := t.pages[id/namesPage][id%namesPage]
	c := t.chunks[p>>40]
	off, n := int(p>>20&(1<<20-1)), int(p&(1<<20-1))
	if n == namesLong {
		return c
	}
	return c[off : off+n : off+n]
}

// Lookup returns the id of s, or -1.
func (t *Names) Lookup(s []byte) int {
	id, _ := t.find(s, maphash.Bytes(t.seed, s))
	return id
}

// Intern returns the id of s, adding s when new.
func (t *Names) Intern(s []byte) int {
	id, _ := t.Add(s)
	return id
}

// Add returns the id of s, adding s when new; added reports whether it
// was.
func (t *Names) Add(s []byte) (id int, added bool) {
	h := maphash.Bytes(t.seed, s)
	id, slot := t.find(s, h)
	if id >= 0 {
		return id, false
	}
	id = t.n
	t.n++
	if id%namesPage == 0 {
		t.pages = append(t.pages, make([]uint64, namesPage))
		t.size += namesPage * 8
	}
	t.pages[id/namesPage][id%namesPage] = t.store(s)
	t.slots[slot] = h&^(1<<32-1) | uint64(id+1)
	if uint64(t.n)*4 > uint64(len(t.slots))*3 {
		t.grow()
	}
	return id, true
}

// store copies s into a chunk and returns its place.
func (t *Names) store(s []byte) uint64 {
	if len(s) >= namesLong {
		t.chunks = append(t.chunks, bytes.Clone(s))
		t.size += int64(len(s))
		return uint64(len(t.chunks)-1)<<40 | namesLong
	}
	if t.cur < 0 || len(t.chunks[t.cur])+len(s) > namesChunk {
		t.chunks = append(t.chunks, make([]byte, 0, namesChunk))
		t.size += namesChunk
		t.cur = len(t.chunks) - 1
	}
	k := t.cur
	off := len(t.chunks[k])
	t.chunks[k] = append(t.chunks[k], s...)
	return uint64(k)<<40 | uint64(off)<<20 | uint64(len(s))
}

func (t *Names) find(s []byte, h uint64) (int, uint64) {
	tag := h &^ (1<<32 - 1)
	for i := h >> 32 & t.mask; ; i = (i + 1) & t.mask {
		v := t.slots[i]
		if v == 0 {
			return -1, i
		}
		if id := int(uint32(v)) - 1; v&^(1<<32-1) == tag && bytes.Equal(t.Get(id), s) {
			return id, i
		}
	}
}

func (t *Names) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	t.size += int64(len(old)) * 8
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
