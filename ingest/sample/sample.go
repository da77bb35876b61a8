package sample

import (
	"bytes"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/calltree"
	"github.com/pfold/pfold/ingest/internal/flags"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/ingest/internal/rustname"
	"github.com/pfold/pfold/stream"
)

// Format is macOS sample's output.
var Format = format.Format{
	Name:     "sample",
	Replaces: "stackcollapse-sample.awk, inferno-collapse-sample",
	Sniff:    sniff,
	Flags:    []format.Flag{flags.NoModules},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag, noModules: opts.Bool(flags.NoModules.Name)}, nil
	},
}

const (
	startLine = "Call graph:"
	endLine   = "Total number in stack"
	unknown   = calltree.Unknown
)

// idle are the kernel's blocking calls: a stack whose leaf is one of
// them (in libsystem_kernel, or with no module named) is a thread
// waiting, left out as both scripts leave it out.
var idle = map[string]bool{
	"__psynch_cvwait": true, "__select": true, "__semwait_signal": true,
	"__ulock_wait": true, "__wait4": true, "__workq_kernreturn": true,
	"kevent": true, "mach_msg_trap": true, "read": true, "semaphore_wait_trap": true,
}

const idleModule = "libsystem_kernel"

type state int

const (
	header state = iota // before "Call graph:"
	graph               // inside the call graph
	after               // after "Total number in stack"
)

// level is one frame of the current path.
type level struct {
	end      int    // where the frame ends in parser.stack
	count    uint64 // samples with this frame on the stack, when known
	known    bool   // count was read (not a placeholder)
	children uint64 // samples of the children read so far
	idle     bool   // a blocking call: its own samples are left out
}

type parser struct {
	format.Passed // the report's lines outside its call graphs
	emit          format.EmitFunc
	diag          *stream.Diag
	noModules     bool

	state  state
	graphs int // call graphs begun in this input
	name   string
	last   int // the last line number seen

	stack  []byte // the frames of levels, joined by ';'
	levels []level
	frame  []byte
	isIdle bool // the frame parse read is a blocking call

	idleSamples uint64
	idleStacks  uint64
}

func (p *parser) Line(name string, n int, line []byte) error {
	p.name, p.last = name, n
	switch p.state {
	case header, after:
		if bytes.HasPrefix(line, []byte(startLine)) {
			p.state = graph
			p.graphs++
			return nil
		}
		if p.state == after && afterLine(line) {
			return nil
		}
		return p.Pass()
	}
	line = lex.TrimRight(line)
	if len(line) == 0 {
		return nil
	}
	if bytes.HasPrefix(line, []byte(endLine)) {
		p.state = after
		return p.popTo(0)
	}
	if len(line) < 4 || string(line[:4]) != "    " {
		return p.diag.Malformed(name, n, line, "a call graph line that does not start with four spaces")
	}
	indent := 4
	for indent < len(line) && isIndent(line[indent]) {
		indent++
	}
	if indent == len(line) {
		return p.diag.Malformed(name, n, line, "a call graph line with nothing but indentation")
	}
	if (indent-4)%2 != 0 {
		return p.diag.Malformed(name, n, line, "an odd number of indentation characters (each level is two)")
	}
	depth := (indent - 4) / 2
	if depth > len(p.levels) {
		if err := p.diag.Malformed(name, n, line, calltree.Missing(depth-len(p.levels))); err != nil {
			return err
		}
	}
	count, fr, why := p.parse(line[indent:])
	if why != "" {
		// The line's place in the tree is known: a placeholder keeps
		// its children under the right parent, and its own samples
		// stay with its parent.
		if err := p.diag.Malformed(name, n, line, why+" (the frame is named "+unknown+")"); err != nil {
			return err
		}
		return p.push(depth, []byte(unknown), 0, false, false)
	}
	return p.push(depth, fr, count, true, p.isIdle)
}

// afterLine reports whether line is one of the report's sections after
// the call graph: their titles ("Sort by top of stack, …:", "Binary
// Images:"), a function and its count ("        compute  (in cwork)
// 70"), a binary image ("       0x100000000 -        0x100003fff
// +cwork …").
func afterLine(line []byte) bool {
	t := lex.TrimLeft(line)
	if len(t) < len(line) {
		return bytes.Contains(t, []byte("(in ")) || bytes.HasPrefix(t, []byte("0x")) && bytes.Contains(t, []byte(" - "))
	}
	for _, title := range afterTitles {
		if bytes.HasPrefix(t, []byte(title)) {
			return true
		}
	}
	return false
}

var afterTitles = []string{"Total number in stack", "Sort by top of stack", "Binary Images:"}

func isIndent(c byte) bool {
	return c == ' ' || c == '+' || c == '|' || c == ':' || c == '!'
}

// parse reads "COUNT FUNCTION  (in MODULE) + OFFSET  [ADDRESS]" into
// the count and the frame (in p.frame), or says why it cannot.
func (p *parser) parse(rest []byte) (uint64, []byte, string) {
	sp := bytes.IndexByte(rest, ' ')
	if sp < 0 {
		return 0, nil, "no sample count and function name"
	}
	count, ok := lex.Uint(rest[:sp])
	if !ok {
		return 0, nil, "the sample count is not a number"
	}
	text := rest[sp+1:]
	fn := bytes.TrimRight(text[:argStart(text)], " \t")
	if len(fn) == 0 {
		return 0, nil, "no function name"
	}
	var module []byte
	if i := lastModule(text); i >= 0 {
		m := text[i+4:]
		if j := bytes.IndexByte(m, ')'); j >= 0 {
			module = bytes.TrimSuffix(m[:j], []byte(".dylib"))
		}
	}
	p.isIdle = idle[string(fn)] && (module == nil || string(module) == idleModule)
	f := p.frame[:0]
	if len(module) > 0 && !p.noModules {
		f = append(f, module...)
		f = append(f, '`')
	}
	n := len(f)
	if f = rustname.Append(f, fn); len(f) == n {
		// Nothing but a hash ("h0123456789abcdef"): keep it.
		f = append(f, fn...)
	}
	f = lex.AppendFrame(f[:0], f) // in place
	p.frame = f
	return count, f, ""
}

// anon is the one parenthesis a C++ name may hold before its arguments.
const anon = "(anonymous namespace)"

// argStart is where the function name in text ends: at the first '(',
// as inferno cuts it, the parameters and the module going, except that
// "(anonymous namespace)" is part of a name ("(anonymous
// namespace)::Page::pop(void*)" is "(anonymous namespace)::Page::pop",
// where inferno keeps nothing).
func argStart(text []byte) int {
	from := 0
	for {
		i := bytes.IndexByte(text[from:], '(')
		if i < 0 {
			return len(text)
		}
		i += from
		if !bytes.HasPrefix(text[i:], []byte(anon)) {
			return i
		}
		from = i + len(anon)
	}
}

// lastModule is where the last "(in " of text is, or -1. The module
// comes near the end of the line, so the search runs back from there.
func lastModule(text []byte) int {
	end := len(text)
	for {
		i := bytes.LastIndexByte(text[:end], '(')
		if i < 0 {
			return -1
		}
		if bytes.HasPrefix(text[i+1:], []byte("in ")) {
			return i
		}
		end = i
	}
}

// push puts frame fr at depth, after ending the frames at depth and
// below it and filling missing levels above it with placeholders.
func (p *parser) push(depth int, fr []byte, count uint64, known, isIdle bool) error {
	if err := p.popTo(depth); err != nil {
		return err
	}
	for len(p.levels) < depth {
		p.open([]byte(unknown), 0, false, false)
	}
	p.open(fr, count, known, isIdle)
	return nil
}

func (p *parser) open(fr []byte, count uint64, known, isIdle bool) {
	if len(p.levels) > 0 {
		p.stack = append(p.stack, ';')
	}
	p.stack = append(p.stack, fr...)
	p.levels = append(p.levels, level{end: len(p.stack), count: count, known: known, idle: isIdle})
}

// popTo ends the frames deeper than depth levels, emitting each one's
// own samples (its count less its children's).
func (p *parser) popTo(depth int) error {
	for len(p.levels) > depth {
		top := &p.levels[len(p.levels)-1]
		total := top.children
		if top.known && top.count > total {
			total = top.count
		}
		if self := total - top.children; self > 0 {
			if top.idle {
				p.idleSamples += self
				p.idleStacks++
			} else if err := p.emit(p.stack[:top.end], fold.Int(self)); err != nil {
				return err
			}
		}
		p.levels = p.levels[:len(p.levels)-1]
		if len(p.levels) > 0 {
			parent := &p.levels[len(p.levels)-1]
			parent.children += total
			p.stack = p.stack[:parent.end]
		} else {
			p.stack = p.stack[:0]
		}
	}
	return nil
}

func (p *parser) End() error {
	var err error
	switch {
	case p.state == graph:
		err = p.diag.Malformed(p.name, p.last, nil, "the input ends inside the call graph (no \""+endLine+"\" line); the stacks read are kept")
	case p.graphs == 0 && p.last > 0:
		err = p.diag.Malformed(p.name, p.last, nil, "no call graph (no \""+startLine+"\" line) in the input")
	}
	if e := p.popTo(0); err == nil {
		err = e
	}
	p.state, p.graphs, p.last = header, 0, 0
	return err
}

func (p *parser) Stats() string {
	if p.idleStacks == 0 {
		return ""
	}
	return fmt.Sprintf("%d samples in %d stacks of waiting threads left out", p.idleSamples, p.idleStacks)
}
