package gdb

import (
	"bytes"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the gdb backtrace format.
var Format = format.Format{
	Name:     "gdb",
	Replaces: "stackcollapse-gdb.pl",
	Sniff:    sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

type parser struct {
	format.Passed // gdb's other output, and the program's
	emit          format.EmitFunc
	diag          *stream.Diag

	frames backtrace.Frames
	stack  []byte
}

// gdb's "bt full" prints these unindented, after a frame's locals.
var (
	noLocals = []byte("No locals.")
	noSymtab = []byte("No symbol table info available.")
)

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimCR(line)
	if len(line) == 0 {
		return p.flush()
	}
	switch line[0] {
	case '#':
		rest, level, ok := frameLevel(line)
		if !ok {
			p.Pass()
			return p.flush()
		}
		if level == 0 {
			if err := p.flush(); err != nil {
				return err
			}
		}
		f, lib := frameName(rest)
		if len(f) == 0 {
			return p.diag.Malformed(name, n, line, "a gdb frame without a function name")
		}
		p.addFrame(f, lib)
		return nil
	case ' ', '\t':
		if p.frames.Len() == 0 {
			return p.Pass() // not under a frame
		}
		return nil // "bt full": a local of the frame above; or the rest of a wrapped frame
	}
	if bytes.Equal(line, noLocals) || bytes.Equal(line, noSymtab) {
		return nil // "bt full": a frame without locals or debug information
	}
	if !ownLine(line) {
		p.Pass() // other text: the program's, or what gdb prints at a stop
	}
	return p.flush()
}

// ownLine reports whether line, not a frame, is one of the lines gdb
// prints around backtraces: a thread's header ("Thread 2 (Thread 0x7f…
// (LWP 4243) "worker"):") or a message in brackets ("[New LWP 4243]",
// "[Inferior 1 (process 4242) detached]").
func ownLine(line []byte) bool {
	last := line[len(line)-1]
	return line[0] == '[' && last == ']' || last == ':' && bytes.HasPrefix(line, []byte("Thread ")) && bytes.HasSuffix(line, []byte("):"))
}

// frameLevel reads "#N" and the spaces after it; rest is what follows.
func frameLevel(line []byte) (rest []byte, level int, ok bool) {
	i := 1
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		if level < 1<<20 {
			level = level*10 + int(line[i]-'0')
		}
		i++
	}
	if i == 1 || i == len(line) || line[i] != ' ' {
		return nil, 0, false
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return line[i:], level, true
}

// frameName returns the function name of a frame line's text after its
// level: "0x… in NAME (ARGS) at FILE:LINE", "NAME (ARGS) at FILE:LINE",
// "0x… in NAME (ARGS) from LIB" or "<signal handler called>". For a
// missing symbol ("??") it returns the base name of the library gdb names
// ("from /lib/…/libc.so.6"), and lib true, or "[unknown]". The result
// aliases rest or a static name.
func frameName(rest []byte) (f []byte, lib bool) {
	if len(rest) > 2 && rest[0] == '0' && rest[1] == 'x' {
		i := 2
		for i < len(rest) && lex.IsHex(rest[i]) {
			i++
		}
		if bytes.HasPrefix(rest[i:], []byte(" in ")) {
			rest = rest[i+4:]
		}
	} else if bytes.HasPrefix(rest, []byte("<unavailable> in ")) {
		rest = rest[len("<unavailable> in "):]
	}
	end := nameEnd(rest)
	f = bytes.TrimRight(rest[:end], " ")
	if !bytes.Equal(f, []byte("??")) {
		return f, false
	}
	after := rest[end:]
	i := bytes.LastIndex(after, []byte(") from "))
	if i < 0 {
		return unknown, false
	}
	f = after[i+len(") from "):]
	if j := bytes.LastIndexByte(f, '/'); j >= 0 {
		f = f[j+1:]
	}
	if len(f) == 0 {
		return unknown, false
	}
	return f, true
}

var unknown = []byte("[unknown]")

// nameEnd returns where the function name in s ends: at the " (" that
// opens gdb's argument list, outside (), <>, [] and {}. Operators whose
// names hold brackets (operator<, operator>>=, operator->) and the arrow
// "->" are not brackets. Without such a " (", the name is all of s
// ("<signal handler called>"), or, when its brackets do not balance, what
// comes before the first " (".
func nameEnd(s []byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		for i < len(s) && !special[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		switch c := s[i]; c {
		case '(', '<', '[', '{':
			if c == '(' && depth == 0 && i > 0 && s[i-1] == ' ' {
				return i - 1
			}
			depth++
		case ')', ']', '}':
			depth--
		case '>':
			if i > 0 && s[i-1] == '-' {
				continue // an arrow: "fn() -> int", "operator->"
			}
			depth--
		case 'o':
			if bytes.HasPrefix(s[i:], operator) && (i == 0 || !isIdent(s[i-1])) {
				j := i + len(operator)
				if j < len(s) && isIdent(s[j]) {
					continue // "operators", "operator_x": an identifier
				}
				for j < len(s) && isOperatorChar(s[j]) {
					j++
				}
				i = j - 1
			}
		}
	}
	if depth == 0 {
		return len(s)
	}
	if i := bytes.Index(s, []byte(" (")); i >= 0 {
		return i
	}
	return len(s)
}

var operator = []byte("operator")

// special marks the bytes nameEnd looks at.
var special = [256]bool{'(': true, '<': true, '[': true, '{': true, ')': true, ']': true, '}': true, '>': true, 'o': true}

func isOperatorChar(c byte) bool {
	switch c {
	case '<', '>', '=', '!', '+', '-', '*', '/', '%', '^', '&', '|', '~', ',':
		return true
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// addFrame records frame f, as "[f]" when lib.
func (p *parser) addFrame(f []byte, lib bool) {
	a := p.frames.Arena
	if lib {
		a = append(a, '[')
	}
	a = lex.AppendFrame(a, f)
	if lib {
		a = append(a, ']')
	}
	p.frames.Arena = a
	p.frames.End()
}

// flush emits the pending stack, root first, with a count of 1.
func (p *parser) flush() error {
	if p.frames.Len() == 0 {
		return nil
	}
	p.stack = p.frames.AppendStack(p.stack[:0])
	p.frames.Reset()
	return p.emit(p.stack, fold.Int(1))
}

func (p *parser) End() error { return p.flush() }

// sniff is Sure on gdb backtrace lines: frames "#N  0x… in NAME …" or
// "#N  NAME (…) at FILE:LINE", under a "Thread N (…):" header or two of
// them at least, and no eu-stack frame ("#N  0x… NAME") among them.
func sniff(prefix []byte) format.Score {
	threads, frames := 0, 0
	for line := range format.Lines(prefix) {
		switch {
		case len(line) > 1 && line[0] == '#' && line[1] >= '0' && line[1] <= '9':
			switch frameShape(line) {
			case gdbFrame:
				frames++
			case otherFrame:
				return format.No
			}
		case isThreadHeader(line):
			threads++
		}
	}
	if frames >= 2 || frames >= 1 && threads >= 1 {
		return format.Sure
	}
	return format.No
}

const (
	gdbFrame = iota
	maybeFrame
	otherFrame
)

// frameShape tells a gdb frame line from another "#N" line. A gdb line
// cut by gdb's line wrapping (a terminal's width; never with -batch) is
// maybeFrame when it has no other mark.
func frameShape(line []byte) int {
	rest, _, ok := frameLevel(line)
	if !ok || len(rest) == 0 {
		return otherFrame
	}
	if rest[0] == '<' {
		if bytes.HasSuffix(rest, []byte(">")) || bytes.HasPrefix(rest, []byte("<unavailable> in ")) {
			return gdbFrame
		}
		return otherFrame
	}
	if len(rest) > 2 && rest[0] == '0' && rest[1] == 'x' {
		i := 2
		for i < len(rest) && lex.IsHex(rest[i]) {
			i++
		}
		if i > 2 && bytes.HasPrefix(rest[i:], []byte(" in ")) {
			return gdbFrame
		}
		return otherFrame // eu-stack: "#0  0x00007f… pause"
	}
	// No address: an inlined frame, or one at the start of a line.
	j := bytes.LastIndex(rest, []byte(") at "))
	if j < 0 || !bytes.Contains(rest[:j], []byte(" (")) {
		return maybeFrame
	}
	loc := rest[j+len(") at "):]
	k := bytes.LastIndexByte(loc, ':')
	if k > 0 && k < len(loc)-1 && lex.IsDigits(loc[k+1:]) {
		return gdbFrame
	}
	return maybeFrame
}

// isThreadHeader: "Thread 2 (Thread 0x7f… (LWP 1234) "name"):" or
// "Thread 1 (process 1234):".
func isThreadHeader(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("Thread ")) {
		return false
	}
	rest := line[len("Thread "):]
	i := lex.Digits(rest)
	return i > 0 && bytes.HasPrefix(rest[i:], []byte(" (")) && bytes.HasSuffix(rest, []byte("):"))
}
