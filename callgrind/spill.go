package callgrind

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"slices"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/table"
	"github.com/pfold/pfold/stream"
)

// A Profile given a budget (Options.Mem) keeps its tables in memory while
// they fit (see inMemoryLimit). Past that, it goes on as an external
// profile: each function name is kept once (for the "(id)" names of the
// output and to tell the root function apart), and everything else the
// output is made of is a record in a stream.Aggregator of an eighth of
// the budget, which spills sorted runs to Options.TmpDir. A record's key
// sorts where its line goes in the output:
//
//	function  F(file, name) 'F' id                                       → 0
//	self cost F(file, name) 'L' line frame                               → self
//	call      F(caller) 'M' F(callee) id to-line from-line E(to) E(from) 'c' → calls
//	          the same key ending in 'k'                                  → inclusive cost
//
// where F(file, name) is E(file) E(name), E(s) is s with each 0x00
// written 0x00 0xFF and ended by 0x00 0x00 (so the keys sort as the
// fields do, whatever bytes the names hold), and lines are 8 bytes
// big-endian; id is the function's id and its file's, 4 bytes each
// big-endian, which change no order (F is the function). The roots are few and stay in memory. The output is the
// in-memory Profile's, byte for byte, except that a decimal cost sums in
// another order and may differ in its last digits.
type external struct {
	agg    *stream.Aggregator
	funcs  *table.Bytes // F(file, name) → function id
	files  *table.Bytes // file → file id
	called []uint64     // bit per function: is below the root of some stack
	fileOf []int32      // function id → file id
	roots  map[string]*extRoot

	levels []level  // the previous stack's frames (see add)
	arena  []byte   // their frames and Fs
	root   *extRoot // the root of levels
	exact  bool     // a decimal count came: costs are added as they come
	key    []byte
	fkey   []byte // scratch: F of one frame
	ckey   []byte // scratch: F of the caller
	edges  int    // distinct call edges, counted when written
}

type extRoot struct {
	fn    int32
	line  uint64
	calls uint64
	cost  fold.Count
}

const (
	recFunction = 'F'
	recSelf     = 'L'
	recCall     = 'M'
	tagCalls    = 'c'
	tagCost     = 'k'
)

// appendEsc appends E(s).
func appendEsc(dst, s []byte) []byte {
	for {
		i := bytes.IndexByte(s, 0)
		if i < 0 {
			dst = append(dst, s...)
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, 0xFF)
		s = s[i+1:]
	}
	return append(dst, 0, 0)
}

// cutEsc returns the field E(s) at the start of key, unescaped (into buf
// when it holds a 0x00), and what follows it.
func cutEsc(key, buf []byte) (s, rest, newBuf []byte) {
	for i := 0; i+1 < len(key); i++ {
		if key[i] != 0 {
			continue
		}
		if key[i+1] == 0 {
			s, rest = key[:i], key[i+2:]
			if bytes.Contains(s, []byte{0, 0xFF}) {
				buf = buf[:0]
				for j := 0; j < len(s); j++ {
					buf = append(buf, s[j])
					if s[j] == 0 {
						j++ // the 0xFF
					}
				}
				return buf, rest, buf
			}
			return s, rest, buf
		}
		i++ // 0x00 0xFF
	}
	return nil, nil, buf // cannot happen: every key was made by appendEsc
}

// escLen returns the length of the field E(s) at the start of key.
func escLen(key []byte) int {
	for i := 0; i+1 < len(key); i++ {
		if key[i] == 0 {
			if key[i+1] == 0 {
				return i + 2
			}
			i++
		}
	}
	return len(key)
}

func newExternal(opts Options) *external {
	return &external{
		agg:   stream.NewAggregator(stream.Options{Mem: aggMem(opts.Mem), TmpDir: opts.TmpDir}),
		funcs: new(table.Bytes), files: new(table.Bytes),
		roots: map[string]*extRoot{},
	}
}

// function returns the id of frame f's function, whose F it leaves in
// *fk, adding the function when new; and the frame's line.
func (x *external) function(f []byte, fk *[]byte) (int32, uint64, error) {
	file, name, line := frameFunction(f)
	*fk = appendEsc(appendEsc((*fk)[:0], file), name)
	id, err := x.addFunction(*fk, file)
	return id, line, err
}

func (x *external) addFunction(fk, file []byte) (int32, error) {
	id, added := x.funcs.Add(fk)
	if added {
		fileID, _ := x.files.Add(file)
		x.fileOf = append(x.fileOf, fileID)
		if int(id)/64 >= len(x.called) {
			x.called = append(x.called, 0)
		}
		k := append(x.key[:0], fk...)
		k = append(k, recFunction)
		x.key = x.appendIDs(k, int32(id))
		if err := x.agg.Add(x.key, fold.Int(0)); err != nil {
			return 0, err
		}
	}
	return int32(id), nil
}

// appendIDs appends function fn's id and its file's.
func (x *external) appendIDs(k []byte, fn int32) []byte {
	k = binary.BigEndian.AppendUint32(k, uint32(fn))
	return binary.BigEndian.AppendUint32(k, uint32(x.fileOf[fn]))
}

// callKey leaves in x.key the key of the call from frame from (of the
// function whose F is ck, at fromLine) to frame to (of function toFn,
// F fk, at toLine).
func (x *external) callKey(ck, fk []byte, toFn int32, toLine, fromLine uint64, to, from []byte, tag byte) []byte {
	k := append(x.key[:0], ck...)
	k = append(k, recCall)
	k = append(k, fk...)
	k = x.appendIDs(k, toFn)
	k = binary.BigEndian.AppendUint64(k, toLine)
	k = binary.BigEndian.AppendUint64(k, fromLine)
	k = appendEsc(k, to)
	k = appendEsc(k, from)
	x.key = append(k, tag)
	return x.key
}

// A level is a frame of the previous stack, with what add needs of it
// when the next stack shares it: its function, line and F, whether it
// adds to its call's inclusive cost (at the outermost call of its
// function), and the integer cost it added that is not yet in the
// Aggregator. Consecutive stacks share most of their frames (sorted
// input shares prefixes), so a shared frame costs a comparison and an
// addition; its cost record is added when the frame leaves the stack.
type level struct {
	frame, fk [2]int // spans of x.arena
	fn        int32
	line      uint64
	costs     bool
	acc       uint64
}

func (x *external) frameOf(d int) []byte { l := &x.levels[d]; return x.arena[l.frame[0]:l.frame[1]] }
func (x *external) fkOf(d int) []byte    { l := &x.levels[d]; return x.arena[l.fk[0]:l.fk[1]] }

// costKey returns the key of the inclusive cost of the call into level d.
func (x *external) costKey(d int) []byte {
	return x.callKey(x.fkOf(d-1), x.fkOf(d), x.levels[d].fn, x.levels[d].line, x.levels[d-1].line, x.frameOf(d), x.frameOf(d-1), tagCost)
}

// flush adds the cost level d holds to the Aggregator.
func (x *external) flush(d int) error {
	l := &x.levels[d]
	if l.acc == 0 {
		return nil
	}
	c := fold.Int(l.acc)
	l.acc = 0
	return x.agg.Add(x.costKey(d), c)
}

// cut keeps the first n levels, flushing the others.
func (x *external) cut(n int) error {
	for d := len(x.levels) - 1; d >= n; d-- {
		if err := x.flush(d); err != nil {
			return err
		}
	}
	if n < len(x.levels) {
		x.arena = x.arena[:x.levels[n].frame[0]]
		x.levels = x.levels[:n]
	}
	return nil
}

// push adds frame f of function fn at line (whose F is fk) as the next
// level.
func (x *external) push(f, fk []byte, fn int32, line uint64) {
	l := level{fn: fn, line: line}
	l.frame[0] = len(x.arena)
	x.arena = append(x.arena, f...)
	l.frame[1] = len(x.arena)
	l.fk[0] = l.frame[1]
	x.arena = append(x.arena, fk...)
	l.fk[1] = len(x.arena)
	if d := len(x.levels); d > 0 && fn != x.levels[0].fn {
		l.costs = true
		for i := 1; i < d; i++ {
			if x.levels[i].fn == fn {
				l.costs = false // not the outermost call of fn
				break
			}
		}
	}
	x.levels = append(x.levels, l)
}

// add is Profile.Add once the Profile is external: the same model.
func (x *external) add(stack []byte, c fold.Count) error {
	if c.Float && !x.exact {
		// Decimal sums depend on their order: from now on each cost
		// is added as it comes, as the in-memory Profile adds it.
		x.exact = true
		for d := range x.levels {
			if err := x.flush(d); err != nil {
				return err
			}
		}
	}
	depth := 0
	shared := true
	var err error
	fold.Frames(stack, func(f []byte) bool {
		if shared && (depth >= len(x.levels) || !bytes.Equal(x.frameOf(depth), f)) {
			shared = false
			if err = x.cut(depth); err != nil {
				return false
			}
		}
		if !shared {
			var fn int32
			var line uint64
			if fn, line, err = x.function(f, &x.fkey); err != nil {
				return false
			}
			x.push(f, x.fkey, fn, line)
			if depth == 0 {
				x.root = x.roots[string(f)]
				if x.root == nil {
					x.root = &extRoot{fn: fn, line: line}
					x.roots[string(f)] = x.root
				}
				x.root.calls++
			} else {
				x.called[fn/64] |= 1 << (fn % 64)
				k := x.callKey(x.fkOf(depth-1), x.fkOf(depth), fn, line, x.levels[depth-1].line, f, x.frameOf(depth-1), tagCalls)
				if err = x.agg.Add(k, fold.Int(1)); err != nil {
					return false
				}
			}
		}
		if l := &x.levels[depth]; depth == 0 {
			x.root.cost, err = x.root.cost.Add(c)
		} else if l.costs {
			if x.exact {
				err = x.agg.Add(x.costKey(depth), c)
			} else if sum, carry := bits.Add64(l.acc, c.N, 0); carry == 0 {
				l.acc = sum
			} else if err = x.flush(depth); err == nil {
				l.acc = c.N
			}
		}
		depth++
		return err == nil
	})
	if err != nil {
		return err
	}
	if err := x.cut(depth); err != nil {
		return err
	}
	k := append(x.key[:0], x.fkOf(depth-1)...)
	k = append(k, recSelf)
	k = binary.BigEndian.AppendUint64(k, x.levels[depth-1].line)
	x.key = append(k, x.frameOf(depth-1)...)
	return x.agg.Add(x.key, c)
}

// aggMem is the budget of an external profile's Aggregator.
func aggMem(mem int64) int64 { return max(mem/8, 1<<20) }

// inMemoryLimit is the size of the in-memory tables past which they go
// external. The commands let the Go runtime use the budget and 48 MiB;
// going external holds, for a while, the tables but their hash tables
// (a quarter of them), a copy of the function names (a third) and the
// Aggregator; writing the in-memory tables adds about a quarter of them.
func inMemoryLimit(mem int64) int64 { return (mem + 48<<20 - aggMem(mem)) * 7 / 10 }

// externalSize estimates the bytes of the in-memory tables: names and
// records, with their hash table slots.
func (p *Profile) externalSize() int64 {
	return p.nameBytes + int64(p.frames.len())*(24+24) + int64(p.funcs.len())*(16+24) + int64(p.edges.len())*(32+24)
}

// goExternal moves the in-memory tables into an external profile and
// frees them.
func (p *Profile) goExternal() error {
	// The hash tables are not needed to move the records: let them go
	// first, before the copy of the function names grows.
	p.funcOf, p.edgeOf, p.rootOf = table.Index{}, table.Index{}, nil
	x := newExternal(p.opts)
	ids := make([]int32, p.funcs.len()) // in-memory function → external
	for i := range int32(p.funcs.len()) {
		f := p.funcs.at(i)
		file := p.files.Key(f.file)
		x.fkey = appendEsc(appendEsc(x.fkey[:0], file), p.frameNames.Key(f.name))
		id, err := x.addFunction(x.fkey, file)
		if err != nil {
			return err
		}
		ids[i] = id
		if f.called {
			x.called[id/64] |= 1 << (id % 64)
		}
	}
	// fkeyOf leaves in dst the F of frame id's function.
	fkeyOf := func(dst []byte, id int32) []byte {
		f := p.funcs.at(p.frames.at(id).fn)
		return appendEsc(appendEsc(dst[:0], p.files.Key(f.file)), p.frameNames.Key(f.name))
	}
	for id := range int32(p.frames.len()) {
		f := p.frames.at(id)
		if !f.leaf {
			continue
		}
		k := append(fkeyOf(x.key, id), recSelf)
		k = binary.BigEndian.AppendUint64(k, f.line)
		x.key = append(k, p.frameNames.Key(id)...)
		if err := x.agg.Add(x.key, count(f.self, f.selfDec)); err != nil {
			return err
		}
	}
	for i := range int32(p.edges.len()) {
		e := p.edges.at(i)
		from, to := p.frames.at(e.from), p.frames.at(e.to)
		x.ckey, x.fkey = fkeyOf(x.ckey, e.from), fkeyOf(x.fkey, e.to)
		toName, fromName := p.frameNames.Key(e.to), p.frameNames.Key(e.from)
		toFn := ids[to.fn]
		if err := x.agg.Add(x.callKey(x.ckey, x.fkey, toFn, to.line, from.line, toName, fromName, tagCalls), fold.Int(e.calls)); err != nil {
			return err
		}
		if cost := count(e.cost, e.costDec); !cost.IsZero() || cost.Float {
			if err := x.agg.Add(x.callKey(x.ckey, x.fkey, toFn, to.line, from.line, toName, fromName, tagCost), cost); err != nil {
				return err
			}
		}
	}
	for _, r := range p.roots {
		f := p.frames.at(r.frame)
		x.roots[string(p.frameNames.Key(r.frame))] = &extRoot{fn: ids[f.fn], line: f.line, calls: r.calls, cost: r.cost}
	}
	for _, e := range p.stack {
		f := p.frames.at(e.frame)
		x.push(p.frameNames.Key(e.frame), fkeyOf(x.fkey, e.frame), ids[f.fn], f.line)
	}
	if len(p.stack) > 0 {
		x.root = x.roots[string(p.frameNames.Key(p.stack[0].frame))]
	}
	x.exact = p.dec
	fresh := New(p.opts)
	fresh.total, fresh.dec, fresh.ext = p.total, p.dec, x
	*p = *fresh
	return nil
}

// Close removes what an external Profile spilled to disk.
func (p *Profile) Close() error {
	if p.ext == nil || p.ext.agg == nil {
		return nil
	}
	return p.ext.agg.Close()
}

var errWritten = errors.New("callgrind: an external profile is written once")

// writeTo writes the external profile: the in-memory WriteTo's lines, from
// the records in key order.
func (x *external) writeTo(p *Profile, w io.Writer) (int64, error) {
	if x.agg == nil {
		return 0, errWritten
	}
	if err := x.cut(0); err != nil {
		return 0, err
	}
	nf := x.funcs.Len()
	out := newWriter(w, !p.opts.NoCompress, x.files.Len()+1, nf+1)
	out.str("# callgrind format\nversion: 1\ncreator: ", p.opts.Creator, "\n")
	out.str("positions: line\nevents: ", p.opts.Event, "\n")
	out.str("summary: ", costString(p.total), "\n")

	var fbuf, nbuf []byte
	// ref returns function fk (an F) of ids (its id and its file's) as
	// written.
	ref := func(fk, ids []byte) funcRef {
		var file, name []byte
		file, rest, b := cutEsc(fk, fbuf)
		fbuf = b
		name, _, b = cutEsc(rest, nbuf)
		nbuf = b
		return funcRef{fn: int32(binary.BigEndian.Uint32(ids)), file: int32(binary.BigEndian.Uint32(ids[4:])), fileName: file, name: name}
	}

	// The root's calls, when a root function is also called.
	need := false
	for _, r := range x.roots {
		if x.called[r.fn/64]&(1<<(r.fn%64)) != 0 {
			need = true
		}
	}
	if need {
		root := funcRef{fn: int32(nf), fileName: []byte(UnknownFile), name: []byte(RootName)}
		if file := x.files.Find(root.fileName); file < 0 {
			root.file = int32(x.files.Len())
		} else {
			root.file = int32(file)
			for x.funcs.Find(appendEsc(appendEsc(nil, root.fileName), root.name)) >= 0 {
				root.name = append(root.name, '\'')
			}
		}
		out.function(root)
		type rootKey struct {
			frame string
			r     *extRoot
		}
		var keys []rootKey
		for f, r := range x.roots {
			keys = append(keys, rootKey{f, r})
		}
		slices.SortFunc(keys, func(a, b rootKey) int {
			if c := cmp.Or(bytes.Compare(x.funcs.Key(a.r.fn), x.funcs.Key(b.r.fn)), cmp.Compare(a.r.line, b.r.line)); c != 0 {
				return c
			}
			return cmp.Compare(a.frame, b.frame)
		})
		for _, k := range keys {
			out.call(ref(x.funcs.Key(k.r.fn), x.appendIDs(nil, k.r.fn)), k.r.calls, k.r.line, 0, k.r.cost)
		}
	}

	// A call's cost record follows its calls record, when it has one.
	var pending []byte // the pending call's key, without its tag
	var calls uint64
	var cost fold.Count
	flush := func() {
		if pending == nil {
			return
		}
		x.edges++
		rest := pending[escLen(pending)+escLen(pending[escLen(pending):])+1:] // after F(caller) 'M'
		n := escLen(rest)
		n += escLen(rest[n:])
		callee := ref(rest[:n], rest[n:n+8])
		toLine := binary.BigEndian.Uint64(rest[n+8:])
		fromLine := binary.BigEndian.Uint64(rest[n+16:])
		out.call(callee, calls, toLine, fromLine, cost)
		pending = nil
	}
	var pendBuf []byte
	err := x.agg.Each(func(key []byte, c fold.Count) error {
		n := escLen(key)
		n += escLen(key[n:])
		fk, rec := key[:n], key[n]
		switch rec {
		case recFunction:
			flush()
			out.function(ref(fk, key[n+1:]))
		case recSelf:
			flush()
			out.cost(binary.BigEndian.Uint64(key[n+1:]), c)
		case recCall:
			body, tag := key[:len(key)-1], key[len(key)-1]
			if pending == nil || !bytes.Equal(pending, body) {
				flush()
				pendBuf = append(pendBuf[:0], body...)
				pending, calls, cost = pendBuf, 0, fold.Int(0)
			}
			if tag == tagCalls {
				calls = c.N
			} else {
				cost = c
			}
		}
		return nil
	})
	flush()
	x.agg.Close()
	x.agg = nil
	if err != nil {
		return out.n, err
	}
	err = out.flush()
	return out.n, err
}
