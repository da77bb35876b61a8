package wcp

import (
	"bytes"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is wallClockProfiler's report.
var Format = format.Format{
	Name:     "wcp",
	Replaces: "stackcollapse-wcp.pl",
	Sniff:    sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

// maxFrames bounds one stack: past it the input is not a report.
const maxFrames = 1 << 16

type parser struct {
	format.Passed // the report's lines before its full stacks, and others
	emit          format.EmitFunc
	diag          *stream.Diag

	started bool             // past "Full stacks"
	samples fold.Count       // the count of the stack being read
	frames  backtrace.Frames // innermost first, as read
	stack   []byte
	full    bool // the stack was reported too deep
	bad     bool // its samples line was reported: the stack is skipped
}

func (p *parser) Line(name string, n int, line []byte) error {
	t := lex.Trim(line)
	if bytes.HasPrefix(t, []byte("Full stacks")) {
		p.started = true
		return nil
	}
	if !p.started {
		return p.Pass()
	}
	if c, ok := samplesLine(t); ok {
		v, err := fold.ParseCount(c)
		if err != nil {
			p.bad = true
			return p.diag.Malformed(name, n, line, err.Error())
		}
		p.samples, p.bad = v, false
		return nil
	}
	if d := lex.Digits(t); d > 0 && bytes.HasPrefix(t[d:], []byte(": ")) {
		if p.full {
			return nil
		}
		if p.frames.Len() == maxFrames {
			p.full = true
			return p.diag.Malformed(name, n, line, "a stack deeper than any report holds")
		}
		p.frames.Add(t[d+2:])
		return nil
	}
	if len(t) == 0 {
		return p.flush()
	}
	return p.Pass()
}

// samplesLine matches m/^\d+\.\d+% =+ \((\d+) samples\)/ and returns
// the count.
func samplesLine(t []byte) ([]byte, bool) {
	d := lex.Digits(t)
	if d == 0 || d == len(t) || t[d] != '.' {
		return nil, false
	}
	t = t[d+1:]
	d = lex.Digits(t)
	if d == 0 || !bytes.HasPrefix(t[d:], []byte("% =")) {
		return nil, false
	}
	t = t[d+2:]
	for len(t) > 0 && t[0] == '=' {
		t = t[1:]
	}
	if !bytes.HasPrefix(t, []byte(" (")) {
		return nil, false
	}
	t = t[2:]
	d = lex.Digits(t)
	if d == 0 || !bytes.HasPrefix(t[d:], []byte(" samples)")) {
		return nil, false
	}
	return t[:d], true
}

// flush counts the stack read so far with the last samples line's count.
func (p *parser) flush() error {
	skip := p.frames.Len() == 0 || p.full || p.bad
	if !skip {
		p.stack = p.frames.AppendStack(p.stack[:0])
	}
	p.frames.Reset()
	p.full = false
	if skip {
		return nil
	}
	return p.emit(p.stack, p.samples)
}

func (p *parser) End() error {
	err := p.flush()
	p.started, p.samples, p.bad = false, fold.Count{}, false
	return err
}

// sniff is Sure on a samples line (" 89.655% ===… (26 samples)")
// followed by a frame ("1: main   (at x.c:67)"), or on wallClockProfiler's
// "N stack samples taken" and "Full stacks with at least one sample:".
func sniff(prefix []byte) format.Score {
	afterSamples := false
	for l := range format.Lines(prefix) {
		t := lex.Trim(l)
		if bytes.HasPrefix(t, []byte("Full stacks with at least one sample")) {
			return format.Sure
		}
		if _, ok := samplesLine(t); ok {
			afterSamples = true
			continue
		}
		if afterSamples {
			if d := lex.Digits(t); d > 0 && bytes.HasPrefix(t[d:], []byte(": ")) && bytes.HasSuffix(t, []byte(")")) && bytes.Contains(t, []byte("   (at ")) {
				return format.Sure
			}
		}
		afterSamples = false
	}
	return format.No
}
