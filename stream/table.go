package stream

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/pfold/pfold/fold"
	hashtable "github.com/pfold/pfold/internal/table"
)

// table is an open-addressing hash table of stacks to counts whose keys
// live in an arena of byte chunks, so adding a stack allocates nothing
// once the arrays have grown. The probing is internal/table's Index; what
// is stream's own is the arena of chunks (whose growth the memory budget
// counts one chunk at a time, where one arena would double) and the
// entries, which are sorted in place to be spilled. A 64-bit hash is not
// an identity: lookups compare the stack bytes too.
type table struct {
	ix      hashtable.Index // entry index by stack hash
	entries []entry
	chunks  [][]byte
	cur     int // the chunk being filled
	chunk   int // size of a new arena chunk
	// unordered: some stack was added before one that sorts below it.
	// Formats that fold a whole recording before emitting (perf.data)
	// emit their stacks sorted; then sorted has nothing to do.
	unordered bool
	indexDead bool // sorted has reused the entries' hashes
	touched   byte // keeps touch's reads from being optimised away
}

type entry struct {
	hash  uint64 // the stack's hash; sortFrom's digit once sorting
	val   uint64 // the count: an integer, or a decimal's float64 bits when dec
	chunk uint32
	off   uint32
	n     uint32
	dec   bool
}

// entrySize is what an entry takes: 32 bytes, where a fold.Count in it
// made 48 (the sort moves entries, and the budget holds a third more
// stacks).
const entrySize = 32

func (e *entry) count() fold.Count {
	if e.dec {
		return fold.Dec(math.Float64frombits(e.val))
	}
	return fold.Int(e.val)
}

func (e *entry) setCount(c fold.Count) {
	if e.dec = c.Float; c.Float {
		e.val = math.Float64bits(c.F)
	} else {
		e.val = c.N
	}
}

func newTable(chunk int) *table {
	return &table{chunk: chunk, entries: make([]entry, 0, 512)}
}

func (t *table) key(e *entry) []byte {
	return t.chunks[e.chunk][e.off : e.off+e.n]
}

// size returns the bytes the table holds.
func (t *table) size() int64 {
	n := t.ix.Size() + int64(cap(t.entries))*entrySize
	for _, c := range t.chunks {
		n += int64(cap(c))
	}
	return n
}

// used returns the bytes the table's entries take, not counting the
// room its arrays keep for more.
func (t *table) used() int64 {
	var n int64
	for _, c := range t.chunks[:min(t.cur+1, len(t.chunks))] {
		n += int64(len(c))
	}
	return n + int64(len(t.entries))*(entrySize+16)
}

// growthCost returns how many more bytes adding one new stack of n bytes
// may take.
func (t *table) growthCost(n int) int64 {
	c := t.ix.GrowthCost()
	if len(t.entries) == cap(t.entries) {
		c += int64(cap(t.entries)) * entrySize
	}
	if !t.fits(n) {
		c += int64(max(n, t.chunk))
	}
	return c
}

// find returns the entry of stack, or nil and where the probe for it
// ended, where add inserts it.
func (t *table) find(h uint64, stack []byte) (*entry, int) {
	i := t.ix.Start(h)
	for {
		var id int32
		if id, i = t.ix.Next(h, i); id < 0 {
			return nil, i
		}
		if e := &t.entries[id]; e.hash == h && bytes.Equal(t.key(e), stack) {
			return e, i
		}
	}
}

// add adds c to stack's count, inserting stack when new.
func (t *table) add(h uint64, stack []byte, c fold.Count) error {
	e, i := t.find(h, stack)
	if e != nil {
		sum, err := e.count().Add(c)
		if err != nil {
			return err
		}
		e.setCount(sum)
		return nil
	}
	if !t.unordered && len(t.entries) > 0 {
		t.unordered = bytes.Compare(t.key(&t.entries[len(t.entries)-1]), stack) > 0
	}
	ci, off := t.store(stack)
	t.ix.Insert(h, i, int32(len(t.entries)))
	t.entries = append(t.entries, entry{hash: h, chunk: ci, off: off, n: uint32(len(stack))})
	t.entries[len(t.entries)-1].setCount(c)
	return nil
}

// fits reports whether n more bytes fit in an arena chunk already held.
func (t *table) fits(n int) bool {
	for i := t.cur; i < len(t.chunks); i++ {
		if len(t.chunks[i])+n <= cap(t.chunks[i]) {
			return true
		}
	}
	return false
}

func (t *table) store(stack []byte) (uint32, uint32) {
	for t.cur < len(t.chunks) && len(t.chunks[t.cur])+len(stack) > cap(t.chunks[t.cur]) {
		t.cur++
	}
	if t.cur == len(t.chunks) {
		t.chunks = append(t.chunks, make([]byte, 0, max(len(stack), t.chunk)))
	}
	c := t.chunks[t.cur]
	off := len(c)
	t.chunks[t.cur] = append(c, stack...)
	return uint32(t.cur), uint32(off)
}

// sorted sorts the entries bytewise by stack; the index is invalid
// afterwards until reset.
func (t *table) sorted() []entry {
	if t.unordered {
		t.sortFrom(t.entries, 0)
		t.unordered, t.indexDead = false, true
	}
	return t.entries
}

// reindex makes a sorted table's index valid again, for more adds.
func (t *table) reindex() {
	t.ix.Reset()
	for i := range t.entries {
		e := &t.entries[i]
		e.hash = hash(t.key(e))
		t.ix.Put(e.hash, int32(i))
	}
	t.indexDead = false
}

// radixDepth is how deep sortFrom goes 8 bytes at a time, or further
// by skipping what a node's stacks share, before it compares what is
// left of the stacks.
const radixDepth = 1 << 16

// sortFrom sorts entries whose stacks are equal up to depth. Comparing
// whole stacks reads two random places of the arena per comparison, and
// stacks share long prefixes. Instead each entry's 8 bytes at depth go
// into its hash field (no longer needed: the index is dead), the
// entries are sorted by that integer, and each run of equal bytes is
// sorted the same way 8 bytes further: one arena read per entry and
// level. Past radixDepth, what is left is compared as bytes.
func (t *table) sortFrom(es []entry, depth int) {
	if len(es) < 2 {
		return
	}
	if depth >= radixDepth || len(es) < 16 {
		slices.SortFunc(es, func(a, b entry) int {
			return bytes.Compare(t.key(&a)[depth:], t.key(&b)[depth:])
		})
		return
	}
	// The bytes all the stacks share from depth on are skipped in one
	// pass (a process's stacks share long beginnings: 8 bytes a level,
	// each an arena read per stack, would get to their end slowly).
	first := t.key(&es[0])[depth:]
	shared := len(first)
	for i := 1; i < len(es) && shared > 0; i++ {
		if k := t.key(&es[i])[depth:]; len(k) < shared || !bytes.Equal(first[:shared], k[:shared]) {
			shared = CommonPrefix(first[:shared], k)
		}
	}
	depth += shared
	for i := range es {
		es[i].hash = digit(t.key(&es[i]), depth)
	}
	sortByDigit(es, bits.Len(uint(len(es)))*2)
	for start := 0; start < len(es); {
		end := start + 1
		for end < len(es) && es[end].hash == es[start].hash {
			end++
		}
		if end-start > 1 {
			// Stacks that end within these 8 bytes come first, shortest
			// first (the bytes are zero-padded); the rest go on.
			run := es[start:end]
			ended := 0
			for i := range run {
				if int(run[i].n) <= depth+8 {
					ended++
				}
			}
			if ended > 0 {
				slices.SortFunc(run, func(a, b entry) int {
					return cmp.Compare(min(int(a.n)-depth, 9), min(int(b.n)-depth, 9))
				})
			}
			t.sortFrom(run[ended:], depth+8)
		}
		start = end
	}
}

// touchAhead is how many entries ahead of the one it reads a pass over
// the arena reads, and how many at once. (sortFrom's passes gain nothing
// from it: their loops are short enough for the processor to run
// several reads ahead by itself.)
const touchAhead = 8

// touch reads the byte at depth of the stacks of es[from:], touchAhead
// of them (those that have one), so that the cache misses of a pass over
// the arena come touchAhead at once rather than one after another: a
// sorted table's stacks are all over it.
func (t *table) touch(es []entry, from, depth int) {
	var sum byte
	for i := from; i < min(from+touchAhead, len(es)); i++ {
		if e := &es[i]; int(e.n) > depth {
			sum += t.chunks[e.chunk][int(e.off)+depth]
		}
	}
	t.touched += sum
}

// sortByDigit sorts entries by their hash field (the digit): a
// quicksort with three-way partitions, since many digits are equal
// (stacks share their first bytes), on the entries themselves rather
// than through a comparison function; past depth levels (a bad run of
// pivots) it leaves the rest to slices.SortFunc.
func sortByDigit(es []entry, depth int) {
	for len(es) > 16 {
		if depth == 0 {
			slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.hash, b.hash) })
			return
		}
		depth--
		// The median of the first, middle and last digits.
		a, b, c := es[0].hash, es[len(es)/2].hash, es[len(es)-1].hash
		if a > b {
			a, b = b, a
		}
		if b > c {
			b = c
			if a > b {
				b = a
			}
		}
		pivot := b
		// es[:lt] < pivot, es[lt:i] == pivot, es[gt:] > pivot.
		lt, i, gt := 0, 0, len(es)
		for i < gt {
			switch d := es[i].hash; {
			case d < pivot:
				es[lt], es[i] = es[i], es[lt]
				lt++
				i++
			case d > pivot:
				gt--
				es[i], es[gt] = es[gt], es[i]
			default:
				i++
			}
		}
		// The smaller side by recursion, the larger by the loop.
		if lt < len(es)-gt {
			sortByDigit(es[:lt], depth)
			es = es[gt:]
		} else {
			sortByDigit(es[gt:], depth)
			es = es[:lt]
		}
	}
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].hash < es[j-1].hash; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// CommonPrefix returns the length of the longest common prefix of a and
// b. Sorted stacks share long beginnings: the spill, the table sort and
// callgrind's sorted batches measure them with it.
func CommonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	// 32 bytes a step while they are equal: the loads are independent,
	// and a spilled stack is read this way once.
	for ; i+32 <= n; i += 32 {
		x, y := a[i:i+32:i+32], b[i:i+32:i+32]
		// (^ and | bind alike in Go: the parentheses are needed.)
		if (binary.LittleEndian.Uint64(x)^binary.LittleEndian.Uint64(y))|
			(binary.LittleEndian.Uint64(x[8:])^binary.LittleEndian.Uint64(y[8:]))|
			(binary.LittleEndian.Uint64(x[16:])^binary.LittleEndian.Uint64(y[16:]))|
			(binary.LittleEndian.Uint64(x[24:])^binary.LittleEndian.Uint64(y[24:])) != 0 {
			break
		}
	}
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

// digit returns the 8 bytes of key at depth as a big-endian integer,
// zero-padded past its end.
func digit(key []byte, depth int) uint64 {
	if len(key) >= depth+8 {
		return binary.BigEndian.Uint64(key[depth:])
	}
	var b [8]byte
	if depth < len(key) {
		copy(b[:], key[depth:])
	}
	return binary.BigEndian.Uint64(b[:])
}

// reset empties the table, keeping its arrays for reuse.
func (t *table) reset() {
	if t.ix.Size() > 64*int64(t.ix.Len()) {
		// Its index is 8 times the size these entries needed (the table
		// was larger before an early spill): a probe's home slot is
		// anywhere in it, a cache miss each, so it starts small again.
		t.ix.Release()
	}
	t.ix.Reset()
	t.entries = t.entries[:0]
	t.unordered, t.indexDead = false, false
	for i := range t.chunks {
		t.chunks[i] = t.chunks[i][:0]
	}
	t.cur = 0
}

// release drops the table's arrays once its entries have been written out.
func (t *table) release() {
	t.ix.Release()
	t.entries, t.chunks, t.cur = nil, nil, 0
	t.unordered, t.indexDead = false, false
}

// hash is the stack hash used by every table: internal/table's, xxhash.
func hash(stack []byte) uint64 { return hashtable.Hash(stack) }
