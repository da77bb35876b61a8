package table

import (
	"bytes"

	"github.com/cespare/xxhash/v2"
)

// Bytes numbers byte strings 0, 1, … in order of first appearance. It is
// made for millions of strings (frame names) at the least memory a
// string, growing without copying what it holds: the strings live back to
// back in 1 MiB chunks, and each id's place is one uint64 in pages of
// 64Ki ids; the index's slots are the only array that doubles. Nothing
// in it is a pointer the garbage collector scans but the chunk and page
// lists. A string costs its bytes, 8 bytes for its place and 10 to 21
// bytes of index slots. The zero Bytes is empty.
//
// Find and Add hash with xxhash; FindHash and AddHash take the caller's
// hash of the key, which must then be the same function for every key of
// the table.
type Bytes struct {
	ix     Index
	chunks [][]byte   // the strings, back to back
	cur    int        // the chunk being filled is chunks[cur-1]; 0 for none
	pages  [][]uint64 // id → chunk<<40 | offset<<20 | length (see store)
	n      int
	size   int64 // bytes of chunks and pages
}

const (
	bytesChunk = 1 << 20
	bytesPage  = 1 << 16
	// A string of bytesLong bytes or more has a chunk of its own, and its
	// place says bytesLong: its length is the chunk's.
	bytesLong = 1<<20 - 1
)

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
	id = int32(t.n)
	if t.n%bytesPage == 0 {
		t.pages = append(t.pages, make([]uint64, bytesPage))
		t.size += bytesPage * 8
	}
	t.pages[t.n/bytesPage][t.n%bytesPage] = t.store(key)
	t.n++
	t.ix.Insert(h, i, id)
	return id, true
}

// store copies s into a chunk and returns its place.
func (t *Bytes) store(s []byte) uint64 {
	if len(s) >= bytesLong {
		t.chunks = append(t.chunks, bytes.Clone(s))
		t.size += int64(len(s))
		return uint64(len(t.chunks)-1)<<40 | bytesLong
	}
	if t.cur == 0 || len(t.chunks[t.cur-1])+len(s) > bytesChunk {
		t.chunks = append(t.chunks, make([]byte, 0, bytesChunk))
		t.size += bytesChunk
		t.cur = len(t.chunks)
	}
	c := &t.chunks[t.cur-1]
	off := len(*c)
	*c = append(*c, s...)
	return uint64(t.cur-1)<<40 | uint64(off)<<20 | uint64(len(s))
}

// Home returns the id in the home slot of hash h, whatever its key, or
// -1. A user reads it to warm the caches for a batch of lookups (see
// Index.Home).
func (t *Bytes) Home(h uint64) int32 { return t.ix.Home(h) }

// Key returns string id. It shares the table's memory: not to be
// modified or appended to; it stays valid while the table lives.
func (t *Bytes) Key(id int32) []byte {
	p := t.pages[id/bytesPage][id%bytesPage]
	c := t.chunks[p>>40]
	off, n := int(p>>20&(1<<20-1)), int(p&(1<<20-1))
	if n == bytesLong {
		return c[:len(c):len(c)]
	}
	return c[off : off+n : off+n]
}

// Len returns the number of strings.
func (t *Bytes) Len() int { return t.n }

// Size returns the bytes the table holds.
func (t *Bytes) Size() int64 { return t.size + t.ix.Size() }

// Reset empties the table, keeping its first chunk and page for reuse.
func (t *Bytes) Reset() {
	t.ix.Reset()
	if len(t.chunks) > 0 && cap(t.chunks[0]) == bytesChunk {
		t.chunks = append(t.chunks[:0], t.chunks[0][:0])
		t.cur = 1
	} else {
		t.chunks, t.cur = nil, 0
	}
	t.pages = t.pages[:min(1, len(t.pages))]
	t.n = 0
	t.size = int64(len(t.chunks))*bytesChunk + int64(len(t.pages))*bytesPage*8
}
