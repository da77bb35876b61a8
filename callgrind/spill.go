package callgrind

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"slices"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// A Profile given a budget (Options.Mem) keeps its tables in memory while
// they take less than half of it. Past that, it goes on as an external
// profile: each function name is kept once (for the "(id)" names of the
// output and to tell the root function apart), and everything else the
// output is made of is a record in a stream.Aggregator of a quarter of
// the budget, which spills sorted runs to Options.TmpDir. A record's key
// sorts where its line goes in the output:
//
//	function  F(file, name) 'F'                                        → 0
//	self cost F(file, name) 'L' line frame                             → self
//	call      F(caller) 'M' F(callee) to-line from-line E(to) E(from) 'c' → calls
//	          the same key ending in 'k'                                → inclusive cost
//
// where F(file, name) is E(file) E(name), E(s) is s with each 0x00
// written 0x00 0xFF and ended by 0x00 0x00 (so the keys sort as the
// fields do, whatever bytes the names hold), and lines are 8 bytes
// big-endian. The roots are few and stay in memory. The output is the
// in-memory Profile's, byte for byte, except that a decimal cost sums in
// another order and may differ in its last digits.
type external struct {
	agg    *stream.Aggregator
	funcs  *stream.Names // F(file, name) → function id
	files  *stream.Names // file → file id
	called []uint64      // bit per function: is below the root of some stack
	roots  map[string]*extRoot

	prev     []byte // the previous stack's frames, each E(frame)
	prevEnds []int
	below    []int32 // functions seen below the root in this stack
	belowSet map[int32]bool
	key      []byte
	fkey     []byte // scratch: F of one frame
	ckey     []byte // scratch: F of the caller
	edges    int    // distinct call edges, counted when written
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
		agg:   stream.NewAggregator(stream.Options{Mem: max(opts.Mem/4, 1<<20), TmpDir: opts.TmpDir}),
		funcs: stream.NewNames(), files: stream.NewNames(),
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
		x.files.Intern(file)
		if id/64 >= len(x.called) {
			x.called = append(x.called, 0)
		}
		if err := x.agg.Add(append(fk, recFunction), fold.Int(0)); err != nil {
			return 0, err
		}
	}
	return int32(id), nil
}

// callKey leaves in x.key the key of the call from frame from (of the
// function whose F is ck, at fromLine) to frame to (F fk, at toLine).
func (x *external) callKey(ck, fk []byte, toLine, fromLine uint64, to, from []byte, tag byte) []byte {
	k := append(x.key[:0], ck...)
	k = append(k, recCall)
	k = append(k, fk...)
	k = binary.BigEndian.AppendUint64(k, toLine)
	k = binary.BigEndian.AppendUint64(k, fromLine)
	k = appendEsc(k, to)
	k = appendEsc(k, from)
	x.key = append(k, tag)
	return x.key
}

// add is Profile.Add once the Profile is external: the same model, the
// stack compared with the previous one by its frames' bytes.
func (x *external) add(stack []byte, c fold.Count) error {
	depth := 0
	shared := true
	var rootFn int32
	x.below = x.below[:0]
	clear(x.belowSet)
	var err error
	var callerFrame []byte // the frame above, and its line
	var callerLine uint64
	var frameBuf []byte
	fold.Frames(stack, func(f []byte) bool {
		if shared && (depth >= len(x.prevEnds) || !bytes.Equal(x.prevFrame(depth, &frameBuf), f)) {
			shared = false
			x.truncate(depth)
		}
		fn, line, e := x.function(f, &x.fkey)
		if err = e; err != nil {
			return false
		}
		if !shared {
			if depth == 0 {
				r := x.roots[string(f)]
				if r == nil {
					r = &extRoot{fn: fn, line: line}
					x.roots[string(f)] = r
				}
				r.calls++
			} else if err = x.agg.Add(x.callKey(x.ckey, x.fkey, line, callerLine, f, callerFrame, tagCalls), fold.Int(1)); err != nil {
				return false
			}
			x.prev = appendEsc(x.prev, f)
			x.prevEnds = append(x.prevEnds, len(x.prev))
		}
		if depth == 0 {
			rootFn = fn
			r := x.roots[string(f)]
			r.cost, err = r.cost.Add(c)
		} else {
			x.called[fn/64] |= 1 << (fn % 64)
			if fn != rootFn && x.firstBelow(fn) {
				// The outermost call of fn in this stack.
				err = x.agg.Add(x.callKey(x.ckey, x.fkey, line, callerLine, f, callerFrame, tagCost), c)
			}
		}
		x.ckey, x.fkey = x.fkey, x.ckey
		callerFrame, callerLine = f, line
		depth++
		return err == nil
	})
	if err != nil {
		return err
	}
	x.truncate(depth)
	// callerFrame is the leaf, and ckey its function's F.
	k := append(x.key[:0], x.ckey...)
	k = append(k, recSelf)
	k = binary.BigEndian.AppendUint64(k, callerLine)
	x.key = append(k, callerFrame...)
	return x.agg.Add(x.key, c)
}

// prevFrame returns frame i of the previous stack.
func (x *external) prevFrame(i int, buf *[]byte) []byte {
	start := 0
	if i > 0 {
		start = x.prevEnds[i-1]
	}
	f, _, b := cutEsc(x.prev[start:x.prevEnds[i]], (*buf)[:0])
	*buf = b
	return f
}

// truncate keeps the first n frames of the previous stack.
func (x *external) truncate(n int) {
	if n < len(x.prevEnds) {
		x.prevEnds = x.prevEnds[:n]
		x.prev = x.prev[:0]
		if n > 0 {
			x.prev = x.prev[:x.prevEnds[n-1]]
		}
	}
}

// firstBelow reports whether function fn is seen below the root for the
// first time in this stack.
func (x *external) firstBelow(fn int32) bool {
	if len(x.belowSet) == 0 && len(x.below) < 64 {
		if slices.Contains(x.below, fn) {
			return false
		}
		x.below = append(x.below, fn)
		return true
	}
	if x.belowSet == nil {
		x.belowSet = make(map[int32]bool)
	}
	if len(x.belowSet) == 0 {
		for _, g := range x.below {
			x.belowSet[g] = true
		}
	}
	if x.belowSet[fn] {
		return false
	}
	x.belowSet[fn] = true
	x.below = append(x.below, fn)
	return true
}

// externalSize estimates the bytes of the in-memory tables: names and
// records, with their hash table slots.
func (p *Profile) externalSize() int64 {
	return p.nameBytes + int64(p.frames.len())*(24+24) + int64(p.funcs.len())*(16+24) + int64(p.edges.len())*(32+24)
}

// goExternal moves the in-memory tables into an external profile and
// frees them.
func (p *Profile) goExternal() error {
	x := newExternal(p.opts)
	ids := make([]int32, p.funcs.len()) // in-memory function → external
	for i := range int32(p.funcs.len()) {
		f := p.funcs.at(i)
		file := p.files.get(f.file)
		x.fkey = appendEsc(appendEsc(x.fkey[:0], file), p.frameNames.get(f.name))
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
		return appendEsc(appendEsc(dst[:0], p.files.get(f.file)), p.frameNames.get(f.name))
	}
	for id := range int32(p.frames.len()) {
		f := p.frames.at(id)
		if !f.leaf {
			continue
		}
		k := append(fkeyOf(x.key, id), recSelf)
		k = binary.BigEndian.AppendUint64(k, f.line)
		x.key = append(k, p.frameNames.get(id)...)
		if err := x.agg.Add(x.key, count(f.self, f.selfDec)); err != nil {
			return err
		}
	}
	for i := range int32(p.edges.len()) {
		e := p.edges.at(i)
		from, to := p.frames.at(e.from), p.frames.at(e.to)
		x.ckey, x.fkey = fkeyOf(x.ckey, e.from), fkeyOf(x.fkey, e.to)
		toName, fromName := p.frameNames.get(e.to), p.frameNames.get(e.from)
		if err := x.agg.Add(x.callKey(x.ckey, x.fkey, to.line, from.line, toName, fromName, tagCalls), fold.Int(e.calls)); err != nil {
			return err
		}
		if cost := count(e.cost, e.costDec); !cost.IsZero() || cost.Float {
			if err := x.agg.Add(x.callKey(x.ckey, x.fkey, to.line, from.line, toName, fromName, tagCost), cost); err != nil {
				return err
			}
		}
	}
	for _, r := range p.roots {
		f := p.frames.at(r.frame)
		x.roots[string(p.frameNames.get(r.frame))] = &extRoot{fn: ids[f.fn], line: f.line, calls: r.calls, cost: r.cost}
	}
	for _, e := range p.stack {
		x.prev = appendEsc(x.prev, p.frameNames.get(e.frame))
		x.prevEnds = append(x.prevEnds, len(x.prev))
	}
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
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	nf := x.funcs.Len()
	out := &writer{w: bw, compress: !p.opts.NoCompress,
		fileIDs: make([]int32, x.files.Len()+1), fnIDs: make([]int32, nf+1)}
	out.str("# callgrind format\nversion: 1\ncreator: ", p.opts.Creator, "\n")
	out.str("positions: line\nevents: ", p.opts.Event, "\n")
	out.str("summary: ", costString(p.total), "\n")

	var fbuf, nbuf []byte
	// ref returns function fk (an F) as written.
	ref := func(fk []byte) funcRef {
		var file, name []byte
		file, rest, b := cutEsc(fk, fbuf)
		fbuf = b
		name, _, b = cutEsc(rest, nbuf)
		nbuf = b
		return funcRef{file: int32(x.files.Lookup(file)), fn: int32(x.funcs.Lookup(fk)), fileName: file, name: name}
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
		if file := x.files.Lookup(root.fileName); file < 0 {
			root.file = int32(x.files.Len())
		} else {
			root.file = int32(file)
			for x.funcs.Lookup(appendEsc(appendEsc(nil, root.fileName), root.name)) >= 0 {
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
			if c := cmp.Or(bytes.Compare(x.funcs.Get(int(a.r.fn)), x.funcs.Get(int(b.r.fn))), cmp.Compare(a.r.line, b.r.line)); c != 0 {
				return c
			}
			return cmp.Compare(a.frame, b.frame)
		})
		for _, k := range keys {
			out.call(ref(x.funcs.Get(int(k.r.fn))), k.r.calls, k.r.line, 0, k.r.cost)
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
		callee := ref(rest[:n])
		toLine := binary.BigEndian.Uint64(rest[n:])
		fromLine := binary.BigEndian.Uint64(rest[n+8:])
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
			out.function(ref(fk))
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
		return cw.n, err
	}
	err = bw.Flush()
	return cw.n, err
}
