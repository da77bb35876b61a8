package vsprof

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/calltree"
	"github.com/pfold/pfold/ingest/internal/csvline"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is Visual Studio's exported call tree (CallTreeSummary.csv).
var Format = format.Format{
	Name:     "vsprof",
	Replaces: "stackcollapse-vsprof.pl, inferno-collapse-vsprof",
	Sniff:    sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

const (
	headerStart = "Level,Function Name,"
	callsColumn = "Number of Calls"
	inclusive   = "Inclusive " // "Inclusive Samples"
	unknown     = calltree.Unknown
	bom         = "\xef\xbb\xbf"
)

type layout int

const (
	none    layout = iota // no header read yet
	refused               // a header that is not Visual Studio's
	calls                 // instrumentation: Number of Calls
	samples               // sampling: Inclusive Samples
)

// frame is one level of the current path.
type frame struct {
	end      int    // where the frame ends in parser.stack
	n        uint64 // its calls or inclusive samples
	children uint64 // samples mode: the inclusive samples of its children
}

type parser struct {
	emit format.EmitFunc
	diag *stream.Diag

	layout layout
	name   string
	last   int

	stack  []byte
	frames []frame
	fields [][]byte
	csv    csvline.Splitter
}

func (p *parser) Line(name string, n int, line []byte) error {
	p.name, p.last = name, n
	line = lex.TrimRight(line)
	switch p.layout {
	case none:
		return p.readHeader(name, n, line)
	case refused:
		return nil
	}
	row := line
	for len(row) > 0 && (row[0] == ' ' || row[0] == '\t') {
		row = row[1:]
	}
	if len(row) == 0 {
		return nil
	}
	var ok bool
	p.fields, ok = p.csv.Split(row)
	if !ok {
		return p.bad(name, n, line, "a quote is not closed")
	}
	level, err := parseNumber(p.fields[0])
	if err != "" || level > 1<<20 {
		return p.diag.Malformed(name, n, line, "the level is not a number")
	}
	depth := int(level)
	if len(p.fields) < 2 || len(p.fields[1]) == 0 {
		return p.bad(name, n, line, "no function name")
	}
	if len(p.fields) < 3 {
		return p.bad(name, n, line, "no count after the function name")
	}
	count, why := parseNumber(p.fields[2])
	if why != "" {
		if err := p.diag.Malformed(name, n, line, why+" (the frame is kept, counting nothing)"); err != nil {
			return err
		}
		count = 0
	}
	if p.layout == samples {
		return p.samplesLine(name, n, line, depth, p.fields[1], count)
	}
	return p.callsLine(name, n, line, depth, p.fields[1], count)
}

// bad reports a row whose frame cannot be read; when its level can be,
// a placeholder keeps the rows under it in place.
func (p *parser) bad(name string, n int, line []byte, why string) error {
	if len(p.fields) == 0 {
		return p.diag.Malformed(name, n, line, why)
	}
	level, err := parseNumber(p.fields[0])
	if err != "" || level > 1<<20 {
		return p.diag.Malformed(name, n, line, why)
	}
	if err := p.diag.Malformed(name, n, line, why+" (the frame is named "+unknown+")"); err != nil {
		return err
	}
	if p.layout == samples {
		return p.samplesLine(name, n, line, int(level), []byte(unknown), 0)
	}
	return p.callsLine(name, n, line, int(level), []byte(unknown), 0)
}

// readHeader reads the header: the third column says the layout.
func (p *parser) readHeader(name string, n int, line []byte) error {
	h := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte(bom)))
	if rest, ok := bytes.CutPrefix(h, []byte(headerStart)); ok {
		switch {
		case bytes.HasPrefix(rest, []byte(callsColumn+",")):
			p.layout = calls
			return nil
		case bytes.HasPrefix(rest, []byte(inclusive)):
			p.layout = samples
			return nil
		}
	}
	p.layout = refused
	return p.diag.Malformed(name, n, line, "not a Visual Studio call tree header (\""+headerStart+callsColumn+",…\" or \""+headerStart+"Inclusive Samples,…\"); the input is not read")
}

// callsLine follows inferno's collapse-vsprof on Number of Calls: a
// frame's weight is its calls, less those of the last child it called
// (when fewer), and a parent whose calls equal its last child's is not
// written again.
func (p *parser) callsLine(name string, n int, line []byte, depth int, fn []byte, count uint64) error {
	// Level L is the stack's L-th frame, one more than its parent.
	if err := p.fill(name, n, line, depth-1); err != nil {
		return err
	}
	prev := len(p.frames)
	switch {
	case prev == depth:
		if err := p.write(); err != nil {
			return err
		}
		p.pop()
	case prev > depth:
		if err := p.unwind(prev - depth + 1); err != nil {
			return err
		}
	}
	p.push(fn, count)
	return nil
}

// unwind pops up to k frames as inferno does when the tree goes back up.
func (p *parser) unwind(k int) error {
	var prevCalls uint64
	for range k {
		if len(p.frames) == 0 {
			break
		}
		if prevCalls != p.frames[len(p.frames)-1].n {
			if err := p.write(); err != nil {
				return err
			}
		}
		prevCalls = p.pop()
		if len(p.frames) == 0 {
			break
		}
		if top := &p.frames[len(p.frames)-1]; prevCalls < top.n {
			top.n -= prevCalls
		}
	}
	return nil
}

// samplesLine: each frame's own samples (its inclusive samples less its
// children's) make its stack, so every sample lands once. Level 0 (the
// process) is no frame, as in both scripts.
func (p *parser) samplesLine(name string, n int, line []byte, level int, fn []byte, count uint64) error {
	if level == 0 {
		return p.popTo(0)
	}
	depth := level - 1
	if err := p.popTo(depth); err != nil {
		return err
	}
	if err := p.fill(name, n, line, depth); err != nil {
		return err
	}
	p.push(fn, count)
	return nil
}

// popTo ends the frames deeper than depth, emitting their own samples.
func (p *parser) popTo(depth int) error {
	for len(p.frames) > depth {
		top := p.frames[len(p.frames)-1]
		total := max(top.n, top.children)
		if self := total - top.children; self > 0 {
			if err := p.emit(p.stack, fold.Int(self)); err != nil {
				return err
			}
		}
		p.pop()
		if len(p.frames) > 0 {
			p.frames[len(p.frames)-1].children += total
		}
	}
	return nil
}

// fill puts placeholders where levels are missing above depth.
func (p *parser) fill(name string, n int, line []byte, depth int) error {
	if depth <= len(p.frames) {
		return nil
	}
	if err := p.diag.Malformed(name, n, line, calltree.Missing(depth-len(p.frames))); err != nil {
		return err
	}
	for len(p.frames) < depth {
		p.push([]byte(unknown), 0)
	}
	return nil
}

func (p *parser) push(fn []byte, count uint64) {
	if len(p.frames) > 0 {
		p.stack = append(p.stack, ';')
	}
	p.stack = lex.AppendFrame(p.stack, fn)
	p.frames = append(p.frames, frame{end: len(p.stack), n: count})
}

// pop drops the top frame, if any, and returns its count.
func (p *parser) pop() uint64 {
	if len(p.frames) == 0 {
		return 0
	}
	top := p.frames[len(p.frames)-1]
	p.frames = p.frames[:len(p.frames)-1]
	if len(p.frames) > 0 {
		p.stack = p.stack[:p.frames[len(p.frames)-1].end]
	} else {
		p.stack = p.stack[:0]
	}
	return top.n
}

// write emits the current stack with the top frame's count.
func (p *parser) write() error {
	if len(p.frames) == 0 {
		return nil
	}
	if c := p.frames[len(p.frames)-1].n; c > 0 {
		return p.emit(p.stack, fold.Int(c))
	}
	return nil
}

// parseNumber reads a count as Visual Studio writes it in any locale:
// digits, in groups of three parted by one kind of separator (',', '.',
// ' ', a no-break space) from a thousand on, "2,893,824".
func parseNumber(b []byte) (uint64, string) {
	if n, ok := lex.Uint(b); ok && len(b) <= 18 {
		return n, ""
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0, "no count"
	}
	var n uint64
	var sep rune = -1
	group, groups := 0, 0
	for i := 0; i <= len(b); {
		r, size := utf8.RuneError, 1
		if i < len(b) {
			if c := b[i]; c < utf8.RuneSelf {
				r = rune(c)
			} else {
				r, size = utf8.DecodeRune(b[i:])
			}
		}
		i += size
		switch {
		case '0' <= r && r <= '9':
			if n > (1<<63)/10 {
				return 0, fmt.Sprintf("the count %q is too large", b)
			}
			n = n*10 + uint64(r-'0')
			group++
		case i > len(b) || r == ',' || r == '.' || r == ' ' || r == '\u00a0' || r == '\u202f':
			end := i > len(b)
			if !end {
				if sep >= 0 && r != sep {
					return 0, fmt.Sprintf("the count %q is not a whole number", b)
				}
				sep = r
			}
			groups++
			if group == 0 || groups > 1 && group != 3 || groups == 1 && !end && group > 3 {
				return 0, fmt.Sprintf("the count %q is not a whole number in groups of three digits", b)
			}
			group = 0
		default:
			return 0, fmt.Sprintf("the count %q is not a number", b)
		}
	}
	return n, ""
}

func (p *parser) End() error {
	var err error
	switch p.layout {
	case none:
		if p.last > 0 {
			err = p.diag.Malformed(p.name, p.last, nil, "no Visual Studio call tree header in the input")
		}
	case calls:
		// inferno writes only the last stack; the frames above it are
		// ended as a row of level 1 would end them.
		err = p.unwind(len(p.frames))
	case samples:
		err = p.popTo(0)
	}
	p.layout, p.last = none, 0
	p.frames, p.stack = p.frames[:0], p.stack[:0]
	return err
}
