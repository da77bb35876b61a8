package elfutils

import (
	"bytes"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
	"github.com/pfold/pfold/ingest/internal/flags"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the eu-stack format.
var Format = format.Format{
	Name:     "elfutils",
	Replaces: "stackcollapse-elfutils.pl",
	Sniff:    sniff,
	// The script's options, --pid and --tid (a PID=N, TID=N frame at the
	// root), are perf script's too.
	Flags: []format.Flag{flags.PID, flags.TID},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag, withPID: opts.Bool("pid"), withTID: opts.Bool("tid")}, nil
	},
}

type parser struct {
	format.Passed    // indented lines not under a frame
	emit             format.EmitFunc
	diag             *stream.Diag
	withPID, withTID bool
	underFrame       bool // the last line was a frame, or a line of -s or -b under one

	pid, tid []byte // digits of the last PID and TID lines
	frames   backtrace.Frames
	stack    []byte
}

var unknown = []byte("[unknown]")

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimCR(line)
	if len(line) == 0 {
		return nil
	}
	under := p.underFrame
	p.underFrame = false
	switch line[0] {
	case 'P':
		if d, ok := idLine(line, "PID "); ok {
			err := p.flush()
			p.pid = append(p.pid[:0], d...)
			return err
		}
	case 'T':
		if d, ok := idLine(line, "TID "); ok {
			err := p.flush()
			p.tid = append(p.tid[:0], d...)
			return err
		}
	case '#':
		if f, ok := frameName(line); ok {
			if line[1] == '0' && line[2] == ' ' {
				// Frame #0 without a TID line before it: another thread.
				if err := p.flush(); err != nil {
					return err
				}
			}
			p.addFrame(f)
			p.underFrame = true
			return nil
		}
	case ' ', '\t':
		if !under || !sourceOrBuildID(lex.TrimLeft(line)) {
			return p.Pass()
		}
		p.underFrame = true
		return nil // -s, -b: the frame's source position or build-id
	}
	return p.diag.Malformed(name, n, line, "not an eu-stack line (PID, TID or #N frame)")
}

// sourceOrBuildID reports whether t, an indented line under a frame
// with its indentation cut, is what -s or -b print there:
// "../src/threads.c:33:5" or "[93ac…28a40]@0x7f1fb8368000+0xd3df2".
func sourceOrBuildID(t []byte) bool {
	if len(t) > 0 && t[0] == '[' {
		return bytes.Contains(t, []byte("]@0x"))
	}
	i := bytes.LastIndexByte(t, ':')
	return i > 0 && lex.Digits(t[i+1:]) == len(t)-i-1 && i < len(t)-1
}

// idLine reads "PID 1234 - process" or "TID 1234:" and returns the digits
// (maybe none, as the script reads them).
func idLine(line []byte, prefix string) ([]byte, bool) {
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return nil, false
	}
	d := line[len(prefix):]
	i := lex.Digits(d)
	return d[:i], true
}

// frameName returns the name in a frame line "#N  0xADDR[ ACT][ NAME][ - MODULE]"
// (ACT is -a's activation column): what follows the address and the
// column, "[unknown]" when that is empty, "[unknown] - MODULE" when it is
// only -m's module. ok is false when line is not a frame.
func frameName(line []byte) (f []byte, ok bool) {
	i := 1
	i += lex.Digits(line[i:])
	if i == 1 {
		return nil, false
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if !bytes.HasPrefix(line[i:], []byte("0x")) {
		return nil, false
	}
	i += 2
	for i < len(line) && lex.IsLowerHex(line[i]) {
		i++
	}
	rest := line[i:]
	switch {
	case bytes.HasPrefix(rest, []byte(" - 1")) && (len(rest) == 4 || rest[4] == ' '):
		rest = rest[4:] // -a: a caller's frame
	case bytes.HasPrefix(rest, []byte("    ")):
		rest = rest[4:] // -a: the innermost frame, or a signal frame
	}
	if len(rest) < 2 || rest[0] != ' ' {
		return unknown, true
	}
	// "- MODULE" alone (-m, no symbol): addFrame puts "[unknown] " before.
	return rest[1:], true
}

func (p *parser) addFrame(f []byte) {
	a := p.frames.Arena
	if bytes.HasPrefix(f, []byte("- ")) {
		a = append(a, "[unknown] "...)
	}
	p.frames.Arena = lex.AppendFrame(a, f)
	p.frames.End()
}

// flush emits the pending stack, root first, with a count of 1.
func (p *parser) flush() error {
	if p.frames.Len() == 0 {
		return nil
	}
	s := p.stack[:0]
	if p.withPID {
		s = append(append(append(s, "PID="...), p.pid...), ';')
	}
	if p.withTID {
		s = append(append(append(s, "TID="...), p.tid...), ';')
	}
	p.stack = p.frames.AppendStack(s)
	p.frames.Reset()
	return p.emit(p.stack, fold.Int(1))
}

func (p *parser) End() error { return p.flush() }

// sniff is Sure on eu-stack's lines: a "PID N - process" (or "- core")
// or "TID N:" header and frames "#N  0xADDR NAME", with no "#N" line of
// another shape (gdb's "#N  0xADDR in NAME (…)").
func sniff(prefix []byte) format.Score {
	headers, frames := 0, 0
	for line := range format.Lines(prefix) {
		switch {
		case len(line) > 1 && line[0] == '#' && line[1] >= '0' && line[1] <= '9':
			if !isFrameLine(line) {
				return format.No
			}
			frames++
		case isPIDLine(line) || isTIDLine(line):
			headers++
		}
	}
	if headers >= 1 && frames >= 1 {
		return format.Sure
	}
	return format.No
}

// isFrameLine: "#N" then spaces, "0x" and hex digits, then the end of
// the line or a space and something else than gdb's "in ".
func isFrameLine(line []byte) bool {
	i := 1
	i += lex.Digits(line[i:])
	j := i
	for j < len(line) && line[j] == ' ' {
		j++
	}
	if j == i || !bytes.HasPrefix(line[j:], []byte("0x")) {
		return false
	}
	j += 2
	k := j
	for k < len(line) && lex.IsLowerHex(line[k]) {
		k++
	}
	if k == j {
		return false
	}
	rest := line[k:]
	return len(rest) == 0 || rest[0] == ' ' && !bytes.HasPrefix(rest, []byte(" in "))
}

// isPIDLine: "PID 1234 - process" or "PID 1234 - core".
func isPIDLine(line []byte) bool {
	d, ok := idLine(line, "PID ")
	return ok && len(d) > 0 && bytes.HasPrefix(line[len("PID ")+len(d):], []byte(" - "))
}

// isTIDLine: "TID 1234:".
func isTIDLine(line []byte) bool {
	d, ok := idLine(line, "TID ")
	return ok && len(d) > 0 && string(line[len("TID ")+len(d):]) == ":"
}
