package javaexceptions

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
	"github.com/pfold/pfold/ingest/internal/javaopts"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the Java exceptions input format.
var Format = format.Format{
	Name:     "java-exceptions",
	Replaces: "stackcollapse-java-exceptions.pl",
	Sniff:    sniff,
	Flags: slices.Concat(javaopts.ShortenPkgs, []format.Flag{
		{Name: "no-pkgs", Kind: format.Bool, Default: "false", Usage: "java-exceptions: leave package names out (Class.method alone)"},
	}),
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return newParser(opts, emit, diag, true)
	},
}

func newParser(opts format.Options, emit format.EmitFunc, diag *stream.Diag, fixes bool) (*parser, error) {
	short, err := javaopts.Negatable(opts, "shorten-pkgs", false)
	if err != nil {
		return nil, err
	}
	return &parser{emit: emit, shorten: short, noPkgs: opts.Bool("no-pkgs"), restore: fixes, keepLocks: fixes, encl: -1}, nil
}

// maxDepth bounds how deep suppressed exceptions nest (one tab a level)
// for "... N more": deeper ones are read as new traces.
const maxDepth = 32

type parser struct {
	format.Passed   // the log's other lines, and each trace's message line
	emit            format.EmitFunc
	shorten, noPkgs bool
	// restore and keepLocks are pfold's fixes of the script ("... N
	// more" frames, lock lines); the tests turn them off to compare
	// with the script.
	restore, keepLocks bool

	cur         backtrace.Frames   // the trace being read, leaf first
	depth, encl int                // cur's nesting (tabs) and the level it shares frames with (-1: none)
	levels      []backtrace.Frames // levels[d]: the whole trace last read at depth d
	nlevels     int
	stack       []byte
	tmp         []byte

	traces, restored int
}

var atPrefix = []byte("at ")

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimCR(line)
	rest := lex.TrimLeft(line)
	if bytes.HasPrefix(rest, atPrefix) {
		f := rest[len(atPrefix):]
		if i := bytes.IndexByte(f, '('); i >= 0 {
			f = f[:i]
		}
		p.addFrame(f)
		return nil
	}
	if p.cur.Len() > 0 {
		if bytes.Contains(line, []byte("waiting on ")) {
			return nil // a thread dump's lock line, as the script skips it
		}
		if p.keepLocks && isLockLine(rest) {
			return nil
		}
		more, isMore := moreLine(rest)
		if isMore && p.restore {
			p.restoreFrames(more)
		}
		if err := p.flush(); err != nil {
			return err
		}
		if !isMore && !p.header(line) {
			return p.Pass()
		}
		return nil
	}
	if p.restore {
		if more, isMore := moreLine(rest); isMore && p.encl >= 0 {
			// A trace whose frames are all in common with the one
			// enclosing it ("Caused by: …" then "... 4 more").
			p.restoreFrames(more)
			return p.flush()
		}
	}
	if !p.header(line) {
		// A line of the log, or the message of the exception whose
		// frames follow: the run of lines passed over ends there.
		return p.Pass()
	}
	return nil
}

func (p *parser) addFrame(f []byte) {
	if !p.shorten && !p.noPkgs {
		p.cur.Add(f)
		return
	}
	if p.noPkgs {
		p.cur.Add(classMethod(f))
		return
	}
	p.tmp = shortenPkgs(p.tmp[:0], f)
	p.cur.Add(p.tmp)
}

// header notes what the line that starts the next trace says of its
// nesting: "Caused by: " shares frames with the trace last read at its
// depth, "\tSuppressed: " with the one a level up; any other line
// starts afresh. It reports whether the line was one of those two.
func (p *parser) header(line []byte) (nested bool) {
	tabs := 0
	for tabs < len(line) && line[tabs] == '\t' {
		tabs++
	}
	r := line[tabs:]
	switch {
	case tabs <= maxDepth && bytes.HasPrefix(r, []byte("Caused by: ")):
		p.depth, p.encl, nested = tabs, tabs, true
	case tabs <= maxDepth && bytes.HasPrefix(r, []byte("Suppressed: ")):
		p.depth, p.encl, nested = tabs, tabs-1, true
	default:
		p.depth, p.encl, p.nlevels = 0, -1, 0
	}
	if p.encl >= p.nlevels {
		p.encl = -1
	}
	return nested
}

// restoreFrames appends to the current trace, as its outermost frames,
// the last n frames of the trace it shares them with.
func (p *parser) restoreFrames(n int) {
	if p.encl < 0 || p.encl >= p.nlevels {
		return
	}
	e := &p.levels[p.encl]
	if n <= 0 || n > e.Len() {
		return
	}
	for i := e.Len() - n; i < e.Len(); i++ {
		p.cur.Add(e.Frame(i))
	}
	p.restored++
}

// flush emits the current trace, root first, and keeps it whole as the
// trace its causes and suppressed exceptions share frames with.
func (p *parser) flush() error {
	if p.cur.Len() == 0 {
		return nil
	}
	s := p.cur.AppendStack(p.stack[:0])
	if len(s) == 0 {
		s = append(s, '-') // one frame with no name ("at (…)"): "" is no stack
	}
	p.stack = s
	p.traces++
	err := p.emit(s, fold.Int(1))
	if p.restore {
		d := p.depth
		for len(p.levels) <= d {
			p.levels = append(p.levels, backtrace.Frames{})
		}
		p.levels[d], p.cur = p.cur, p.levels[d]
		p.nlevels = d + 1
	}
	p.cur.Reset()
	return err
}

func (p *parser) End() error {
	err := p.flush()
	p.depth, p.encl, p.nlevels = 0, -1, 0
	return err
}

func (p *parser) Stats() string {
	return fmt.Sprintf("%d stack traces, %d completed from \"... N more\"", p.traces, p.restored)
}

// moreLine reads "... N more" (Throwable.printStackTrace) or "... N
// common frames omitted" (logback).
func moreLine(rest []byte) (int, bool) {
	r, ok := bytes.CutPrefix(rest, []byte("... "))
	if !ok {
		return 0, false
	}
	n, i := 0, 0
	for i < len(r) && r[i] >= '0' && r[i] <= '9' && i < 9 {
		n = n*10 + int(r[i]-'0')
		i++
	}
	if i == 0 {
		return 0, false
	}
	switch string(bytes.TrimRight(r[i:], " \t")) {
	case " more", " common frames omitted":
		return n, true
	}
	return 0, false
}

// isLockLine reports the lock lines of thread dumps (jstack: "- locked
// <0x…>", ThreadInfo.toString: "-  blocked on …"), which sit between
// one thread's frames.
func isLockLine(rest []byte) bool {
	if len(rest) == 0 || rest[0] != '-' {
		return false
	}
	r := lex.TrimLeft(rest[1:])
	for _, w := range []string{"locked ", "waiting to lock ", "waiting to re-lock ", "parking to wait for ", "blocked on ", "eliminated "} {
		if bytes.HasPrefix(r, []byte(w)) {
			return true
		}
	}
	return false
}

// classMethod is --no-pkgs: the last two dot-separated parts of f; f
// as it is when it has no package.
func classMethod(f []byte) []byte {
	m := bytes.LastIndexByte(f, '.')
	if m <= 0 || m == len(f)-1 {
		return f
	}
	q := bytes.LastIndexByte(f[:m], '.')
	if q < 0 || q+1 == m {
		return f
	}
	return f[q+1:]
}

// shortenPkgs appends f to dst with its package names cut to their
// first letters, as the script's --shorten-pkgs does: every run of word
// characters before Class.method is cut to its first. A frame with no
// package is kept as it is (the script makes it empty).
func shortenPkgs(dst, f []byte) []byte {
	cm := classMethod(f)
	if len(cm) == len(f) {
		return append(dst, f...)
	}
	return append(javaopts.AppendInitials(dst, f[:len(f)-len(cm)]), cm...)
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// sniff is Sure on a Java exception in a log: a line naming an
// exception (java.io.IOException: …, Caused by: …, Exception in thread
// …) followed by its first "at" frame. A thread dump (jstack's format)
// is not taken for one.
func sniff(prefix []byte) format.Score {
	var prev []byte
	found := false
	for line := range bytes.Lines(prefix) { // the last one too, even cut short
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = lex.TrimCR(line)
		if bytes.Contains(line, []byte("java.lang.Thread.State: ")) || bytes.HasPrefix(line, []byte("Full thread dump ")) {
			return format.No
		}
		if !found && prev != nil && len(line) > 0 && lex.IsSpace(line[0]) && isFrame(lex.TrimLeft(line)) && isException(prev) {
			found = true
		}
		prev = line
	}
	if found {
		return format.Sure
	}
	return format.No
}

// isFrame: "at pkg.Class.method(" as StackTraceElement prints it.
func isFrame(rest []byte) bool {
	f, ok := bytes.CutPrefix(rest, atPrefix)
	if !ok {
		return false
	}
	i := bytes.IndexByte(f, '(')
	return i > 0 && bytes.IndexByte(f[:i], '.') > 0 && !bytes.ContainsAny(f[:i], " \t;") && bytes.HasSuffix(f, []byte(")"))
}

// isException: the line a printed exception starts with.
func isException(line []byte) bool {
	r := lex.TrimLeft(line)
	for _, p := range []string{"Caused by: ", "Suppressed: ", "Exception in thread "} {
		if bytes.HasPrefix(r, []byte(p)) {
			return true
		}
	}
	// A class name: dotted Java identifiers, the last ending in
	// Exception, Error or Throwable, then ':' or the end.
	end := len(r)
	if i := bytes.IndexByte(r, ':'); i >= 0 {
		end = i
	}
	name := r[:end]
	if len(name) == 0 || bytes.IndexByte(name, '.') < 0 {
		return false
	}
	for _, c := range name {
		if !isWord(c) && c != '.' && c != '$' {
			return false
		}
	}
	last := name[bytes.LastIndexByte(name, '.')+1:]
	return bytes.HasSuffix(last, []byte("Exception")) || bytes.HasSuffix(last, []byte("Error")) || bytes.HasSuffix(last, []byte("Throwable"))
}
