package perfscript

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/table"
)

// The sample path: FoldChunks reads a sample whole rather than line by
// line. Its frame lines are the leaf line, whose address and offset
// change from sample to sample, and the callers' lines (the block), whose
// return addresses repeat. So the leaf is looked up by what its folded
// form depends on (its symbol without the offset, and its module), and
// the block as one byte range together with the process name: a sample
// seen before costs a search for its blank line, the header, and two
// lookups, however many callers it has. Samples become stacks as
// name;callers;leaf, and with batching are summed by their two entries
// before they do.
//
// Whatever this path cannot fold exactly as Line would is left to Line:
// srcline, frame lines that are not indented or whose first field is not
// an address (perf script layouts without ip), lines that fold to an
// empty frame, samples that do not end at an empty line, and --addrs or
// --kernel where the address decides a leaf's name (the whole line is the
// key then).

// textCache maps keys of one or two parts to folded text. An entry is
// one record in one arena, its header, its key and its text back to
// back, and its id is where it starts: a lookup reads the slot and then
// one place. Keys of two parts keep where the first ends, so that no two
// pairs with the same concatenation meet.
type textCache struct {
	ix    table.Index
	arena []byte
	n     int
}

// A record's header: klen, k1 (the first part's length), tlen, lines (a
// block's) and aux (a block's prefix) as uint32s, then flags.
const recHeader = 21

const (
	skipsAfter uint8 = 1 << iota // the leaf matched --skip-after: no callers, no name
	dropsName                    // a caller matched --skip-after: no name, no callers above it
	unfit                        // this path cannot fold it: Line does
)

// size is what the entries take: the arena and their share of the slots
// (at least 3/8 full, at most 24 bytes an entry).
func (c *textCache) size() int64 { return int64(len(c.arena)) + int64(c.n)*24 }

func (c *textCache) lookup(h uint64, k1, k2 []byte) int32 {
	for i := c.ix.Start(h); ; {
		var id int32
		if id, i = c.ix.Next(h, i); id < 0 {
			return -1
		}
		r := c.arena[id:]
		klen, n1 := binary.LittleEndian.Uint32(r), binary.LittleEndian.Uint32(r[4:])
		if int(n1) == len(k1) && int(klen) == len(k1)+len(k2) {
			key := r[recHeader : recHeader+int(klen)]
			if bytes.Equal(key[:n1], k1) && bytes.Equal(key[n1:], k2) {
				return id
			}
		}
	}
}

func (c *textCache) insert(h uint64, k1, k2, text []byte, lines int, aux int32, flags uint8) int32 {
	id := int32(len(c.arena))
	a := binary.LittleEndian.AppendUint32(c.arena, uint32(len(k1)+len(k2)))
	a = binary.LittleEndian.AppendUint32(a, uint32(len(k1)))
	a = binary.LittleEndian.AppendUint32(a, uint32(len(text)))
	a = binary.LittleEndian.AppendUint32(a, uint32(lines))
	a = binary.LittleEndian.AppendUint32(a, uint32(aux))
	a = append(a, flags)
	c.arena = append(append(append(a, k1...), k2...), text...)
	c.ix.Put(h, id)
	c.n++
	return id
}

func (c *textCache) flags(id int32) uint8 { return c.arena[id+20] }

func (c *textCache) aux(id int32) int32 {
	return int32(binary.LittleEndian.Uint32(c.arena[id+16:]))
}

// parts returns the two parts of entry id's key.
func (c *textCache) parts(id int32) (k1, k2 []byte) {
	r := c.arena[id:]
	key := r[recHeader : recHeader+int(binary.LittleEndian.Uint32(r))]
	n1 := binary.LittleEndian.Uint32(r[4:])
	return key[:n1], key[n1:]
}

// guessBits sizes the table of block guesses: the blocks last seen after
// a first caller line, by the hash of the line and the process name.
// Many blocks share a first caller (the callers of one function), so a
// set holds the last guessWays of them, the newest first, each with its
// length: a sample is checked against a guess by its bytes at that
// length (an empty line must follow) before they are compared.
const (
	guessBits = 12
	guessWays = 4
)

type blockGuess struct {
	tag uint32 // the low half of the hash
	id  int32  // block entry + 1; 0 for none
	pre int32  // its prefix, for the leaf's hash before the block is read
	n   int32  // the block's length
}

type guessSet [guessWays]blockGuess

// put makes g the set's newest guess, in place of the one at w: the
// oldest, for a new guess.
func (s *guessSet) put(g blockGuess, w int) {
	copy(s[1:w+1], s[:w])
	s[0] = g
}

// key returns the key of entry id, whole.
func (c *textCache) key(id int32) []byte {
	r := c.arena[id:]
	return r[recHeader : recHeader+int(binary.LittleEndian.Uint32(r))]
}

func (c *textCache) lines(id int32) int {
	return int(binary.LittleEndian.Uint32(c.arena[id+12:]))
}

func (c *textCache) reset() {
	c.ix.Reset()
	c.arena = c.arena[:0]
	c.n = 0
}

// sampleTable is the sample path's batch: samples summed by their
// prefix, their leaf's module (numbered in the modules cache) and symbol,
// each record holding the leaf's folded text and the sum, so that a
// sample seen before costs one lookup beyond its block's. Records are
// back to back in one arena, a record's id is where it starts, and Flush
// walks them in order.
type sampleTable struct {
	ix    table.Index
	arena []byte
	n     int
}

// A record's header: prefix, module, symbol length and text length as
// uint32s, the sum as a uint64, then flags; the symbol and the text
// follow, the text only when it differs from the symbol (sameText).
const sampleHeader = 25

// sameText flags a record whose leaf folds to its symbol as it is.
const sameText uint8 = 1 << 7

func (t *sampleTable) size() int64 { return int64(len(t.arena)) + int64(t.n)*24 }

func (t *sampleTable) lookup(h uint64, prefix, mod int32, sym []byte) int32 {
	for i := t.ix.Start(h); ; {
		var id int32
		if id, i = t.ix.Next(h, i); id < 0 {
			return -1
		}
		r := t.arena[id:]
		if binary.LittleEndian.Uint64(r) == uint64(uint32(prefix))|uint64(uint32(mod))<<32 {
			if n := binary.LittleEndian.Uint32(r[8:]); int(n) == len(sym) && bytes.Equal(r[sampleHeader:sampleHeader+n], sym) {
				return id
			}
		}
	}
}

func (t *sampleTable) insert(h uint64, prefix, mod int32, sym, text []byte, flags uint8) int32 {
	id := int32(len(t.arena))
	if bytes.Equal(sym, text) {
		flags |= sameText
		text = nil
	}
	a := binary.LittleEndian.AppendUint32(t.arena, uint32(prefix))
	a = binary.LittleEndian.AppendUint32(a, uint32(mod))
	a = binary.LittleEndian.AppendUint32(a, uint32(len(sym)))
	a = binary.LittleEndian.AppendUint32(a, uint32(len(text)))
	a = binary.LittleEndian.AppendUint64(a, 0)
	a = append(a, flags)
	t.arena = append(append(a, sym...), text...)
	t.ix.Put(h, id)
	t.n++
	return id
}

func (t *sampleTable) flags(id int32) uint8 { return t.arena[id+24] }

// add adds w to the sum of record id, and returns the sum it had when
// adding would overflow it (the caller emits that first), or 0.
func (t *sampleTable) add(id int32, w uint64) (full uint64) {
	b := t.arena[id+16 : id+24]
	s := binary.LittleEndian.Uint64(b)
	if s+w < s {
		full, s = s, 0
	}
	binary.LittleEndian.PutUint64(b, s+w)
	return full
}

// record returns the prefix, leaf text, flags and sum of the record at
// off, and where the next one starts.
func (t *sampleTable) record(off int) (prefix int32, text []byte, flags uint8, sum uint64, next int) {
	r := t.arena[off:]
	n, tlen := int(binary.LittleEndian.Uint32(r[8:])), int(binary.LittleEndian.Uint32(r[12:]))
	text = r[sampleHeader+n : sampleHeader+n+tlen]
	if flags = r[24]; flags&sameText != 0 {
		text = r[sampleHeader : sampleHeader+n]
	}
	return int32(binary.LittleEndian.Uint32(r)), text, flags, binary.LittleEndian.Uint64(r[16:]), off + sampleHeader + n + tlen
}

func (t *sampleTable) reset() {
	t.ix.Reset()
	t.arena = t.arena[:0]
	t.n = 0
}

// flushSamples emits the samples summed in the sample table and empties
// it.
func (p *Parser) flushSamples() error {
	if err := p.sampleRecords(&p.stack, func(_ int, stack []byte, sum uint64) error {
		return p.emit(stack, fold.Int(sum))
	}); err != nil {
		return err
	}
	p.samples.reset()
	return nil
}

// maxSample bounds the bytes searched for a sample's end: a longer sample
// (or input without empty lines) goes line by line.
const maxSample = 64 << 10

// samplePath reports whether the sample whose header Line has just read
// may take the sample path.
func (p *Parser) samplePath() bool {
	return p.hasName && p.noFrame && !p.noFast && !p.noIP && !p.opt.Srcline && !p.opt.Inline && p.inSample && !p.skip && !p.skipRest &&
		len(p.ends) == 0 && len(p.ids) == 0 && len(p.pend) == 0 && !p.weight.Float
}

// sample folds the frame lines of a sample whose header has been read,
// data being what follows the header. It returns what follows the
// sample's empty line and the number of lines it read, or ok false when
// the sample is Line's to fold (nothing is changed then).
func (p *Parser) sample(data []byte) (rest []byte, lines int, ok bool, err error) {
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return nil, 0, false, nil
	}
	leaf := data[:nl]
	after := data[nl+1:]
	k1, k2, ok := p.leafKey(leaf)
	if !ok {
		p.fastMiss()
		return nil, 0, false, nil
	}
	batch := p.batch != nil && !p.noBatch
	var hk uint64 // the leaf symbol's hash, for the batch
	if batch {
		hk = maphash.Bytes(lineSeed, k1)
	}
	var block []byte
	hn := maphash.Bytes(lineSeed, p.pname)
	b := int32(-1)
	var set *guessSet // where this sample's block goes, when it was not guessed
	var tag uint32
	if len(after) > 0 && after[0] == '\n' {
		rest = after[1:]
	} else if first := bytes.IndexByte(after, '\n'); first > 0 {
		// A block seen last after the same first caller line, if the
		// sample's bytes are that block's and an empty line follows:
		// no search for the end, no hash of the whole block.
		hf := maphash.Bytes(lineSeed, after[:first]) ^ hn
		set, tag = &p.guesses[hf>>(64-guessBits)], uint32(hf)
		for w := range set {
			g := set[w]
			if g.id == 0 {
				break
			}
			n := int(g.n)
			if g.tag != tag || len(after) < n+2 || after[n] != '\n' || after[n+1] != '\n' {
				continue
			}
			id := g.id - 1
			if e := p.leafMemo; batch && e != nil && e.id > 0 {
				// The batch's slot for this sample, read before the
				// block is compared: its cache miss overlaps the
				// comparison's instead of following it.
				p.warmSum += uint32(p.samples.ix.Home(sampleHash(hk, e.id-1, g.pre)))
			}
			if name, blk := p.blocks.parts(id); bytes.Equal(name, p.pname) && bytes.Equal(blk, after[:n]) {
				b, block, rest = id, after[:n], after[n+2:]
				set.put(g, w)
				set = nil
				break
			}
		}
		if b < 0 {
			win := after[:min(len(after), maxSample)]
			end := bytes.Index(win, []byte("\n\n"))
			if end < 0 {
				p.fastMiss()
				return nil, 0, false, nil
			}
			block, rest = after[:end], after[end+2:]
		}
	} else {
		p.fastMiss()
		return nil, 0, false, nil
	}
	if p.cache.limit == 0 {
		p.cache.limit = p.cacheLimit()
	}
	// Room for this sample's block, should it be new: the caches empty at
	// a sample's start, never in its middle.
	need := 3*int64(len(data)-len(rest)) + 2*int64(len(p.pname)) + 512
	if p.cacheSize()+need > p.cache.limit || int64(len(p.blocks.arena))+need > 1<<31 {
		if need > p.cache.limit/2 {
			return nil, 0, false, nil
		}
		if err := p.resetCache(); err != nil {
			return nil, 0, false, err
		}
		b = -1
	}

	// The callers, with the process name.
	if b < 0 {
		hb := maphash.Bytes(lineSeed, block) ^ hn*0x9e3779b97f4a7c15
		if b = p.blocks.lookup(hb, p.pname, block); b < 0 {
			if b = p.addBlock(hb, block); b < 0 {
				p.fastMiss()
				return nil, 0, false, nil
			}
		}
		if set != nil {
			set.put(blockGuess{tag: tag, id: b + 1, pre: p.blocks.aux(b), n: int32(len(block))}, guessWays-1)
		}
	}
	if p.blocks.flags(b)&unfit != 0 {
		p.fastMiss()
		return nil, 0, false, nil
	}
	lines = 2 + p.blocks.lines(b)
	b = p.blocks.aux(b) // the prefix: blocks that fold alike share it

	// The leaf.
	var r int32
	var text []byte
	var flags uint8
	if batch {
		if int64(len(p.samples.arena))+need > 1<<31 {
			if err := p.Flush(); err != nil {
				return nil, 0, false, err
			}
		}
		var m int32
		if e := p.leafMemo; e != nil && e.id > 0 {
			m = e.id - 1 // k2 is its module
		} else {
			hm := maphash.Bytes(lineSeed, k2)
			if m = p.mods.lookup(hm, k2, nil); m < 0 {
				m = p.mods.insert(hm, k2, nil, nil, 0, 0, 0)
			}
			if e != nil {
				e.id = m + 1
			}
		}
		h := sampleHash(hk, m, b)
		if r = p.samples.lookup(h, b, m, k1); r < 0 {
			text, flags = p.parseLeaf()
			r = p.samples.insert(h, b, m, k1, text, flags)
		}
		flags = p.samples.flags(r)
	} else {
		text, flags = p.parseLeaf()
	}
	if flags&unfit != 0 {
		p.fastMiss()
		return nil, 0, false, nil
	}

	// The sample is this path's now.
	p.fastHits++
	p.inSample = false
	p.countSample()
	if !batch {
		return rest, lines, true, p.emit(p.joinStack(b, text, flags), p.weight)
	}
	if full := p.samples.add(r, p.weight.N); full != 0 {
		// The sum would overflow: the Aggregator says so, naming the
		// stack, as it would have without batching.
		_, text, flags, _, _ := p.samples.record(int(r))
		if err := p.emit(p.joinStack(b, text, flags), fold.Int(full)); err != nil {
			return nil, 0, false, err
		}
	}
	p.batchN++
	if p.batchSize() > p.opt.Batch || p.batchN&(1<<16-1) == 0 && p.seldomRepeat() {
		if err := p.Flush(); err != nil {
			return nil, 0, false, err
		}
	}
	return rest, lines, true, nil
}

// sampleHash is the sample table's hash of a leaf whose symbol hashes to
// hk, of module m, after callers folding to prefix b.
func sampleHash(hk uint64, m, b int32) uint64 {
	return hk ^ uint64(m)*0x9e3779b97f4a7c15 ^ uint64(b)*0xc2b2ae3d27d4eb4f
}

// seldomRepeat reports whether nearly every sample batched since the last
// flush was new to the batch, as when most samples are distinct stacks:
// the batch is flushed then, and batching stops, without waiting for it
// to fill (which takes the whole budget and hundreds of thousands of
// samples).
func (p *Parser) seldomRepeat() bool {
	n := p.batchN - p.batchNFlushed
	return n >= 1<<16 && int64(p.samples.n+p.batch.Len())*4 > n*3
}

// joinStack returns the stack of prefix b and the leaf's text: the leaf
// alone when it matched --skip-after.
func (p *Parser) joinStack(b int32, leaf []byte, flags uint8) []byte {
	p.stack = p.appendStack(p.stack[:0], b, leaf, flags)
	return p.stack
}

// appendStack is joinStack appending to dst; it only reads p.
func (p *Parser) appendStack(dst []byte, b int32, leaf []byte, flags uint8) []byte {
	start := len(dst)
	if flags&skipsAfter == 0 {
		dst = append(dst, p.prefixes.key(b)...)
	}
	if len(leaf) > 0 {
		if len(dst) > start {
			dst = append(dst, ';')
		}
		dst = append(dst, leaf...)
	}
	return dst
}

// sampleRecords calls fn for each sample summed in the sample table,
// with its record's offset, joined in *buf. It only reads p, so that
// several goroutines may walk one parser's table at once.
func (p *Parser) sampleRecords(buf *[]byte, fn func(off int, stack []byte, sum uint64) error) error {
	for off := 0; off < len(p.samples.arena); {
		b, text, flags, sum, next := p.samples.record(off)
		if sum != 0 {
			*buf = p.appendStack((*buf)[:0], b, text, flags)
			if err := fn(off, *buf, sum); err != nil {
				return err
			}
		}
		off = next
	}
	return nil
}

// sampleRecord returns the stack and sum of the record at off, joined in
// *buf; it only reads p.
func (p *Parser) sampleRecord(buf *[]byte, off int) ([]byte, uint64) {
	b, text, flags, sum, _ := p.samples.record(off)
	*buf = p.appendStack((*buf)[:0], b, text, flags)
	return *buf, sum
}

// fastMiss counts a sample the path could not take; when most samples
// are such, the path stops trying.
func (p *Parser) fastMiss() {
	p.fastMisses++
	if p.fastMisses >= 64 && p.fastMisses > p.fastHits {
		p.noFast = true
	}
}

// addressed reports whether trimmed frame line t starts with an address
// and more: Line would read its ip field (and never decide from it that
// the layout has none).
func addressed(t []byte) bool {
	i := 0
	for i < len(t) && t[i] != ' ' && t[i] != '\t' {
		i++
	}
	return i > 0 && i < len(t) && isHex(t[:i])
}

// addBlock parses the callers' lines (block, as they follow the leaf) and
// enters the block under hash h with its prefix: the folded text of the
// process name and the callers, numbered in the cache of prefixes, so
// that blocks which fold alike (callers whose addresses differ, unknown
// symbols) batch their samples together. It returns -1 when the block is
// not of lines this path may take.
func (p *Parser) addBlock(h uint64, block []byte) int32 {
	p.bframes, p.bends, p.blines = p.bframes[:0], p.bends[:0], p.blines[:0]
	lines, parsed, flags := 0, true, uint8(0)
	for rest := block; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		lines++
		if len(line) == 0 || line[0] != ' ' && line[0] != '\t' {
			return -1 // a header, an unindented frame
		}
		t := trimSpace(line)
		if len(t) == 0 {
			return -1 // a blank line ends the sample there
		}
		if !parsed {
			continue // above a --skip-after frame: Line does not parse these
		}
		if !addressed(t) {
			return -1
		}
		skipAfter := p.parsePieces(line, &flags)
		p.blines = append(p.blines, int32(len(p.bends)))
		if skipAfter {
			parsed = false
			flags |= dropsName
		}
	}
	// Root first: the lines in reverse, each line's pieces in order.
	text := p.btext[:0]
	if flags&dropsName == 0 {
		text = append(text, p.pname...)
	}
	for li := len(p.blines) - 1; li >= 0; li-- {
		first := int32(0)
		if li > 0 {
			first = p.blines[li-1]
		}
		for pi := first; pi < p.blines[li]; pi++ {
			start := int32(0)
			if pi > 0 {
				start = p.bends[pi-1]
			}
			if len(text) > 0 {
				text = append(text, ';')
			}
			text = append(text, p.bframes[start:p.bends[pi]]...)
		}
	}
	p.btext = text
	hp := maphash.Bytes(lineSeed, text)
	pre := p.prefixes.lookup(hp, text, nil)
	if pre < 0 {
		pre = p.prefixes.insert(hp, text, nil, nil, 0, 0, 0)
	}
	return p.blocks.insert(h, p.pname, block, nil, lines, pre, flags)
}

// parsePieces parses a frame line that starts with an address and
// appends its pieces to bframes and bends, marking flags unfit when one is
// empty (Line's separators would then differ from a join); it reports
// whether --skip-after matched.
func (p *Parser) parsePieces(line []byte, flags *uint8) bool {
	p.pend, p.pendEnds = p.pend[:0], p.pendEnds[:0]
	skipAfter, _ := p.parseFrame("", 0, line) // an address: never malformed
	for i, end := range p.pendEnds {
		start := int32(0)
		if i > 0 {
			start = p.pendEnds[i-1]
		}
		if start == end {
			*flags |= unfit
		}
		p.bframes = append(p.bframes, p.pend[start:end]...)
		p.bends = append(p.bends, int32(len(p.bframes)))
	}
	p.pend, p.pendEnds = p.pend[:0], p.pendEnds[:0]
	return skipAfter
}

// leafKey returns the key of a leaf line: the symbol without its offset
// and the module with its parentheses, since the folded frame depends on
// nothing else; except with --addrs (an unknown symbol is named after its
// address) and with --kernel for a frame without a module (the address
// tells a kernel frame), where it is the whole line. ok is false when the
// line is not of the shape this path takes.
func (p *Parser) leafKey(line []byte) (k1, k2 []byte, ok bool) {
	// What splitFrame and parseFrame do, in one pass, for a line whose
	// first field is an address (splitFrame's trim is then trimSpace).
	// The fields are kept for parseLeaf.
	t := trimSpace(line)
	i := 0
	for ; i < len(t) && t[i] != ' ' && t[i] != '\t'; i++ {
		if !hexDigit[t[i]] {
			return nil, nil, false
		}
	}
	if i == 0 || i == len(t) {
		return nil, nil, false
	}
	p.leafPC = t[:i]
	// The module: the last top-level parenthesised group, after a space.
	// Most often one seen before, found by the line's last 8 bytes: its
	// bytes end the line, and the scan below would stop where they
	// start, whatever came before.
	j, mod := len(t), false
	p.leafMemo = nil
	var memo *modMemo
	var tail uint64
	if len(t) >= 8 {
		tail = binary.LittleEndian.Uint64(t[len(t)-8:])
		memo = &p.modMemo[tail*0x9e3779b97f4a7c15>>(64-modMemoBits)]
		if n := len(memo.mod); memo.tail == tail && n > 0 && n < len(t) && t[len(t)-n-1] == ' ' && bytes.Equal(t[len(t)-n:], memo.mod) {
			j, mod = len(t)-n, true
			p.leafMemo = memo
		}
	}
	if !mod && t[j-1] == ')' {
		depth := 0
		for m := len(t) - 1; m >= 0; m-- {
			switch t[m] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				if m == 0 || t[m-1] == ' ' || t[m-1] == '\t' {
					j, mod = m, true
				}
				break
			}
		}
	}
	p.leafMod = nil
	if mod {
		k2 = t[j:]
		p.leafMod = t[j+1 : len(t)-1]
		if p.leafMemo == nil && memo != nil && j > 0 && t[j-1] == ' ' {
			memo.tail, memo.mod, memo.id = tail, append(memo.mod[:0], k2...), 0
			p.leafMemo = memo
		}
	}
	a, e := i, j
	for a < e && (t[a] == ' ' || t[a] == '\t') {
		a++
	}
	if a == e {
		if mod && j-i >= 2 {
			k1 = spaceSym // "ip  (dso)": the symbol field printed empty
		} else {
			k1 = t[a:a]
		}
	} else {
		for e > a && (t[e-1] == ' ' || t[e-1] == '\t') {
			e--
		}
		// The offset, +0x1f, which parseFrame removes.
		k := e
		for k > a && hexDigit[t[k-1]] {
			k--
		}
		if k < e && k-a > 3 && t[k-1] == 'x' && t[k-2] == '0' && t[k-3] == '+' {
			e = k - 3
		}
		k1 = t[a:e]
	}
	p.leafSym = k1
	if p.opt.Addrs || p.opt.Kernel && !mod {
		p.leafMemo = nil
		return t, nil, true
	}
	return k1, k2, true
}

// modMemoBits sizes the table of leaves' modules seen, by the last 8
// bytes of the lines they ended.
const modMemoBits = 6

// modMemo is a leaf's module seen before: "(module)", a copy, the last
// 8 bytes of the line it ended, and its entry in the modules cache + 1
// (0 until sample looks it up, and again when the cache empties).
type modMemo struct {
	tail uint64
	mod  []byte
	id   int32
}

var spaceSym = []byte{' '}

// hexDigit tells the bytes isHex takes.
var hexDigit = func() (t [256]bool) {
	for _, c := range []byte("0123456789abcdefABCDEF") {
		t[c] = true
	}
	return t
}()

// parseLeaf returns the folded text of the leaf line leafKey last took,
// and its flags.
func (p *Parser) parseLeaf() ([]byte, uint8) {
	flags := uint8(0)
	p.pend, p.pendEnds = p.pend[:0], p.pendEnds[:0]
	sym := p.leafSym
	if len(sym) == 0 {
		sym = unknownSym
	}
	if p.parseSym(p.leafPC, sym, p.leafMod) {
		flags |= skipsAfter
	}
	// The pieces in order, joined.
	text := p.btext[:0]
	for i, end := range p.pendEnds {
		start := int32(0)
		if i > 0 {
			start = p.pendEnds[i-1]
		}
		if start == end {
			flags |= unfit // an empty frame: Line's separators differ
		}
		if len(text) > 0 {
			text = append(text, ';')
		}
		text = append(text, p.pend[start:end]...)
	}
	p.pend, p.pendEnds = p.pend[:0], p.pendEnds[:0]
	p.btext = text
	return text, flags
}
