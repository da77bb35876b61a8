package faulthandler

import (
	"bytes"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the Python faulthandler input format.
var Format = format.Format{
	Name:     "faulthandler",
	Replaces: "stackcollapse-faulthandler.pl",
	Sniff:    sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

var (
	framePrefix = []byte(`  File "`)
	lineMark    = []byte(`", line `)
)

type parser struct {
	format.Passed // the lines around tracebacks (the program's output)
	emit          format.EmitFunc
	diag          *stream.Diag

	frames backtrace.Frames // the frames read, most recent first, "file:line:func" each
	stack  []byte
}

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimCR(line)
	if !bytes.HasPrefix(line, framePrefix) {
		// Headers, blank lines, "Timeout (…)!", "  ...", "  <no Python
		// frame>": the traceback being read, if any, is complete.
		// Lines other than a header (which ends as "call first):")
		// are passed over.
		if len(line) > 0 && !bytes.HasSuffix(line, []byte("first):")) {
			p.Pass()
		}
		return p.flush()
	}
	file, num, fn, ok := parseFrame(line[len(framePrefix):])
	if !ok {
		return p.diag.Malformed(name, n, line, `not a frame ("  File \"FILE\", line N in FUNCTION")`)
	}
	a := lex.AppendFrame(p.frames.Arena, file)
	a = append(a, ':')
	a = append(a, num...)
	a = append(a, ':')
	p.frames.Arena = lex.AppendFrame(a, fn)
	p.frames.End()
	return nil
}

// parseFrame splits `FILE", line N in FUNC` (the text after `  File "`).
// N is digits, or "???" when faulthandler could not tell. A file name
// may hold `"`: the first `", line ` followed by a line number and " in "
// ends it.
func parseFrame(b []byte) (file, num, fn []byte, ok bool) {
	from := 0
	for {
		i := bytes.Index(b[from:], lineMark)
		if i < 0 {
			return nil, nil, nil, false
		}
		i += from
		rest := b[i+len(lineMark):]
		j := lex.Digits(rest)
		if j == 0 && bytes.HasPrefix(rest, []byte("???")) {
			j = 3
		}
		if bytes.HasPrefix(rest[j:], []byte(" in ")) {
			return b[:i], rest[:j], rest[j+4:], true
		}
		from = i + 1
	}
}

// flush emits the traceback read, root first, once.
func (p *parser) flush() error {
	if p.frames.Len() == 0 {
		return nil
	}
	p.stack = p.frames.AppendStack(p.stack[:0]) // no frame is empty: each holds two ':'
	p.frames.Reset()
	return p.emit(p.stack, fold.Int(1))
}

func (p *parser) End() error { return p.flush() }

// header reports whether line opens a traceback: "Thread 0x…",
// "Current thread 0x…" or "Stack", then " (most recent call first):".
func header(line []byte) bool {
	line = lex.TrimCR(line)
	rest, ok := bytes.CutSuffix(line, []byte(" (most recent call first):"))
	if !ok {
		return false
	}
	if string(rest) == "Stack" {
		return true
	}
	if r, ok := bytes.CutPrefix(rest, []byte("Current thread 0x")); ok {
		rest = r
	} else if r, ok := bytes.CutPrefix(rest, []byte("Thread 0x")); ok {
		rest = r
	} else {
		return false
	}
	// The thread id in hex; newer Pythons may name the thread after it.
	n := 0
	for n < len(rest) && lex.IsHex(rest[n]) {
		n++
	}
	return n > 0 && (n == len(rest) || rest[n] == ' ')
}

// sniff is Sure on a traceback header followed by a frame (or by
// faulthandler's "<no Python frame>").
func sniff(prefix []byte) format.Score {
	prev := false
	for line := range format.Lines(prefix) {
		if prev {
			if bytes.HasPrefix(line, framePrefix) {
				if _, _, _, ok := parseFrame(line[len(framePrefix):]); ok {
					return format.Sure
				}
			}
			if string(line) == "  <no Python frame>" {
				return format.Sure
			}
		}
		prev = header(line)
	}
	return format.No
}
