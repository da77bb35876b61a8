package perfscript

import (
	"bytes"
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

// textCache maps keys of one or two parts to folded text, in one arena:
// each entry's key, then its text. Keys of two parts keep where the first
// ends, so that no two pairs with the same concatenation meet.
type textCache struct {
	ix      table.Index
	entries []textEntry
	arena   []byte
}

type textEntry struct {
	off   uint32 // key at arena[off:off+klen], text right after
	klen  uint32
	k1    uint32 // the first part of the key is arena[off:off+k1]
	tlen  uint32
	lines uint32 // a block's lines
	flags uint8
}

const (
	skipsAfter uint8 = 1 << iota // the leaf matched --skip-after: no callers, no name
	dropsName                    // a caller matched --skip-after: no name, no callers above it
	unfit                        // this path cannot fold it: Line does
)

// size is what the entries take: arena, records and slots (at least 3/8
// full, at most 24 bytes an entry).
func (c *textCache) size() int64 {
	return int64(len(c.arena)) + int64(len(c.entries))*(24+24)
}

func (c *textCache) lookup(h uint64, k1, k2 []byte) int32 {
	for i := c.ix.Start(h); ; {
		var id int32
		if id, i = c.ix.Next(h, i); id < 0 {
			return -1
		}
		e := &c.entries[id]
		if int(e.k1) == len(k1) && int(e.klen) == len(k1)+len(k2) &&
			bytes.Equal(c.arena[e.off:e.off+e.k1], k1) && bytes.Equal(c.arena[e.off+e.k1:e.off+e.klen], k2) {
			return id
		}
	}
}

func (c *textCache) insert(h uint64, k1, k2, text []byte, lines int, flags uint8) int32 {
	e := textEntry{off: uint32(len(c.arena)), klen: uint32(len(k1) + len(k2)), k1: uint32(len(k1)),
		tlen: uint32(len(text)), lines: uint32(lines), flags: flags}
	c.arena = append(append(append(c.arena, k1...), k2...), text...)
	id := int32(len(c.entries))
	c.ix.Put(h, id)
	c.entries = append(c.entries, e)
	return id
}

func (c *textCache) text(id int32) []byte {
	e := &c.entries[id]
	start := e.off + e.klen
	return c.arena[start : start+e.tlen]
}

func (c *textCache) reset() {
	c.ix.Reset()
	c.entries = c.entries[:0]
	c.arena = c.arena[:0]
}

// sums is the sample path's batch: the samples' weights summed by their
// block and leaf entries, (block+1)<<32 | leaf, block+1 = 0 for a leaf
// that skips its callers.
type sums struct {
	ix   table.Ints
	keys []uint64
	sum  []uint64
}

func (s *sums) size() int64 { return s.ix.Size() + int64(cap(s.keys))*16 }

func (s *sums) reset() {
	s.ix.Reset()
	s.keys, s.sum = s.keys[:0], s.sum[:0]
}

// maxSample bounds the bytes searched for a sample's end: a longer sample
// (or input without empty lines) goes line by line.
const maxSample = 64 << 10

// samplePath reports whether the sample whose header Line has just read
// may take the sample path.
func (p *Parser) samplePath() bool {
	return p.fresh && !p.noFast && !p.noIP && !p.opt.Srcline && p.inSample && !p.skip && !p.skipRest &&
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
	var block []byte
	if len(after) > 0 && after[0] == '\n' {
		rest = after[1:]
	} else {
		win := after[:min(len(after), maxSample)]
		end := bytes.Index(win, []byte("\n\n"))
		if end < 0 {
			p.fastMiss()
			return nil, 0, false, nil
		}
		block, rest = after[:end], after[end+2:]
	}
	if p.cache.limit == 0 {
		p.cache.limit = p.cacheLimit()
	}
	// Room for this sample's entries, should both be new: the caches
	// empty at a sample's start, never in its middle.
	need := 3*int64(len(data)-len(rest)) + 2*int64(len(p.pname)) + 512
	if p.cacheSize()+need > p.cache.limit || int64(max(len(p.blocks.arena), len(p.leaves.arena)))+need > 1<<31 {
		if need > p.cache.limit/2 {
			return nil, 0, false, nil
		}
		if err := p.resetCache(); err != nil {
			return nil, 0, false, err
		}
	}
	java := p.java()

	// The callers, with the process name.
	hn := maphash.Bytes(lineSeed, p.pname)
	hb := maphash.Bytes(lineSeed, block) ^ hn*0x9e3779b97f4a7c15
	b := p.blocks.lookup(hb, p.pname, block)
	if b < 0 {
		b = p.addBlock(hb, block)
		if b < 0 {
			p.fastMiss()
			return nil, 0, false, nil
		}
	}
	be := &p.blocks.entries[b]
	if be.flags&unfit != 0 {
		p.fastMiss()
		return nil, 0, false, nil
	}

	// The leaf.
	l, ok := p.leafEntry(leaf, java)
	if !ok {
		return nil, 0, false, nil
	}
	le := &p.leaves.entries[l]
	if le.flags&unfit != 0 {
		return nil, 0, false, nil
	}
	p.fastHits++

	// The sample is this path's now.
	lines = 2 + int(be.lines)
	p.inSample = false
	p.fresh = false
	if le.flags&skipsAfter != 0 {
		b = -1
	}
	p.stats.Samples++
	if p.opt.Folded != nil {
		p.opt.Folded.Add(1)
	}
	if p.batch != nil && !p.noBatch {
		k := uint64(uint32(b+1))<<32 | uint64(uint32(l))
		id, added := p.sums.ix.Add(k)
		w := p.weight.N
		if added {
			p.sums.keys = append(p.sums.keys, k)
			p.sums.sum = append(p.sums.sum, w)
		} else if s := p.sums.sum[id]; s+w < s {
			// The sum would overflow: the Aggregator says so, naming the
			// stack, as it would have without batching.
			if err := p.emit(p.joinStack(b, l), fold.Int(s)); err != nil {
				return nil, 0, false, err
			}
			p.sums.sum[id] = w
		} else {
			p.sums.sum[id] = s + w
		}
		p.batchN++
		if p.batchSize() > p.opt.Batch {
			if err := p.Flush(); err != nil {
				return nil, 0, false, err
			}
		}
		return rest, lines, true, nil
	}
	return rest, lines, true, p.emit(p.joinStack(b, l), p.weight)
}

// joinStack returns the stack of block entry b (none when -1) and leaf
// entry l.
func (p *Parser) joinStack(b, l int32) []byte {
	s := p.stack[:0]
	if b >= 0 {
		s = append(s, p.blocks.text(b)...)
	}
	if t := p.leaves.text(l); len(t) > 0 {
		if len(s) > 0 {
			s = append(s, ';')
		}
		s = append(s, t...)
	}
	p.stack = s
	return s
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
// enters their folded text, after the process name, under hash h; or
// returns -1 when the block is not of lines this path may take.
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
	return p.blocks.insert(h, p.pname, block, text, lines, flags)
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

// leafEntry returns the entry of the leaf line, adding it when new, or ok
// false when the line is not of the shape this path takes. Its key is
// the symbol without its offset and the module, with their parentheses,
// since the folded frame depends on nothing else: except with --addrs
// (an unknown symbol is named after its address) and with --kernel for a
// frame without a module (the address tells a kernel frame), where it is
// the whole line.
func (p *Parser) leafEntry(line []byte, java bool) (int32, bool) {
	t := trimSpace(line)
	if !addressed(t) {
		p.fastMiss()
		return 0, false
	}
	_, sym, mod, _ := p.splitFrame(line)
	k1, k2 := t, []byte(nil)
	if !p.opt.Addrs && !(p.opt.Kernel && mod == nil) {
		k1 = sym
		if i := bytes.LastIndex(sym, []byte("+0x")); i > 0 && isHex(sym[i+3:]) {
			k1 = sym[:i]
		}
		if mod != nil {
			k2 = t[len(t)-len(mod)-2:] // "(mod)", which ends the line
		}
	}
	h := maphash.Bytes(lineSeed, k1) ^ maphash.Bytes(lineSeed, k2)*0x9e3779b97f4a7c15
	if java {
		h = ^h
	}
	if l := p.leaves.lookup(h, k1, k2); l >= 0 {
		return l, true
	}
	flags := uint8(0)
	p.bframes, p.bends = p.bframes[:0], p.bends[:0]
	if p.parsePieces(line, &flags) {
		flags |= skipsAfter
	}
	text := p.btext[:0]
	for i, end := range p.bends {
		start := int32(0)
		if i > 0 {
			start = p.bends[i-1]
		}
		if len(text) > 0 {
			text = append(text, ';')
		}
		text = append(text, p.bframes[start:end]...)
	}
	p.btext = text
	return p.leaves.insert(h, k1, k2, text, 1, flags), true
}
