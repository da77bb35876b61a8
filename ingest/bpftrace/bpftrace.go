package bpftrace

import (
	"bytes"
	"strconv"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the bpftrace map output format.
var Format = format.Format{
	Name:     "bpftrace",
	Replaces: "stackcollapse-bpftrace.pl",
	Sniff:    sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

// noStack names the one frame of an entry whose key is empty: the
// samples of @[kstack] taken in user mode, which have no kernel stack.
const noStack = "[no stack]"

// maxFrames bounds the lines of one map key (bpftrace's stacks are at
// most 127 frames deep): past it the input is not bpftrace output.
const maxFrames = 1 << 16

type parser struct {
	format.Passed // lines outside map entries (printf output), or in one skipped
	emit          format.EmitFunc
	diag          *stream.Diag

	name     string
	in       bool             // inside a map entry's key
	skip     bool             // inside an entry already reported malformed
	start    int              // the entry's first line
	indented bool             // the key held a stack with frames
	empty    bool             // the key held an empty element (an empty stack)
	frames   backtrace.Frames // as read: the stack folds them last first
	stack    []byte
}

// entryStart reports whether line starts a map entry ("@name[…") and
// returns the key text after the '['.
func entryStart(line []byte) ([]byte, bool) {
	if len(line) < 2 || line[0] != '@' {
		return nil, false
	}
	for i := 1; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '[':
			return line[i+1:], true
		case c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		default:
			return nil, false
		}
	}
	return nil, false
}

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimCR(line)
	if key, ok := entryStart(line); ok {
		if p.in && !p.skip {
			if err := p.diag.Malformed(p.name, p.start, nil, "a map entry with no value after its key"); err != nil {
				return err
			}
		}
		p.reset()
		p.in, p.start, p.name = true, n, name
		return p.keyLine(name, n, line, key)
	}
	if !p.in || p.skip {
		return p.Pass() // "Attaching N probes...", printf output, blank lines
	}
	f := lex.TrimLeft(line)
	if len(f) == 0 {
		return p.diag.Malformed(name, n, line, "a blank line inside a map key")
	}
	if line[0] == ' ' || line[0] == '\t' {
		p.indented = true
		return p.addFrame(name, n, line, f)
	}
	return p.keyLine(name, n, line, line)
}

// keyLine reads a line of key text: scalar elements and the ends of
// stacks, separated by ", ", the last line ending in "]: VALUE". Each
// non-empty element is a frame; an empty one is an empty stack, or the
// place where a stack's lines end or begin.
func (p *parser) keyLine(name string, n int, line, key []byte) error {
	body, value, end := cutValue(key)
	for {
		i := lex.IndexPair(body, ',', ' ')
		piece := body
		if i >= 0 {
			piece = body[:i]
		}
		if len(piece) == 0 {
			p.empty = true
		} else if err := p.addFrame(name, n, line, piece); err != nil || p.skip {
			return err
		}
		if i < 0 {
			break
		}
		body = body[i+2:]
	}
	if !end {
		return nil
	}
	if value == nil {
		p.skip = true
		return p.diag.Malformed(name, n, line, "a map value that is not a count (hist(), stats(), a negative sum?)")
	}
	return p.flush(value)
}

// cutValue splits key text at its last "]: " when a value follows.
// value is nil when the line ends the key with something not a count.
func cutValue(key []byte) (body, value []byte, end bool) {
	i := lastValue(key)
	if i < 0 {
		if bytes.HasSuffix(key, []byte("]:")) {
			return key[:len(key)-2], nil, true // hist(), lhist(): "]: " and then lines of buckets
		}
		return key, nil, false
	}
	v := key[i+3:]
	if len(v) == 0 || !lex.IsDigits(v) {
		return key[:i], nil, true
	}
	return key[:i], v, true
}

// lastValue returns the index of the last "]: " in key, or -1:
// bytes.LastIndex(key, []byte("]: ")), from the last ']'s back (that
// searches by a rolling hash, most of cutValue on the short lines of a
// key).
func lastValue(key []byte) int {
	for i := len(key); ; {
		i = bytes.LastIndexByte(key[:i], ']')
		if i < 0 || i+2 < len(key) && key[i+1] == ':' && key[i+2] == ' ' {
			return i
		}
	}
}

func (p *parser) addFrame(name string, n int, line, f []byte) error {
	if p.frames.Len() == maxFrames {
		p.skip = true
		return p.diag.Malformed(name, n, line, "a map key of more than "+strconv.Itoa(maxFrames)+" lines")
	}
	p.frames.Add(f)
	return nil
}

func (p *parser) flush(value []byte) error {
	defer p.reset()
	if !p.indented && !p.empty {
		return nil // a map of scalars (@start[tid]: …), not a stack
	}
	c, err := fold.ParseCount(value)
	if err != nil {
		return p.diag.Malformed(p.name, p.start, value, err.Error())
	}
	s := p.frames.AppendStack(p.stack[:0])
	if p.frames.Len() == 0 {
		s = append(s, noStack...)
	}
	p.stack = s
	return p.emit(s, c)
}

func (p *parser) reset() {
	p.in, p.skip, p.indented, p.empty = false, false, false, false
	p.frames.Reset()
}

func (p *parser) End() error {
	in, skip, start := p.in, p.skip, p.start
	p.reset()
	if in && !skip {
		return p.diag.Malformed(p.name, start, nil, "the input ends inside a map entry")
	}
	return nil
}

// sniff is Sure on a whole map entry whose key holds a stack: "@name["
// alone on its line, indented frames, and a line ending "]: VALUE"; or
// "@name[…]: COUNT" on one line with an empty element ("@[, comm]: 5").
func sniff(prefix []byte) format.Score {
	in, frames := false, 0
	for l := range format.Lines(prefix) {
		if key, ok := entryStart(l); ok {
			body, value, end := cutValue(key)
			if end {
				if value != nil && hasEmpty(body) {
					return format.Sure
				}
				in = false
				continue
			}
			in, frames = true, 0
			continue
		}
		if !in {
			continue
		}
		switch {
		case len(l) > 0 && (l[0] == ' ' || l[0] == '\t'):
			frames++
		case len(l) > 0 && l[0] != '@':
			_, _, end := cutValue(l)
			if end {
				if frames > 0 {
					return format.Sure // a count, or a hist() or stats() of stacks
				}
				in = false
			}
		default:
			in = false
		}
	}
	return format.No
}

// hasEmpty reports whether one-line key text has an empty element.
func hasEmpty(body []byte) bool {
	for {
		i := bytes.Index(body, []byte(", "))
		if i < 0 {
			return len(body) == 0
		}
		if i == 0 {
			return true
		}
		body = body[i+2:]
	}
}
