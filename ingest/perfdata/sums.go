package perfdata

import (
	"bytes"
	"hash/maphash"

	"github.com/pfold/pfold/fold"
)

// sums adds counts under byte keys (a sample's header and sites, a
// stack's name and frames): keys in arena chunks that never move,
// entries in insertion order, open addressing over slots; nothing in
// the tables holds a pointer, so the collector never scans them.
type sums struct {
	slots  []uint32 // entry index + 1; 0 is empty
	ents   []sumEntry
	chunks [][]byte
	used   int64 // key bytes
}

type sumEntry struct {
	hash  uint64
	chunk uint32 // the key: chunks[chunk][off:off+len]
	off   uint32
	len   uint32
	n     int64 // samples
	w     fold.Count
}

// sumChunk is the size of the arena's chunks.
const sumChunk = 1 << 20

var sumSeed = maphash.MakeSeed()

// add adds w (and n samples) to key's entry.
func (t *sums) add(key []byte, w fold.Count, n int64) error {
	h := maphash.Bytes(sumSeed, key)
	if 2*(len(t.ents)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			c := len(t.chunks) - 1
			if c < 0 || len(t.chunks[c])+len(key) > cap(t.chunks[c]) {
				t.chunks = append(t.chunks, make([]byte, 0, max(sumChunk, len(key))))
				c++
			}
			t.ents = append(t.ents, sumEntry{hash: h, chunk: uint32(c), off: uint32(len(t.chunks[c])), len: uint32(len(key)), w: w, n: n})
			t.chunks[c] = append(t.chunks[c], key...)
			t.used += int64(len(key))
			t.slots[i] = uint32(len(t.ents))
			return nil
		}
		e := &t.ents[s-1]
		if e.hash == h && bytes.Equal(t.key(e), key) {
			sum, err := e.w.Add(w)
			if err != nil {
				return err
			}
			e.w = sum
			e.n += n
			return nil
		}
	}
}

func (t *sums) key(e *sumEntry) []byte { return t.chunks[e.chunk][e.off : e.off+e.len] }

// size is the bytes the entries take with their share of the slots; it
// counts entries, not the arrays kept for reuse, so that a reset brings
// it back to zero.
func (t *sums) size() int64 {
	return t.used + int64(len(t.ents))*(48+2*4)
}

func (t *sums) grow() {
	n := max(1<<10, 2*len(t.slots))
	t.slots = make([]uint32, n)
	mask := uint64(n - 1)
	for k := range t.ents {
		i := t.ents[k].hash & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(k + 1)
	}
}

// reset empties the table, keeping its arrays.
func (t *sums) reset() {
	clear(t.slots)
	t.ents = t.ents[:0]
	for i := range t.chunks {
		t.chunks[i] = t.chunks[i][:0]
	}
	t.chunks = t.chunks[:min(len(t.chunks), 1)]
	t.used = 0
}
