package jstack

import (
	"bytes"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
	"github.com/pfold/pfold/ingest/internal/javaopts"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the jstack thread dump input format.
var Format = format.Format{
	Name:     "jstack",
	Replaces: "stackcollapse-jstack.pl",
	Sniff:    sniff,
	Flags:    javaopts.Thread, // the script's options, as ibmjava's
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		o, err := javaopts.ReadThread(opts)
		if err != nil {
			return nil, err
		}
		return &parser{emit: emit, diag: diag, tname: o.Tname, tid: o.Tid, shorten: o.Shorten}, nil
	},
}

// state is the script's $state: unknown until the thread's
// "java.lang.Thread.State:" line, then RUNNABLE or anything else (which
// includes the script's own BACKGROUND, WAITING and NETWORK).
type state uint8

const (
	unknown state = iota
	runnable
	other
)

type parser struct {
	format.Passed          // comment lines
	emit                   format.EmitFunc
	diag                   *stream.Diag
	tname, tid, shorten    bool
	hasName                bool // a thread name is pending (the script's defined $tname)
	name                   []byte
	st                     state
	frames                 backtrace.Frames // the current thread's, leaf first
	stack                  []byte
	threads, kept, skipped int
}

var (
	atPrefix     = []byte("at ")
	statePrefix  = []byte("java.lang.Thread.State: ")
	compilerName = []byte(" CompilerThread")
)

func (p *parser) Line(name string, n int, line []byte) error {
	if len(line) > 0 && line[0] == '#' {
		return p.Pass() // the script skips comment lines
	}
	line = lex.TrimCR(line)
	rest := lex.TrimLeft(line)
	if len(rest) == 0 {
		return p.endThread()
	}
	if line[0] == '"' {
		if err := p.endThread(); err != nil {
			return err
		}
		p.header(line[1:])
		return nil
	}
	if i := bytes.Index(line, statePrefix); i >= 0 && i+len(statePrefix) < len(line) && !lex.IsSpace(line[i+len(statePrefix)]) {
		if p.st == unknown {
			s := line[i+len(statePrefix):]
			j := 0
			for j < len(s) && !lex.IsSpace(s[j]) {
				j++
			}
			if string(s[:j]) == "RUNNABLE" {
				p.st = runnable
			} else {
				p.st = other
			}
		}
		return nil
	}
	if bytes.HasPrefix(rest, atPrefix) {
		f := rest[len(atPrefix):]
		if i := bytes.IndexByte(f, '('); i >= 0 {
			f = f[:i]
		}
		p.frame(f)
		return nil
	}
	if rest[0] == '-' || skipped(line, rest) {
		return nil
	}
	return p.diag.Malformed(name, n, line, "not a line of a jstack thread dump")
}

// header reads a thread's header line (after its opening quote).
func (p *parser) header(h []byte) {
	name := h
	if i := bytes.IndexByte(h, '"'); i >= 0 {
		name = h[:i]
	}
	p.threads++
	if p.tname {
		t := name
		if !p.tid {
			t = trimNumber(t)
		}
		p.name = append(p.name[:0], t...)
		p.hasName = true
	}
	if isBackground(name) {
		p.st = other
	}
}

// isBackground reports the script's BACKGROUND threads: /C. CompilerThread/,
// Signal Dispatcher, Service Thread, Attach Listener.
func isBackground(name []byte) bool {
	for off := 0; ; {
		i := bytes.Index(name[off:], compilerName)
		if i < 0 {
			break
		}
		i += off
		if i >= 2 && name[i-2] == 'C' {
			return true
		}
		off = i + 1
	}
	return bytes.Contains(name, []byte("Signal Dispatcher")) ||
		bytes.Contains(name, []byte("Service Thread")) ||
		bytes.Contains(name, []byte("Attach Listener"))
}

// trimNumber removes a trailing "-123" (s/-\d+$//).
func trimNumber(t []byte) []byte {
	i := len(t)
	for i > 0 && t[i-1] >= '0' && t[i-1] <= '9' {
		i--
	}
	if i < len(t) && i > 0 && t[i-1] == '-' {
		return t[:i-1]
	}
	return t
}

// frame records one "at" frame (leaf first, as read) and applies the
// script's idle fixes.
func (p *parser) frame(f []byte) {
	if p.st == other {
		return // never counted: nothing turns it back to RUNNABLE
	}
	if p.shorten {
		p.frames.Arena = shortenPkgs(p.frames.Arena, f)
	} else {
		p.frames.Arena = append(p.frames.Arena, f...)
	}
	p.frames.End()
	if isIdle(p.frames.Frame(p.frames.Len() - 1)) {
		p.st = other
	}
}

// isIdle is the script's list of RUNNABLE frames that are not running:
// /epollWait/, /EPoll\.wait/, /socketAccept$/, /Socket.*accept0$/,
// /socketRead0$/.
func isIdle(f []byte) bool {
	if bytes.Contains(f, []byte("epollWait")) || bytes.Contains(f, []byte("EPoll.wait")) {
		return true
	}
	if bytes.HasSuffix(f, []byte("socketAccept")) || bytes.HasSuffix(f, []byte("socketRead0")) {
		return true
	}
	if bytes.HasSuffix(f, []byte("accept0")) {
		if i := bytes.Index(f, []byte("Socket")); i >= 0 && i+len("Socket") <= len(f)-len("accept0") {
			return true
		}
	}
	return false
}

// endThread ends the current thread (at an empty line): a RUNNABLE one
// is one sample of its stack, the thread's name first (when kept) and
// then its frames from the outermost.
func (p *parser) endThread() error {
	defer p.reset()
	if p.st != runnable {
		if p.st == other {
			p.skipped++
		}
		return nil
	}
	if !p.hasName && p.frames.Len() == 0 {
		return nil // nothing to name it by (the script prints nothing either)
	}
	p.stack = javaopts.AppendThread(p.stack[:0], p.name, p.hasName, &p.frames)
	p.kept++
	return p.emit(p.stack, fold.Int(1))
}

func (p *parser) reset() {
	p.hasName = false
	p.st = unknown
	p.frames.Reset()
}

func (p *parser) End() error { return p.endThread() }

func (p *parser) Stats() string {
	return fmt.Sprintf("%d threads: %d RUNNABLE folded, %d skipped (not RUNNABLE, VM service threads, idle in epoll or socket calls)", p.threads, p.kept, p.skipped)
}

// skipped reports the lines a thread dump holds besides threads: those
// the script skips (lock lines "- …", the date, "Full thread dump",
// "JNI global references:") and those it warns about though every
// HotSpot dump has them.
func skipped(line, rest []byte) bool {
	switch {
	case len(line) >= 5 && line[0] == '2' && isDigit(line[1]) && isDigit(line[2]) && isDigit(line[3]) && line[4] == '-':
		return true
	case bytes.HasPrefix(line, []byte("Full thread dump")),
		bytes.HasPrefix(line, []byte("JNI global ref")), // "references:" (JDK 8), "refs:" (JDK 11+)
		bytes.HasPrefix(line, []byte("Threads class SMR info:")),
		bytes.HasPrefix(line, []byte("_java_thread_list=")),
		bytes.HasPrefix(line, []byte("0x")),
		string(rest) == "}",
		bytes.HasPrefix(rest, []byte("Locked ownable synchronizers:")),
		string(rest) == "No compile task",
		bytes.HasPrefix(rest, []byte("Compiling:")),
		// The deadlock report.
		bytes.HasPrefix(line, []byte("Found one Java-level deadlock")),
		bytes.HasPrefix(line, []byte("Found ")) && bytes.Contains(line, []byte(" deadlock")),
		bytes.HasPrefix(line, []byte("Java stack information for the threads listed above")),
		bytes.HasPrefix(rest, []byte("waiting to lock ")),
		bytes.HasPrefix(rest, []byte("waiting for ownable synchronizer ")),
		bytes.HasPrefix(rest, []byte("which is held by ")),
		allByte(rest, '='):
		return true
	}
	// jcmd's first line: the pid and a colon.
	if rest[len(rest)-1] == ':' && lex.IsDigits(rest[:len(rest)-1]) {
		return true
	}
	return false
}

// shortenPkgs appends f to dst with its package names cut to their
// first letters, as the script's --shorten-pkgs does: the last two
// dot-separated parts (Class.method) are kept and every run of word
// characters before them is cut to its first ("java.util.concurrent."
// → "j.u.c."). A frame with fewer than two dots has no package: it is
// kept as it is (the script makes it empty).
func shortenPkgs(dst, f []byte) []byte {
	m := bytes.LastIndexByte(f, '.')
	if m <= 0 || m == len(f)-1 {
		return append(dst, f...)
	}
	q := bytes.LastIndexByte(f[:m], '.')
	if q < 0 || q+1 == m {
		return append(dst, f...)
	}
	return append(javaopts.AppendInitials(dst, f[:q+1]), f[q+1:]...)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allByte(b []byte, c byte) bool {
	for _, x := range b {
		if x != c {
			return false
		}
	}
	return len(b) > 0
}

// sniff is Sure on a HotSpot thread dump: its "Full thread dump" line,
// or a thread header line ("NAME" …) followed by its
// "java.lang.Thread.State:" line.
func sniff(prefix []byte) format.Score {
	prevHeader := false
	for line := range bytes.Lines(prefix) { // the last one too, even cut short
		line = bytes.TrimSuffix(line, []byte("\n"))
		if bytes.HasPrefix(line, []byte("Full thread dump ")) {
			return format.Sure
		}
		if prevHeader && bytes.HasPrefix(lex.TrimLeft(line), statePrefix) && len(line) > len(lex.TrimLeft(line)) {
			return format.Sure
		}
		prevHeader = len(line) > 2 && line[0] == '"' && bytes.IndexByte(line[1:], '"') >= 0
	}
	return format.No
}
