package table

import (
	"bytes"

	"github.com/cespare/xxhash/v2"
)

// Bytes numbers byte strings 0, 1, … in order of first appearance. The
// strings live back to back in one arena, so a table of millions of them
// is a few pointer-free slices the garbage collector never scans. The
// zero Bytes is empty.
//
// Find and Add hash with xxhash; FindHash and AddHash take the caller's
// hash of the key, which must then be the same function for every key of
// the table.
type Bytes struct {
	ix    Index
	arena []byte
	ends  []int // ends[id]: the end of string id in arena
}

// Hash is the hash of byte strings: xxhash.
func Hash(key []byte) uint64 { return xxhash.Sum64(key) }

// Find returns the id of key, or -1.
func (t *Bytes) Find(key []byte) int32 { return t.FindHash(Hash(key), key) }

// Add returns the id of key, adding a copy of it when new.
func (t *Bytes) Add(key []byte) (id int32, added bool) { return t.AddHash(Hash(key), key) }

// FindHash returns the id of key, whose hash is h, or -1.
func (t *Bytes) FindHash(h uint64, key []byte) int32 {
	for i := t.ix.Start(h); ; {
		var id int32
		if id, i = t.ix.Next(h, i); id < 0 || bytes.Equal(t.Key(id), key) {
			return id
		}
	}
}

// AddHash returns the id of key, whose hash is h, adding a copy of it
// when new.
func (t *Bytes) AddHash(h uint64, key []byte) (id int32, added bool) {
	i := t.ix.Start(h)
	for {
		if id, i = t.ix.Next(h, i); id < 0 {
			break
		}
		if bytes.Equal(t.Key(id), key) {
			return id, false
		}
	}
	id = int32(len(t.ends))
	t.arena = append(t.arena, key...)
	t.ends = append(t.ends, len(t.arena))
	t.ix.Insert(h, i, id)
	return id, true
}

// Key returns string id. It shares the arena: valid until the next Add,
// and not to be appended to.
func (t *Bytes) Key(id int32) []byte {
	start := 0
	if id > 0 {
		start = t.ends[id-1]
	}
	end := t.ends[id]
	return t.arena[start:end:end]
}

// Len returns the number of strings.
func (t *Bytes) Len() int { return len(t.ends) }

// Size returns the bytes the table holds.
func (t *Bytes) Size() int64 {
	return int64(cap(t.arena)) + int64(cap(t.ends))*8 + t.ix.Size()
}

// Reset empties the table, keeping its arrays for reuse.
func (t *Bytes) Reset() {
	t.ix.Reset()
	t.arena = t.arena[:0]
	t.ends = t.ends[:0]
}
