package aix

import (
	"bytes"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the AIX procstack format.
var Format = format.Format{
	Name:     "aix",
	Replaces: "stackcollapse-aix.pl",
	Sniff:    sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

// maxFrames bounds one thread's stack: past it the input is not
// procstack output.
const maxFrames = 1 << 16

var tidMark = []byte("---------- tid# ")

type parser struct {
	format.Passed // lines that are not a process, a thread or a frame
	emit          format.EmitFunc
	diag          *stream.Diag

	process []byte
	frames  backtrace.Frames // leaf first, as read
	stack   []byte
	full    bool // the stack was reported too deep
}

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimCR(line)
	if d := lex.Digits(line); d > 0 && d < len(line) && line[d] == ':' {
		if err := p.flush(); err != nil {
			return err
		}
		// m/^\d+: ([^ ]*)/: the command's first word.
		p.process = p.process[:0]
		if rest := line[d+1:]; len(rest) > 0 && rest[0] == ' ' {
			rest = rest[1:]
			if i := bytes.IndexByte(rest, ' '); i >= 0 {
				rest = rest[:i]
			}
			p.process = append(p.process, rest...)
		}
		return nil
	}
	if bytes.HasPrefix(line, tidMark) && lex.Digits(line[len(tidMark):]) > 0 {
		return p.flush()
	}
	if !bytes.HasPrefix(line, []byte("0x")) {
		return p.Pass()
	}
	i := 2
	for i < len(line) && lex.IsLowerHex(line[i]) {
		i++
	}
	addr := line[:i]
	if bytes.Count(line[i:], []byte(" ")) < 2 {
		return nil // the script's pattern needs two spaces after the address
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	j := i
	for j < len(line) && line[j] != ' ' {
		j++
	}
	if j == i {
		return nil // an address alone
	}
	fn := line[i:j]
	// s/\(.*\)?//: the arguments go; a name in brackets is no name.
	if k := bytes.IndexByte(fn, '('); k >= 0 {
		fn = fn[:k]
	}
	if len(fn) >= 2 && fn[0] == '[' && fn[len(fn)-1] == ']' {
		fn = addr
	}
	if p.full {
		return nil
	}
	if p.frames.Len() == maxFrames {
		p.full = true
		return p.diag.Malformed(name, n, line, "a thread of more frames than any procstack prints")
	}
	// The script builds the stack as a string and starts it anew while
	// it is false to Perl ("" or "0").
	if p.frames.Len() == 1 && (len(p.frames.Frame(0)) == 0 || string(p.frames.Frame(0)) == "0") {
		p.frames.Reset()
	}
	p.frames.Add(fn)
	return nil
}

// flush counts the pending stack once, under the process's name.
func (p *parser) flush() error {
	n := p.frames.Len()
	skip := p.full || n == 0 || n == 1 && len(p.frames.Frame(0)) == 0
	if !skip {
		p.stack = p.frames.AppendStack(append(append(p.stack[:0], p.process...), ';'))
	}
	p.frames.Reset()
	p.full = false
	if skip {
		return nil
	}
	return p.emit(p.stack, fold.Int(1))
}

func (p *parser) End() error {
	err := p.flush()
	p.process = p.process[:0]
	return err
}

// sniff is Sure when the input starts with a "PID: command" line and
// every line is one, a "---------- tid# N" line or a frame
// "0xADDR  name…", with at least one thread and one frame.
func sniff(prefix []byte) format.Score {
	seen, tids, frames := false, 0, 0
	for l := range format.Lines(prefix) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		switch d := lex.Digits(l); {
		case d > 0 && bytes.HasPrefix(l[d:], []byte(": ")) && len(l) > d+2 && l[d+2] != ' ':
			seen = true
		case !seen:
			return format.No
		case bytes.HasPrefix(l, tidMark) && lex.Digits(l[len(tidMark):]) > 0:
			tids++
		case isFrame(l):
			frames++
		default:
			return format.No
		}
	}
	if tids > 0 && frames > 0 {
		return format.Sure
	}
	return format.No
}

// isFrame matches "0xHEX", spaces, a name.
func isFrame(l []byte) bool {
	if !bytes.HasPrefix(l, []byte("0x")) {
		return false
	}
	i := 2
	for i < len(l) && lex.IsLowerHex(l[i]) {
		i++
	}
	j := i
	for j < len(l) && l[j] == ' ' {
		j++
	}
	return i > 2 && j > i && j < len(l)
}
