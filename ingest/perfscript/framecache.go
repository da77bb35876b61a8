package perfscript

import (
	"bytes"
	"hash/maphash"
)

// frameCache maps the text of a frame line to its folded pieces. It is an
// open-addressing table over one byte arena (key, then the pieces'
// text), which costs fewer cache misses per lookup than a Go map of
// strings to pointers; frame lines are looked up once per line of input.
type frameCache struct {
	slots   []uint32 // entry index + 1; 0 is empty
	entries []cacheEntry
	arena   []byte
	ends    []int32 // piece ends, relative to the entry's text
	limit   int64
	warmed  []uint32 // warm's scratch
}

type cacheEntry struct {
	hash      uint64
	off       uint32 // key at arena[off:off+klen], text right after
	klen      uint32
	tlen      uint32
	endOff    uint32 // ends[endOff:endOff+nends]
	nends     uint16
	srcWant   uint16
	skipAfter bool
}

// size is what the entries take: their text, their records and their
// share of the slots. It counts lengths, not capacities, so that a reset
// brings it back to zero (the arrays are kept and refilled).
func (c *frameCache) size() int64 {
	return int64(len(c.arena)) + int64(len(c.entries))*(40+8) + int64(len(c.ends))*4
}

// lookup returns the index of key's entry + 1, or 0 when it has none.
func (c *frameCache) lookup(h uint64, key []byte) uint32 {
	if len(c.slots) == 0 {
		return 0
	}
	mask := uint64(len(c.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := c.slots[i]
		if s == 0 {
			return 0
		}
		e := &c.entries[s-1]
		if e.hash == h && bytes.Equal(c.arena[e.off:e.off+e.klen], key) {
			return s
		}
	}
}

// warm reads what the lookups of hashes hs will read first — their
// slots, entries and the start of their keys — stage by stage, so that
// the cache misses of a whole sample overlap instead of queueing one line
// at a time. The result only keeps the loads from being optimised away.
func (c *frameCache) warm(hs []uint64) uint32 {
	if len(c.slots) == 0 {
		return 0
	}
	mask := uint64(len(c.slots) - 1)
	if cap(c.warmed) < len(hs) {
		c.warmed = make([]uint32, len(hs))
	}
	w := c.warmed[:len(hs)]
	for i, h := range hs {
		w[i] = c.slots[h&mask]
	}
	var sum uint32
	for i, s := range w {
		if s != 0 {
			w[i] = c.entries[s-1].off
		}
	}
	for _, off := range w {
		if int(off) < len(c.arena) {
			sum += uint32(c.arena[off])
		}
	}
	return sum
}

func (c *frameCache) text(e *cacheEntry) []byte {
	start := e.off + e.klen
	return c.arena[start : start+e.tlen]
}

func (c *frameCache) pieceEnds(e *cacheEntry) []int32 {
	return c.ends[e.endOff : e.endOff+uint32(e.nends)]
}

// cacheable reports whether an entry of this shape can be inserted:
// absurd lines are parsed each time instead.
func (c *frameCache) cacheable(key, text []byte, ends []int32, srcWant int) bool {
	return len(ends) <= 1<<15 && srcWant <= 1<<15 && len(key)+len(text) <= 1<<30
}

// full reports whether the entry would take the cache past its limit (or
// its 32-bit offsets); the caller resets it first.
func (c *frameCache) full(key, text []byte) bool {
	n := len(key) + len(text)
	return c.size()+int64(n+64) > c.limit || len(c.arena)+n > 1<<31
}

// insert adds key → pieces and returns the entry's index + 1. The caller
// has checked cacheable and full.
func (c *frameCache) insert(h uint64, key, text []byte, ends []int32, srcWant int, skipAfter bool) uint32 {
	if 2*(len(c.entries)+1) > len(c.slots) {
		c.grow()
	}
	e := cacheEntry{hash: h, off: uint32(len(c.arena)), klen: uint32(len(key)), tlen: uint32(len(text)),
		endOff: uint32(len(c.ends)), nends: uint16(len(ends)), srcWant: uint16(srcWant), skipAfter: skipAfter}
	c.arena = append(append(c.arena, key...), text...)
	c.ends = append(c.ends, ends...)
	c.entries = append(c.entries, e)
	c.place(h, uint32(len(c.entries)))
	return uint32(len(c.entries))
}

func (c *frameCache) place(h uint64, idx uint32) {
	mask := uint64(len(c.slots) - 1)
	i := h & mask
	for c.slots[i] != 0 {
		i = (i + 1) & mask
	}
	c.slots[i] = idx
}

func (c *frameCache) grow() {
	n := max(1024, 2*len(c.slots))
	c.slots = make([]uint32, n)
	for i := range c.entries {
		c.place(c.entries[i].hash, uint32(i+1))
	}
}

func (c *frameCache) reset() {
	clear(c.slots)
	c.entries = c.entries[:0]
	c.arena = c.arena[:0]
	c.ends = c.ends[:0]
}

// lineSeed seeds the hash of frame lines: the runtime's AES-based hash
// is about twice as fast as xxhash on lines this short, and the cache
// lives only as long as the process.
var lineSeed = maphash.MakeSeed()

func hashLine(javaSeed bool, line []byte) uint64 {
	h := maphash.Bytes(lineSeed, line)
	if javaSeed {
		h = ^h // java names are tidied differently: another key
	}
	return h
}
