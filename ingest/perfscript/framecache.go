package perfscript

import (
	"bytes"
	"hash/maphash"

	"github.com/pfold/pfold/internal/table"
)

// frameCache maps the text of a frame line to its folded pieces; frame
// lines are looked up once per line of input. Its probing is
// internal/table's Index; its own is one byte arena holding each entry's
// key and then the pieces' text, so that a hit reads the line and its
// folded form from one place. It stays specialised because that is
// measurably faster: as a table.Bytes of the lines beside an arena of
// texts, looking up the 77,765 frame lines of a Go build (10,041
// distinct) took 5.4% more CPU time (thread CPU time, interleaved in one
// process, n=12, p=0.002).
type frameCache struct {
	ix      table.Index // entry index by line hash
	entries []cacheEntry
	arena   []byte
	ends    []int32 // piece ends, relative to the entry's text
	limit   int64
	warmed  []int32 // warm's scratch
}

type cacheEntry struct {
	off       uint32 // key at arena[off:off+klen], text right after
	klen      uint32
	tlen      uint32
	endOff    uint32 // ends[endOff:endOff+nends]
	nends     uint16
	srcWant   uint16
	skipAfter bool
	srcDrop   bool // the source line is read and left out (--inline)
}

// size is what the entries take: their text, their records (24 bytes)
// and their share of the slots (8 bytes each, at least 3/8 full: at most
// 24). It counts lengths, not capacities, so that a reset brings it back
// to zero (the arrays are kept and refilled).
func (c *frameCache) size() int64 {
	return int64(len(c.arena)) + int64(len(c.entries))*(24+24) + int64(len(c.ends))*4
}

// lookup returns the index of key's entry + 1, or 0 when it has none.
func (c *frameCache) lookup(h uint64, key []byte) uint32 {
	for i := c.ix.Start(h); ; {
		var id int32
		if id, i = c.ix.Next(h, i); id < 0 {
			return 0
		}
		if e := &c.entries[id]; bytes.Equal(c.arena[e.off:e.off+e.klen], key) {
			return uint32(id) + 1
		}
	}
}

// warm reads what the lookups of hashes hs will read first — their
// slots, entries and the start of their keys — stage by stage, so that
// the cache misses of a whole sample overlap instead of queueing one line
// at a time. The result only keeps the loads from being optimised away.
func (c *frameCache) warm(hs []uint64) uint32 {
	if len(c.entries) == 0 {
		return 0
	}
	if cap(c.warmed) < len(hs) {
		c.warmed = make([]int32, len(hs))
	}
	w := c.warmed[:len(hs)]
	for i, h := range hs {
		w[i] = c.ix.Home(h)
	}
	var sum uint32
	for i, id := range w {
		if id >= 0 {
			w[i] = int32(c.entries[id].off)
		}
	}
	for _, off := range w {
		if off >= 0 && int(off) < len(c.arena) {
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
// has checked cacheable and full, and looked key up in vain.
func (c *frameCache) insert(h uint64, key, text []byte, ends []int32, srcWant int, skipAfter, srcDrop bool) uint32 {
	e := cacheEntry{off: uint32(len(c.arena)), klen: uint32(len(key)), tlen: uint32(len(text)),
		endOff: uint32(len(c.ends)), nends: uint16(len(ends)), srcWant: uint16(srcWant), skipAfter: skipAfter, srcDrop: srcDrop}
	c.arena = append(append(c.arena, key...), text...)
	c.ends = append(c.ends, ends...)
	c.ix.Put(h, int32(len(c.entries)))
	c.entries = append(c.entries, e)
	return uint32(len(c.entries))
}

func (c *frameCache) reset() {
	c.ix.Reset()
	c.entries = c.entries[:0]
	c.arena = c.arena[:0]
	c.ends = c.ends[:0]
}

// lineSeed seeds the hash of frame lines: the runtime's AES-based hash,
// not xxhash, which internal/table uses elsewhere. With xxhash the same
// lookups took 23% more CPU time (n=12, p=0.000) on lines this short;
// the cache lives only as long as the process, so a seed that changes
// from run to run changes nothing.
var lineSeed = maphash.MakeSeed()

func hashLine(javaSeed bool, line []byte) uint64 {
	h := maphash.Bytes(lineSeed, line)
	if javaSeed {
		h = ^h // java names are tidied differently: another key
	}
	return h
}
