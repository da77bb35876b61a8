// Package callgrind converts folded stacks to the callgrind profile format
// read by KCachegrind, QCachegrind and callgrind_annotate.
//
// The model is rbspy's. Stacks are taken in input order as consecutive
// samples of one program: the frames a stack shares with the previous
// one (from the root) are the same ongoing calls, and every frame past
// that shared part is a new call. A folded line "stack N" stands for N
// consecutive identical samples: it adds N to the costs and makes at most
// one call transition. From this the Profile keeps, per frame, its
// exclusive (self) samples, and per caller→callee frame pair the number
// of calls and the inclusive samples of the callee. Memory grows with the
// number of distinct frames and call edges, never with the input size.
//
// # Recursion
//
// Callgrind records the inclusive cost of every call, recursive ones
// included, and leaves recursion to the viewer: KCachegrind ignores a
// function's calls to itself and folds mutual recursion into a "<cycle N>"
// pseudo-function; callgrind_annotate does neither and shows recursive
// functions above 100% (on valgrind's own output of a recursive program it
// prints 137.8%). Both viewers take a called function's inclusive cost to
// be the sum of the costs of the calls into it.
//
// A Profile sees whole stacks, so it can keep those sums exact: a sample
// adds to the inclusive cost of a call edge only where the callee is not
// already on the stack above it, that is, at the outermost call of each
// function. Deeper recursive calls are still counted as calls, with no
// cost. Every function's inclusive cost, in both viewers, is then the sum
// of the samples of the stacks that contain it, once per stack however
// deep it recurses, and never more than the total. When a function that
// is the root of some stacks is also called (stackprof's "<main>;<main>"),
// the viewers would lose the samples where it was the root, so the output
// gets one more function, RootName, that calls every root; callgrind's own
// output has such a root too, "(below main)".
//
// # Files and lines
//
// Plain frames carry no location: they are written in UnknownFile at
// line 0. Frames with a location (see SplitLocation) are written in their
// file, with their line as the position of their self cost and of the
// calls they make; a function is identified by its file and name, so
// frames of one function at different lines are one function.
//
// # Counts
//
// Callgrind costs are integers. Decimal counts are summed exactly as
// float64 and each cost written is rounded to the nearest integer, so
// written costs may differ from the decimal sums by less than one each;
// Profile.Decimal reports whether this happened.
package callgrind

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pfold/pfold/fold"
)

// RootName is the name of the function added above the roots of the
// stacks when a root is also called (see the package comment).
const RootName = "(root)"

// DefaultEvent is the event name written when Options.Event is empty.
const DefaultEvent = "Samples"

// Options control the written file.
type Options struct {
	Event      string // event name in the "events:" line; DefaultEvent when empty
	Creator    string // "creator:" line; "pfold" when empty
	NoCompress bool   // write names in full every time instead of "(id) name"
}

// ValidEvent reports whether name can be an event name: callgrind readers
// split the "events:" line at white space.
func ValidEvent(name string) bool {
	return name != "" && !strings.ContainsAny(name, " \t\r\n")
}

// Profile accumulates folded stacks and writes them as one callgrind file.
type Profile struct {
	opts Options

	frames     []frame
	frameIndex map[string]int32
	funcs      []function
	funcIndex  map[funcKey]int32
	edges      map[edgeKey]*edge

	stack []entry // the ongoing calls, root first
	seq   uint64  // number of stacks added, stamps first occurrences
	total fold.Count
	dec   bool
}

type frame struct {
	raw       string // the frame as read
	fn        int32
	line      uint64
	self      fold.Count
	leaf      bool       // was a leaf at least once
	rootCost  fold.Count // samples of the stacks it is the root of
	rootCalls uint64     // times it became the root
}

type funcKey struct{ file, name string }

type function struct {
	funcKey
	called bool   // is below the root of some stack
	stamp  uint64 // seq of the last stack it was seen below the root in
}

type edgeKey struct{ from, to int32 } // frame ids

type edge struct {
	calls uint64
	cost  fold.Count
}

type entry struct {
	frame int32
	edge  *edge // the call from the frame above; nil at the root
}

// New returns an empty Profile.
func New(opts Options) *Profile {
	if opts.Event == "" {
		opts.Event = DefaultEvent
	}
	if opts.Creator == "" {
		opts.Creator = "pfold"
	}
	return &Profile{
		opts:       opts,
		frameIndex: make(map[string]int32),
		funcIndex:  make(map[funcKey]int32),
		edges:      make(map[edgeKey]*edge),
	}
}

// Total returns the sum of the counts added.
func (p *Profile) Total() fold.Count { return p.total }

// Decimal reports whether a decimal count was added, so written costs are
// rounded.
func (p *Profile) Decimal() bool { return p.dec }

// Functions returns the number of distinct functions seen.
func (p *Profile) Functions() int { return len(p.funcs) }

// Edges returns the number of distinct caller→callee frame pairs seen.
func (p *Profile) Edges() int { return len(p.edges) }

// Add adds c samples of stack, the next stack in input order.
func (p *Profile) Add(stack []byte, c fold.Count) error {
	if len(stack) == 0 {
		return errors.New("empty stack")
	}
	var err error
	if p.total, err = p.total.Add(c); err != nil {
		return err
	}
	if c.Float {
		p.dec = true
	}
	p.seq++
	depth := 0
	shared := true
	var root int32
	fold.Frames(stack, func(f []byte) bool {
		if shared && (depth >= len(p.stack) || p.frames[p.stack[depth].frame].raw != string(f)) {
			// The previous stack's calls from here on have returned.
			shared = false
			p.stack = p.stack[:depth]
		}
		if !shared {
			id := p.frameID(f)
			var e *edge
			if depth == 0 {
				p.frames[id].rootCalls++
			} else {
				e = p.edge(p.stack[depth-1].frame, id)
				e.calls++
			}
			p.stack = append(p.stack, entry{frame: id, edge: e})
		}
		ent := p.stack[depth]
		fn := p.frames[ent.frame].fn
		if depth == 0 {
			root = fn
			p.frames[ent.frame].rootCost, err = p.frames[ent.frame].rootCost.Add(c)
		} else {
			g := &p.funcs[fn]
			g.called = true
			if g.stamp != p.seq && fn != root {
				// The outermost call of fn in this stack.
				ent.edge.cost, err = ent.edge.cost.Add(c)
			}
			g.stamp = p.seq
		}
		depth++
		return err == nil
	})
	if err != nil {
		return err
	}
	p.stack = p.stack[:depth]
	leaf := &p.frames[p.stack[depth-1].frame]
	leaf.leaf = true
	leaf.self, err = leaf.self.Add(c)
	return err
}

func (p *Profile) frameID(f []byte) int32 {
	if id, ok := p.frameIndex[string(f)]; ok {
		return id
	}
	raw := string(f)
	key, line := frameFunction(f)
	fn, ok := p.funcIndex[key]
	if !ok {
		fn = int32(len(p.funcs))
		p.funcs = append(p.funcs, function{funcKey: key})
		p.funcIndex[key] = fn
	}
	id := int32(len(p.frames))
	p.frames = append(p.frames, frame{raw: raw, fn: fn, line: line})
	p.frameIndex[raw] = id
	return id
}

// frameFunction returns the function (file and name) a frame belongs to, and
// its line.
func frameFunction(f []byte) (funcKey, uint64) {
	name, file, line, ok := SplitLocation(f)
	if !ok {
		file = []byte(UnknownFile)
	}
	// Readers drop the white space after "fn=(id)" (callgrind_annotate:
	// Perl's \s*), and take an empty name there for a reference to id.
	name = bytes.TrimLeft(name, space)
	if len(name) == 0 {
		name = []byte("(empty)")
	}
	file = bytes.TrimLeft(file, space)
	if len(file) == 0 {
		file = []byte(UnknownFile)
	}
	return funcKey{file: string(file), name: string(name)}, line
}

const space = " \t\n\v\f\r"

func (p *Profile) edge(from, to int32) *edge {
	k := edgeKey{from, to}
	e := p.edges[k]
	if e == nil {
		e = new(edge)
		p.edges[k] = e
	}
	return e
}

// WriteTo writes the callgrind file: the header with the summary, then
// one block per function, sorted by file and name.
func (p *Profile) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	out := &writer{w: bw, compress: !p.opts.NoCompress, files: map[string]int{}, fns: map[funcKey]int{}}

	// callgrind_annotate reads "events:" as the last header line, so
	// "positions:" goes before it; "summary:" gives the readers the total
	// (without it callgrind_annotate adds up call costs too).
	out.str("# callgrind format\nversion: 1\ncreator: ", p.opts.Creator, "\n")
	out.str("positions: line\nevents: ", p.opts.Event, "\n")
	out.str("summary: ", costString(p.total), "\n")

	// Group frames and call edges by function.
	frames := make([][]int32, len(p.funcs))
	for id := range p.frames {
		fn := p.frames[id].fn
		frames[fn] = append(frames[fn], int32(id))
	}
	type call struct {
		edgeKey
		*edge
	}
	calls := make([][]call, len(p.funcs))
	for k, e := range p.edges {
		fn := p.frames[k.from].fn
		calls[fn] = append(calls[fn], call{k, e})
	}
	order := make([]int32, len(p.funcs))
	for i := range order {
		order[i] = int32(i)
	}
	byKey := func(a, b int32) int {
		ka, kb := p.funcs[a].funcKey, p.funcs[b].funcKey
		return cmp.Or(strings.Compare(ka.file, kb.file), strings.Compare(ka.name, kb.name))
	}
	slices.SortFunc(order, byKey)
	rank := make([]int32, len(p.funcs))
	for i, fn := range order {
		rank[fn] = int32(i)
	}

	if root := p.rootKey(); root != nil {
		out.function(*root)
		roots := make([]int32, 0)
		for id := range p.frames {
			if p.frames[id].rootCalls > 0 {
				roots = append(roots, int32(id))
			}
		}
		slices.SortFunc(roots, func(a, b int32) int {
			fa, fb := &p.frames[a], &p.frames[b]
			return cmp.Or(cmp.Compare(rank[fa.fn], rank[fb.fn]), cmp.Compare(fa.line, fb.line), strings.Compare(fa.raw, fb.raw))
		})
		for _, id := range roots {
			f := &p.frames[id]
			out.call(p.funcs[f.fn].funcKey, f.rootCalls, f.line, 0, f.rootCost)
		}
	}

	for _, fn := range order {
		out.function(p.funcs[fn].funcKey)
		fr := frames[fn]
		slices.SortFunc(fr, func(a, b int32) int {
			return cmp.Or(cmp.Compare(p.frames[a].line, p.frames[b].line), strings.Compare(p.frames[a].raw, p.frames[b].raw))
		})
		for _, id := range fr {
			if f := &p.frames[id]; f.leaf {
				out.cost(f.line, f.self)
			}
		}
		cs := calls[fn]
		slices.SortFunc(cs, func(a, b call) int {
			ta, tb := &p.frames[a.to], &p.frames[b.to]
			return cmp.Or(cmp.Compare(rank[ta.fn], rank[tb.fn]), cmp.Compare(ta.line, tb.line),
				cmp.Compare(p.frames[a.from].line, p.frames[b.from].line),
				strings.Compare(ta.raw, tb.raw), strings.Compare(p.frames[a.from].raw, p.frames[b.from].raw))
		})
		for _, c := range cs {
			to := &p.frames[c.to]
			out.call(p.funcs[to.fn].funcKey, c.calls, to.line, p.frames[c.from].line, c.cost)
		}
	}
	err := bw.Flush()
	return cw.n, err
}

// rootKey returns the key of the function to add above the roots, or nil
// when no root function is also called.
func (p *Profile) rootKey() *funcKey {
	need := false
	for id := range p.frames {
		if p.frames[id].rootCalls > 0 && p.funcs[p.frames[id].fn].called {
			need = true
			break
		}
	}
	if !need {
		return nil
	}
	k := funcKey{file: UnknownFile, name: RootName}
	for {
		if _, taken := p.funcIndex[k]; !taken {
			return &k
		}
		k.name += "'"
	}
}

// costString returns c as a callgrind cost: an integer, decimals rounded.
func costString(c fold.Count) string {
	return string(appendCost(nil, c))
}

func appendCost(dst []byte, c fold.Count) []byte {
	if !c.Float {
		return strconv.AppendUint(dst, c.N, 10)
	}
	r := math.Round(c.F)
	if r >= math.MaxUint64 {
		return strconv.AppendUint(dst, math.MaxUint64, 10)
	}
	return strconv.AppendUint(dst, uint64(r), 10)
}

// writer writes the lines of a callgrind file.
type writer struct {
	w        *bufio.Writer
	compress bool
	files    map[string]int
	fns      map[funcKey]int
	buf      []byte
}

func (o *writer) str(parts ...string) {
	for _, s := range parts {
		o.w.WriteString(s) // bufio keeps the first error for Flush
	}
}

// spec writes "spec=name", or, compressed, "spec=(id) name" the first
// time and "spec=(id)" after. A name that itself looks like "(digits)…"
// is always written compressed, the only form in which it reads back.
func (o *writer) spec(spec, name string, id int, first bool) {
	o.buf = append(o.buf[:0], spec...)
	o.buf = append(o.buf, '=')
	if o.compress || looksCompressed(name) {
		o.buf = append(o.buf, '(')
		o.buf = strconv.AppendInt(o.buf, int64(id), 10)
		o.buf = append(o.buf, ')')
		if first || !o.compress {
			o.buf = append(o.buf, ' ')
			o.buf = append(o.buf, name...)
		}
	} else {
		o.buf = append(o.buf, name...)
	}
	o.buf = append(o.buf, '\n')
	o.w.Write(o.buf)
}

func looksCompressed(name string) bool {
	return len(name) > 1 && name[0] == '(' && name[1] >= '0' && name[1] <= '9'
}

// file writes a fl= or cfl= line. Files and functions have separate ids.
func (o *writer) file(spec, name string) {
	id, ok := o.files[name]
	if !ok {
		id = len(o.files) + 1
		o.files[name] = id
	}
	o.spec(spec, name, id, !ok)
}

// fn writes a fn= or cfn= line. Function ids are per file and name: two
// files may hold functions of the same name.
func (o *writer) fn(spec string, k funcKey) {
	id, ok := o.fns[k]
	if !ok {
		id = len(o.fns) + 1
		o.fns[k] = id
	}
	o.spec(spec, k.name, id, !ok)
}

func (o *writer) function(k funcKey) {
	o.w.WriteByte('\n')
	o.file("fl", k.file)
	o.fn("fn", k)
}

func (o *writer) cost(line uint64, c fold.Count) {
	o.buf = strconv.AppendUint(o.buf[:0], line, 10)
	o.buf = append(o.buf, ' ')
	o.buf = appendCost(o.buf, c)
	o.buf = append(o.buf, '\n')
	o.w.Write(o.buf)
}

// call writes a call of callee (calls times, entering it at line to) made
// at line from, with its inclusive cost. calls is never 0: callgrind
// readers take the cost line after "calls=0" as self cost.
func (o *writer) call(callee funcKey, calls, to, from uint64, c fold.Count) {
	o.file("cfl", callee.file)
	o.fn("cfn", callee)
	o.buf = append(o.buf[:0], "calls="...)
	o.buf = strconv.AppendUint(o.buf, calls, 10)
	o.buf = append(o.buf, ' ')
	o.buf = strconv.AppendUint(o.buf, to, 10)
	o.buf = append(o.buf, '\n')
	o.w.Write(o.buf)
	o.cost(from, c)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
