package stap

import (
	"bytes"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the SystemTap stack aggregation format.
var Format = format.Format{
	Name:     "stap",
	Replaces: "stackcollapse-stap.pl",
	Sniff:    sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

// maxFrames bounds one stack (SystemTap's MAXBACKTRACE defaults to 20):
// past it the input is not a stack aggregation.
const maxFrames = 1 << 16

type parser struct {
	emit format.EmitFunc
	diag *stream.Diag

	name   string
	start  int              // the pending stack's first line
	frames backtrace.Frames // leaf first, as read
	stack  []byte
	skip   bool // the pending stack was reported too deep
}

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimCR(line)
	t := lex.TrimLeft(line)
	if len(t) == 0 {
		return nil
	}
	if lex.IsDigits(t) {
		if p.frames.Len() == 0 && !p.skip {
			return p.diag.Malformed(name, n, line, "a count with no stack before it")
		}
		c, err := fold.ParseCount(t)
		if err != nil {
			p.reset()
			return p.diag.Malformed(name, n, line, err.Error())
		}
		return p.flush(c)
	}
	if p.skip {
		return nil
	}
	if p.frames.Len() == maxFrames {
		p.reset()
		p.skip = true
		return p.diag.Malformed(name, n, line, "a stack of more frames than any SystemTap prints")
	}
	if p.frames.Len() == 0 {
		p.name, p.start = name, n
	}
	// s/\+[^+]*$//: the offset, size and module go.
	if i := bytes.LastIndexByte(t, '+'); i >= 0 {
		t = t[:i]
	}
	// s/.* : //: the address goes.
	if i := bytes.LastIndex(t, []byte(" : ")); i >= 0 {
		t = t[i+3:]
	}
	if len(t) == 0 {
		t = []byte("-")
	}
	p.frames.Add(t)
	return nil
}

func (p *parser) flush(c fold.Count) error {
	if p.skip {
		p.reset()
		return nil
	}
	p.stack = p.frames.AppendStack(p.stack[:0])
	p.reset()
	return p.emit(p.stack, c)
}

func (p *parser) reset() {
	p.frames.Reset()
	p.skip = false
}

func (p *parser) End() error {
	pending := p.frames.Len() > 0
	p.reset()
	if pending {
		return p.diag.Malformed(p.name, p.start, nil, "a stack with no count after it")
	}
	return nil
}

// sniff is Sure when every line is blank, a count, or a frame as
// SystemTap prints one (" 0xADDR : name+0xoff/0xsize [module]", or an
// address alone), with at least one named frame and one count.
func sniff(prefix []byte) format.Score {
	named, counts := 0, 0
	for l := range format.Lines(prefix) {
		t := lex.TrimLeft(l)
		switch {
		case len(t) == 0:
		case lex.IsDigits(t):
			if len(t) == len(l) {
				return format.No // SystemTap's counts follow a tab
			}
			counts++
		case isFrame(t):
			if bytes.Contains(t, []byte(" : ")) {
				named++
			}
		default:
			return format.No
		}
	}
	if named > 0 && counts > 0 {
		return format.Sure
	}
	return format.No
}

// isFrame matches "0xHEX", then the end, " : name…" or " [module…".
func isFrame(t []byte) bool {
	if !bytes.HasPrefix(t, []byte("0x")) {
		return false
	}
	i := 2
	for i < len(t) && lex.IsLowerHex(t[i]) {
		i++
	}
	if i == 2 {
		return false
	}
	rest := t[i:]
	return len(rest) == 0 || bytes.HasPrefix(rest, []byte(" : ")) && len(rest) > 3 || bytes.HasPrefix(rest, []byte(" ["))
}
