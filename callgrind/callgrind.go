package callgrind

import (
	"bytes"
	"math"
	"strings"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/table"
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
	// Mem, when not 0, is the memory budget: past half of it the tables
	// go external (see spill.go), spilling to TmpDir ("" is $TMPDIR).
	Mem    int64
	TmpDir string
}

// ValidEvent reports whether name can be an event name: callgrind readers
// split the "events:" line at white space.
func ValidEvent(name string) bool {
	return name != "" && !strings.ContainsAny(name, " \t\r\n")
}

// Profile accumulates folded stacks and writes them as one callgrind file.
//
// Its memory is bounded by the distinct frames (each name stored once,
// with about 70 bytes of records and table slots) and the distinct
// caller→callee frame pairs (about 35 bytes each), never by the number
// of stacks.
type Profile struct {
	opts Options

	// The tables keep a Profile free of per-frame strings and pointers:
	// every string lives once in an arena and everything else refers to
	// it by an int32 id, so a profile of millions of frames is a few
	// large pointer-free slices the garbage collector never scans.
	frameNames table.Bytes // frame id → the frame as read
	frames     paged[frame]
	files      table.Bytes // file id → file name
	unknown    int32       // the id of UnknownFile in files, -1 before its first function
	funcs      paged[function]
	// funcOf finds the functions of a file other than UnknownFile by
	// their file and name ids (a function of UnknownFile is found from
	// its name: frame.unknown), edgeOf the calls into frames that have
	// more than one caller (the first call into a frame is frame.in).
	// Most frames are plain names called from one place: neither table
	// sees them.
	funcOf table.Index // HashInt(pairKey(file, name)) → function id
	edgeOf table.Index // HashInt(pairKey(from, to)) → edge id
	edges  paged[edge]

	prev   []byte  // the previous stack
	one    Batch   // Add's
	warmed int32   // see warm
	stack  []entry // its frames, the ongoing calls, root first
	roots  []root
	rootOf map[int32]int32 // frame id → index in roots

	total fold.Count
	dec   bool

	nameBytes int64     // bytes of frameNames, for the budget
	ext       *external // the tables, once they outgrew the budget
}

// The records below are the bulk of a Profile: one per distinct frame,
// function and call edge. Their counts take 8 bytes and a flag (see
// count) instead of a fold.Count's 24.
type frame struct {
	line uint64
	self uint64 // a count, with selfDec
	// fn is the frame's function, -1 while the string is only a
	// function's name; unknown the function of that name in UnknownFile,
	// or -1; in the first call into the frame, or -1.
	fn, unknown, in int32
	leaf            bool // was a leaf at least once
	selfDec         bool // self is a decimal
	multi           bool // called from more than one frame: its calls are in edgeOf
}

// newFrame is the record of a string just added to frameNames.
var newFrame = frame{fn: -1, unknown: -1, in: -1}

// root is a frame that is the root of stacks; there are few.
type root struct {
	frame int32
	calls uint64     // times it became the root
	cost  fold.Count // samples of the stacks it is the root of
}

type function struct {
	file, name int32 // ids in Profile.files and Profile.frameNames
	open       int32 // frames of it below the root in Profile.stack
	called     bool  // is below the root of some stack
}

type edge struct {
	calls    uint64
	cost     uint64 // a count, with costDec
	from, to int32  // frame ids
	costDec  bool
}

// count returns the count held as v and dec.
func count(v uint64, dec bool) fold.Count {
	if dec {
		return fold.Dec(math.Float64frombits(v))
	}
	return fold.Int(v)
}

// addCount adds c to the count held as *v and *dec.
func addCount(v *uint64, dec *bool, c fold.Count) error {
	if !c.Float && !*dec && *v+c.N >= c.N { // integers, without a carry
		*v += c.N
		return nil
	}
	sum, err := count(*v, *dec).Add(c)
	if err != nil {
		return err
	}
	if *dec = sum.Float; sum.Float {
		*v = math.Float64bits(sum.F)
	} else {
		*v = sum.N
	}
	return nil
}

// An entry is a frame of Profile.stack.
type entry struct {
	frame, fn int32
	// edge is the call from the frame above (nil at the root, whose
	// index in roots is root); costs, whether the stack's cost goes to
	// it: it is the outermost call of fn below the root.
	edge  *edge
	root  int32
	costs bool
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
		opts:    opts,
		rootOf:  make(map[int32]int32),
		unknown: -1,
	}
}

// Total returns the sum of the counts added.
func (p *Profile) Total() fold.Count { return p.total }

// Decimal reports whether a decimal count was added, so written costs are
// rounded.
func (p *Profile) Decimal() bool { return p.dec }

// Functions returns the number of distinct functions seen.
func (p *Profile) Functions() int {
	if p.ext != nil {
		return p.ext.funcs.Len()
	}
	return p.funcs.len()
}

// Edges returns the number of distinct caller→callee frame pairs seen
// (once the profile was written, when its tables went external).
func (p *Profile) Edges() int {
	if p.ext != nil {
		return p.ext.edges
	}
	return p.edges.len()
}

// Add adds c samples of stack, the next stack in input order.
func (p *Profile) Add(stack []byte, c fold.Count) error {
	p.one.Reset()
	if p.ext == nil && len(p.prev) > 0 {
		// Only the frames not shared with the last stack are cut and
		// hashed.
		shared, pos := sharedFrames(stack, p.prev)
		p.one.append(stack, c, shared, pos)
	} else {
		p.one.Append(stack, c)
	}
	_, err := p.AddBatch(&p.one)
	return err
}

// addCosts adds c samples of the stack, once pushed.
func (p *Profile) addCosts(c fold.Count) error {
	var err error
	r := &p.roots[p.stack[0].root]
	if r.cost, err = r.cost.Add(c); err != nil {
		return err
	}
	for i := 1; i < len(p.stack); i++ {
		ent := &p.stack[i]
		if !ent.costs {
			continue
		}
		if e := ent.edge; !c.Float && !e.costDec && e.cost+c.N >= c.N {
			e.cost += c.N // addCount's common case, inline
		} else if err := addCount(&e.cost, &e.costDec, c); err != nil {
			return err
		}
	}
	leaf := p.frames.at(p.stack[len(p.stack)-1].frame)
	leaf.leaf = true
	return addCount(&leaf.self, &leaf.selfDec, c)
}

// pop keeps the first n entries of the stack.
func (p *Profile) pop(n int) {
	for i := n; i < len(p.stack); i++ {
		if i > 0 {
			p.funcs.at(p.stack[i].fn).open--
		}
	}
	p.stack = p.stack[:min(n, len(p.stack))]
}

// push adds frame f (of hash h, plain or not), a call from the last
// frame of the stack.
func (p *Profile) push(f []byte, h uint64, plain bool) {
	id := p.frameID(f, h, plain)
	fr := p.frames.at(id)
	ent := entry{frame: id, fn: fr.fn}
	if len(p.stack) == 0 {
		ent.root = p.root(id)
		p.roots[ent.root].calls++
	} else {
		ent.edge = p.edge(p.stack[len(p.stack)-1].frame, id, fr)
		ent.edge.calls++
		g := p.funcs.at(fr.fn)
		g.called = true
		ent.costs = g.open == 0 && fr.fn != p.stack[0].fn
		g.open++
	}
	p.stack = append(p.stack, ent)
}

// frameID returns the id of frame f, adding it when new. Function names
// are kept with the frames: most frames are their function's name, so
// both are one string. A name that is not a frame is a string of
// frameNames whose frame has no function (fn -1) until it is seen.
func (p *Profile) frameID(f []byte, h uint64, plain bool) int32 {
	id, added := p.frameNames.AddHash(h, f)
	if added {
		p.frames.add(newFrame)
	} else if p.frames.at(id).fn >= 0 {
		return id
	}
	p.nameBytes += int64(len(f))
	var fn int32
	var line uint64
	if plain {
		// A plain name: its own function, in UnknownFile.
		fn = p.unknownFunction(id)
	} else {
		var file, name []byte
		file, name, line = frameFunction(f)
		nameID, added := p.frameNames.Add(name)
		if added {
			p.frames.add(newFrame)
		}
		if string(file) == UnknownFile {
			fn = p.unknownFunction(nameID)
		} else {
			fileID, _ := p.files.Add(file)
			fn = p.function(fileID, nameID)
		}
	}
	fr := p.frames.at(id)
	fr.fn, fr.line = fn, line
	return id
}

// unknownFunction returns the function of name id in UnknownFile,
// adding it when new.
func (p *Profile) unknownFunction(name int32) int32 {
	fr := p.frames.at(name)
	if fr.unknown < 0 {
		if p.unknown < 0 {
			p.unknown, _ = p.files.Add([]byte(UnknownFile))
		}
		fr.unknown = p.funcs.add(function{file: p.unknown, name: name})
	}
	return fr.unknown
}

// function returns the function of name id in file id (not
// UnknownFile), adding it when new.
func (p *Profile) function(file, name int32) int32 {
	h := table.HashInt(pairKey(file, name))
	i := p.funcOf.Start(h)
	for {
		var id int32
		if id, i = p.funcOf.Next(h, i); id < 0 {
			break
		}
		if g := p.funcs.at(id); g.file == file && g.name == name {
			return id
		}
	}
	id := p.funcs.add(function{file: file, name: name})
	p.funcOf.Insert(h, i, id)
	return id
}

// findFunction returns the function of name in file, or -1.
func (p *Profile) findFunction(file, name []byte) int32 {
	nameID := p.frameNames.Find(name)
	if nameID < 0 {
		return -1
	}
	if string(file) == UnknownFile {
		return p.frames.at(nameID).unknown
	}
	fileID := p.files.Find(file)
	if fileID < 0 {
		return -1
	}
	h := table.HashInt(pairKey(fileID, nameID))
	for i := p.funcOf.Start(h); ; {
		var id int32
		if id, i = p.funcOf.Next(h, i); id < 0 {
			return -1
		}
		if g := p.funcs.at(id); g.file == fileID && g.name == nameID {
			return id
		}
	}
}

// frameFunction returns the function (file and name) a frame belongs to, and
// its line.
func frameFunction(f []byte) (file, name []byte, line uint64) {
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
	return file, name, line
}

const space = " \t\n\v\f\r"

func isSpace(b byte) bool { return strings.IndexByte(space, b) >= 0 }

// root returns the index in roots of frame id.
func (p *Profile) root(id int32) int32 {
	r, ok := p.rootOf[id]
	if !ok {
		r = int32(len(p.roots))
		p.roots = append(p.roots, root{frame: id})
		p.rootOf[id] = r
	}
	return r
}

// edge returns the call from frame from to frame to (whose record is
// t), adding it when new.
func (p *Profile) edge(from, to int32, t *frame) *edge {
	if t.in < 0 {
		t.in = p.edges.add(edge{from: from, to: to})
		return p.edges.at(t.in)
	}
	if e := p.edges.at(t.in); e.from == from {
		return e
	}
	h := table.HashInt(pairKey(from, to))
	if !t.multi {
		// A second caller: from now on the calls into t are in edgeOf.
		t.multi = true
		p.edgeOf.Put(table.HashInt(pairKey(p.edges.at(t.in).from, to)), t.in)
	}
	i := p.edgeOf.Start(h)
	for {
		var id int32
		if id, i = p.edgeOf.Next(h, i); id < 0 {
			break
		}
		if e := p.edges.at(id); e.from == from && e.to == to {
			return e
		}
	}
	id := p.edges.add(edge{from: from, to: to})
	p.edgeOf.Insert(h, i, id)
	return p.edges.at(id)
}

// pairKey is the key of a pair of ids in funcOf and edgeOf.
func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }
