package callgrind

import (
	"bytes"
	"cmp"
	"io"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pfold/pfold/fold"
)

// WriteTo writes the callgrind file: the header with the summary, then
// one block per function, sorted by file and name.
//
// It sorts the functions, groups the frames and calls by function, gives
// every function and file its written id in order of first reference,
// and then formats the blocks of functions on every core, a run of
// functions at a time, writing the runs in order.
func (p *Profile) WriteTo(w io.Writer) (int64, error) {
	if p.ext != nil {
		return p.ext.writeTo(p, w)
	}
	nf := p.funcs.len()
	// The writer's function ids are the functions' ranks; rank nf is the
	// added root, if any. File p.files.Len() is its file when no frame is
	// in UnknownFile.
	out := newWriter(w, !p.opts.NoCompress, p.files.Len()+1, nf+1)

	// callgrind_annotate reads "events:" as the last header line, so
	// "positions:" goes before it; "summary:" gives the readers the total
	// (without it callgrind_annotate adds up call costs too).
	out.str("# callgrind format\nversion: 1\ncreator: ", p.opts.Creator, "\n")
	out.str("positions: line\nevents: ", p.opts.Event, "\n")
	out.str("summary: ", costString(p.total), "\n")

	l := &layout{p: p, out: out}
	l.sortFunctions()
	l.frames()
	var grouped sync.WaitGroup
	grouped.Go(l.groupLeaves)
	l.groupCalls()
	grouped.Wait()

	// The root's calls, when a root function is also called.
	if root := p.rootName(int32(nf)); root.name != nil {
		out.function(root)
		keys := make([]int32, len(p.roots))
		for i, r := range p.roots {
			keys[i] = r.frame
		}
		slices.SortFunc(keys, func(a, b int32) int {
			return cmp.Or(cmp.Compare(l.frameRank[a], l.frameRank[b]), l.cmpFrames(a, b))
		})
		for _, id := range keys {
			rank := l.frameRank[id]
			r := &p.roots[p.rootOf[id]]
			out.call(funcRef{file: l.fileOf[rank], fn: rank, id: l.order[rank], p: p}, r.calls, l.lineOf(id), 0, r.cost)
		}
	}
	l.firstReferences()
	l.writeBlocks()
	err := out.flush()
	return out.n, err
}

// layout is what WriteTo knows of the output before formatting it.
type layout struct {
	p   *Profile
	out *writer

	order  []int32 // rank → function
	fileOf []int32 // rank → the function's file

	frameRank []int32 // frame → the rank of its function
	lines     bool    // some frame has a line

	leaves    []int32 // frames with a self cost, by rank, then line and frame
	leafStart []int32 // rank r's leaves are leaves[leafStart[r]:leafStart[r+1]]

	calls     []int32 // edges, by caller rank, then callee rank, lines and frames
	callee    []int32 // the callee rank of each of calls
	callStart []int32 // rank r's calls are calls[callStart[r]:callStart[r+1]]

	// Whether each reference (a block's fl= and fn=, a call's cfl= and
	// cfn=) is its file's or function's first, written in full.
	blockFirst []uint8
	callFirst  []uint8
}

const (
	firstFile = 1 << iota
	firstFunction
)

// sortFunctions ranks the functions by file and name.
func (l *layout) sortFunctions() {
	p := l.p
	files := p.files.Len()
	fileRank := make([]int32, files)
	fileByRank := make([]int32, files)
	for i := range fileByRank {
		fileByRank[i] = int32(i)
	}
	slices.SortFunc(fileByRank, func(a, b int32) int { return bytes.Compare(p.files.Key(a), p.files.Key(b)) })
	for i, f := range fileByRank {
		fileRank[f] = int32(i)
	}
	nf := p.funcs.len()
	keys := make([]nameKey, nf)
	for i := range int32(nf) {
		f := p.funcs.at(i)
		keys[i] = nameKey{pre: namePrefix(p.frameNames.Key(f.name), 0), id: i, file: fileRank[f.file]}
	}
	sortNames(keys, make([]nameKey, nf), files, func(id int32) []byte { return p.frameNames.Key(p.funcs.at(id).name) })
	l.order = make([]int32, nf)
	l.fileOf = make([]int32, nf)
	for i, k := range keys {
		l.order[i] = k.id
		l.fileOf[i] = fileByRank[k.file]
	}
}

// frames finds each frame's rank, the frames with a self cost, and
// whether any frame has a line.
func (l *layout) frames() {
	p := l.p
	rank := make([]int32, len(l.order))
	for i, fn := range l.order {
		rank[fn] = int32(i)
	}
	l.frameRank = make([]int32, p.frames.len())
	for id := range int32(p.frames.len()) {
		f := p.frames.at(id)
		if f.fn >= 0 {
			l.frameRank[id] = rank[f.fn]
		}
		l.lines = l.lines || f.line != 0
		if f.leaf {
			l.leaves = append(l.leaves, id)
		}
	}
}

func (l *layout) lineOf(frame int32) uint64 {
	if !l.lines {
		return 0
	}
	return l.p.frames.at(frame).line
}

// cmpFrames orders frames of a function: by their line, then as read
// (distinct frames differ there).
func (l *layout) cmpFrames(a, b int32) int {
	if c := cmp.Compare(l.lineOf(a), l.lineOf(b)); c != 0 {
		return c
	}
	return bytes.Compare(l.p.frameNames.Key(a), l.p.frameNames.Key(b))
}

// groupLeaves groups the leaves by rank.
func (l *layout) groupLeaves() {
	nf := len(l.order)
	by := make([]int32, len(l.leaves))
	l.leafStart = make([]int32, nf+1)
	for _, id := range l.leaves {
		l.leafStart[l.frameRank[id]+1]++
	}
	for i := 1; i <= nf; i++ {
		l.leafStart[i] += l.leafStart[i-1]
	}
	next := slices.Clone(l.leafStart[:nf])
	for _, id := range l.leaves {
		r := l.frameRank[id]
		by[next[r]] = id
		next[r]++
	}
	l.leaves = by
	for r := range nf {
		if g := l.leaves[l.leafStart[r]:l.leafStart[r+1]]; len(g) > 1 {
			slices.SortFunc(g, l.cmpFrames)
		}
	}
}

// groupCalls orders the calls by caller rank, then callee rank, by
// counting (callee, then stably caller), then those between the same
// two functions by their lines and frames.
func (l *layout) groupCalls() {
	p := l.p
	nf, ne := len(l.order), p.edges.len()
	from, to := make([]int32, ne), make([]int32, ne)
	count := make([]int32, nf+1)
	for i := range int32(ne) {
		e := p.edges.at(i)
		from[i], to[i] = l.frameRank[e.from], l.frameRank[e.to]
		count[to[i]+1]++
	}
	for i := 1; i <= nf; i++ {
		count[i] += count[i-1]
	}
	byCallee := make([]int32, ne)
	for i := range int32(ne) {
		byCallee[count[to[i]]] = i
		count[to[i]]++
	}
	l.callStart = count // reused: counted again, by caller
	clear(l.callStart)
	for _, r := range from {
		l.callStart[r+1]++
	}
	for i := 1; i <= nf; i++ {
		l.callStart[i] += l.callStart[i-1]
	}
	next := slices.Clone(l.callStart[:nf])
	l.calls, l.callee = make([]int32, ne), make([]int32, ne)
	for _, id := range byCallee {
		r := from[id]
		l.calls[next[r]], l.callee[next[r]] = id, to[id]
		next[r]++
	}
	for q := 0; q < ne; {
		j := q + 1
		for j < ne && l.callee[j] == l.callee[q] && j < int(l.callStart[from[l.calls[q]]+1]) {
			j++
		}
		if j-q > 1 {
			slices.SortFunc(l.calls[q:j], func(a, b int32) int {
				ea, eb := p.edges.at(a), p.edges.at(b)
				if c := cmp.Or(cmp.Compare(l.lineOf(ea.to), l.lineOf(eb.to)), cmp.Compare(l.lineOf(ea.from), l.lineOf(eb.from))); c != 0 {
					return c
				}
				return cmp.Or(bytes.Compare(p.frameNames.Key(ea.to), p.frameNames.Key(eb.to)),
					bytes.Compare(p.frameNames.Key(ea.from), p.frameNames.Key(eb.from)))
			})
		}
		q = j
	}
}

// firstReferences gives every file and function its written id, in the
// order of the references, and marks the first ones.
func (l *layout) firstReferences() {
	o := l.out
	ref := func(rank, file int32) (first uint8) {
		if o.fileIDs[file] == 0 {
			o.files++
			o.fileIDs[file] = o.files
			first |= firstFile
		}
		if o.fnIDs[rank] == 0 {
			o.fns++
			o.fnIDs[rank] = o.fns
			first |= firstFunction
		}
		return first
	}
	l.blockFirst = make([]uint8, len(l.order))
	l.callFirst = make([]uint8, len(l.calls))
	for r := range int32(len(l.order)) {
		l.blockFirst[r] = ref(r, l.fileOf[r])
		for q := l.callStart[r]; q < l.callStart[r+1]; q++ {
			c := l.callee[q]
			l.callFirst[q] = ref(c, l.fileOf[c])
		}
	}
}

// blockRanks is how many functions' blocks are formatted at a time.
const blockRanks = 4096

// writeBlocks formats the functions' blocks, runs of blockRanks of them
// on every core, and writes them in order.
func (l *layout) writeBlocks() {
	nf := len(l.order)
	n := (nf + blockRanks - 1) / blockRanks
	workers := min(runtime.GOMAXPROCS(0), 4, n)
	if workers <= 1 {
		for r := 0; r < nf; r += blockRanks {
			l.out.buf = l.format(l.out.buf, r, min(r+blockRanks, nf))
			l.out.done()
		}
		return
	}
	ready := make([]chan []byte, n)
	for i := range ready {
		ready[i] = make(chan []byte, 1)
	}
	// A worker takes a buffer before a run: the first run not written
	// always has one, whatever runs after it hold.
	free := make(chan []byte, 2*workers)
	for range cap(free) {
		free <- nil
	}
	var next atomic.Int64
	for range workers {
		go func() {
			for {
				buf := <-free
				i := int(next.Add(1) - 1)
				if i >= n {
					free <- buf
					return
				}
				r := i * blockRanks
				ready[i] <- l.format(buf[:0], r, min(r+blockRanks, nf))
			}
		}()
	}
	for i := range n {
		buf := <-ready[i]
		l.out.write(buf)
		free <- buf
	}
}

// format appends the blocks of ranks r0 to r1.
func (l *layout) format(b []byte, r0, r1 int) []byte {
	p := l.p
	for r := int32(r0); r < int32(r1); r++ {
		b = append(b, '\n')
		b = l.appendFile(b, "fl", l.fileOf[r], l.blockFirst[r]&firstFile != 0)
		b = l.appendFunction(b, "fn", r, l.blockFirst[r]&firstFunction != 0)
		for _, id := range l.leaves[l.leafStart[r]:l.leafStart[r+1]] {
			f := p.frames.at(id)
			b = appendCostLine(b, f.line, count(f.self, f.selfDec))
		}
		for q := l.callStart[r]; q < l.callStart[r+1]; q++ {
			e, c, first := p.edges.at(l.calls[q]), l.callee[q], l.callFirst[q]
			b = l.appendFile(b, "cfl", l.fileOf[c], first&firstFile != 0)
			b = l.appendFunction(b, "cfn", c, first&firstFunction != 0)
			b = appendCallLine(b, e.calls, l.lineOf(e.to))
			b = appendCostLine(b, l.lineOf(e.from), count(e.cost, e.costDec))
		}
	}
	return b
}

func (l *layout) appendFile(b []byte, spec string, file int32, first bool) []byte {
	var name []byte
	if first || !l.out.compress {
		name = l.p.files.Key(file)
	}
	return appendSpec(b, spec, name, l.out.fileIDs[file], first, l.out.compress)
}

func (l *layout) appendFunction(b []byte, spec string, rank int32, first bool) []byte {
	var name []byte
	if first || !l.out.compress {
		name = l.p.frameNames.Key(l.p.funcs.at(l.order[rank]).name)
	}
	return appendSpec(b, spec, name, l.out.fnIDs[rank], first, l.out.compress)
}

// funcRef is a function as the writer's methods write it: its ids in
// the writer's tables and its names, or where to read them (names are
// read only when written).
type funcRef struct {
	file, fn int32 // the writer's ids
	fileName []byte
	name     []byte
	p        *Profile // when not nil, the names are p's, of file and function id
	id       int32
}

func (f *funcRef) fileNameOf() []byte {
	if f.p != nil {
		return f.p.files.Key(f.file)
	}
	return f.fileName
}

func (f *funcRef) nameOf() []byte {
	if f.p != nil {
		return f.p.frameNames.Key(f.p.funcs.at(f.id).name)
	}
	return f.name
}

// rootName returns the function to add above the roots, or a funcRef
// without name when no root function is also called; fn is its id in
// the writer. Its file id, when no frame is in UnknownFile, is
// p.files.Len().
func (p *Profile) rootName(fn int32) funcRef {
	need := false
	for _, r := range p.roots {
		if p.funcs.at(p.frames.at(r.frame).fn).called {
			need = true
			break
		}
	}
	if !need {
		return funcRef{}
	}
	file := p.files.Find([]byte(UnknownFile))
	root := funcRef{file: file, fn: fn, fileName: []byte(UnknownFile), name: []byte(RootName)}
	if file < 0 {
		root.file = int32(p.files.Len())
		return root
	}
	for {
		if p.findFunction(root.fileName, root.name) < 0 {
			return root
		}
		root.name = append(root.name, '\'')
	}
}

// costString returns c as a callgrind cost: an integer, decimals rounded.
func costString(c fold.Count) string {
	return string(appendCost(nil, c))
}

func appendCost(dst []byte, c fold.Count) []byte {
	if !c.Float {
		return appendUint(dst, c.N)
	}
	r := math.Round(c.F)
	if r >= math.MaxUint64 {
		return appendUint(dst, math.MaxUint64)
	}
	return appendUint(dst, uint64(r))
}

// appendUint appends v in decimal: strconv.AppendUint, without its copy
// of the digits (the numbers of a callgrind file are most of its lines).
func appendUint(b []byte, v uint64) []byte {
	if v < 10 {
		return append(b, byte('0'+v))
	}
	// The number of digits, from the number of bits (log10(2) ≈
	// 1233/4096), then two at a time from the right.
	n := bits.Len64(v) * 1233 >> 12
	if v >= pow10[n] {
		n++
	}
	b = slices.Grow(b, n)
	b = b[:len(b)+n]
	d := b[len(b)-n:]
	i := n
	for v >= 100 {
		q := v / 100
		r := 2 * (v - 100*q)
		d[i-1], d[i-2] = digitPairs[r+1], digitPairs[r]
		i -= 2
		v = q
	}
	if v >= 10 {
		d[1], d[0] = digitPairs[2*v+1], digitPairs[2*v]
	} else {
		d[0] = byte('0' + v)
	}
	return b
}

const digitPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" + "30313233343536373839" +
	"40414243444546474849" + "50515253545556575859" + "60616263646566676869" + "70717273747576777879" +
	"80818283848586878889" + "90919293949596979899"

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// appendSpec appends "spec=name", or, compressed, "spec=(id) name" the
// first time and "spec=(id)" after; name is needed only when written. A
// name that itself looks like "(digits)…" is always written compressed,
// the only form in which it reads back.
func appendSpec(b []byte, spec string, name []byte, id int32, first, compress bool) []byte {
	b = append(b, spec...)
	b = append(b, '=')
	switch {
	case compress:
		b = append(b, '(')
		b = appendUint(b, uint64(id))
		b = append(b, ')')
		if first {
			b = append(b, ' ')
			b = append(b, name...)
		}
	case looksCompressed(name):
		b = append(b, '(')
		b = appendUint(b, uint64(id))
		b = append(b, ") "...)
		b = append(b, name...)
	default:
		b = append(b, name...)
	}
	return append(b, '\n')
}

func looksCompressed(name []byte) bool {
	return len(name) > 1 && name[0] == '(' && name[1] >= '0' && name[1] <= '9'
}

// appendCostLine appends a cost line: the line, then the cost.
func appendCostLine(b []byte, line uint64, c fold.Count) []byte {
	b = appendUint(b, line)
	b = append(b, ' ')
	b = appendCost(b, c)
	return append(b, '\n')
}

// appendCallLine appends "calls=N to". calls is never 0: callgrind
// readers take the cost line after "calls=0" as self cost.
func appendCallLine(b []byte, calls, to uint64) []byte {
	b = append(b, "calls="...)
	b = appendUint(b, calls)
	b = append(b, ' ')
	b = appendUint(b, to)
	return append(b, '\n')
}

// writer writes the lines of a callgrind file, through a buffer of its
// own: the lines are made in it, and written out past writeChunk bytes.
type writer struct {
	w        io.Writer
	n        int64 // bytes written
	err      error // the first error writing
	buf      []byte
	compress bool
	fileIDs  []int32 // written id of each file, 0 before its first line
	files    int32   // files written
	fnIDs    []int32 // written id of each function, 0 before its first line
	fns      int32   // functions written
}

const writeChunk = 64 << 10

// newWriter returns a writer to w of files files and fns functions
// (ids below those).
func newWriter(w io.Writer, compress bool, files, fns int) *writer {
	return &writer{w: w, buf: make([]byte, 0, 2*writeChunk), compress: compress,
		fileIDs: make([]int32, files), fnIDs: make([]int32, fns)}
}

// flush writes out the buffer, and returns the first error.
func (o *writer) flush() error {
	o.put(o.buf)
	o.buf = o.buf[:0]
	return o.err
}

// write writes b after the buffer.
func (o *writer) write(b []byte) {
	o.flush()
	o.put(b)
}

// put writes b unless an error came before.
func (o *writer) put(b []byte) {
	if len(b) > 0 && o.err == nil {
		n, err := o.w.Write(b)
		o.n += int64(n)
		o.err = err
	}
}

// done ends a line group: the buffer is written out when it is full.
func (o *writer) done() {
	if len(o.buf) >= writeChunk {
		o.flush()
	}
}

func (o *writer) str(parts ...string) {
	for _, s := range parts {
		o.buf = append(o.buf, s...)
	}
	o.done()
}

// fl writes a fl= or cfl= line and fn a fn= or cfn= line. Files and
// functions have separate ids; function ids are per file and name: two
// files may hold functions of the same name.
func (o *writer) fl(spec string, f *funcRef) {
	first := o.fileIDs[f.file] == 0
	if first {
		o.files++
		o.fileIDs[f.file] = o.files
	}
	var name []byte
	if first || !o.compress {
		name = f.fileNameOf()
	}
	o.buf = appendSpec(o.buf, spec, name, o.fileIDs[f.file], first, o.compress)
}

func (o *writer) fn(spec string, f *funcRef) {
	first := o.fnIDs[f.fn] == 0
	if first {
		o.fns++
		o.fnIDs[f.fn] = o.fns
	}
	var name []byte
	if first || !o.compress {
		name = f.nameOf()
	}
	o.buf = appendSpec(o.buf, spec, name, o.fnIDs[f.fn], first, o.compress)
}

func (o *writer) function(f funcRef) {
	o.buf = append(o.buf, '\n')
	o.fl("fl", &f)
	o.fn("fn", &f)
	o.done()
}

func (o *writer) cost(line uint64, c fold.Count) {
	o.buf = appendCostLine(o.buf, line, c)
	o.done()
}

// call writes a call of callee (calls times, entering it at line to) made
// at line from, with its inclusive cost.
func (o *writer) call(callee funcRef, calls, to, from uint64, c fold.Count) {
	o.fl("cfl", &callee)
	o.fn("cfn", &callee)
	o.buf = appendCallLine(o.buf, calls, to)
	o.buf = appendCostLine(o.buf, from, c)
	o.done()
}
