package ibmjava

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

// Format is the IBM J9 / OpenJ9 javacore input format.
var Format = format.Format{
	Name:     "ibmjava",
	Replaces: "stackcollapse-ibmjava.pl",
	Sniff:    sniff,
	Flags:    javaopts.Thread, // the script's options, as jstack's
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		o, err := javaopts.ReadThread(opts)
		if err != nil {
			return nil, err
		}
		return &parser{emit: emit, tname: o.Tname, tid: o.Tid, shorten: o.Shorten}, nil
	},
}

// The lines the script reads, with their spacing.
var (
	threadInfo  = []byte(`3XMTHREADINFO      "`)
	anonymous   = []byte("3XMTHREADINFO      Anonymous native thread")
	threadInfo1 = []byte("3XMTHREADINFO1            (native thread ID:")
	nativeStack = []byte("3XMTHREADINFO3           Native callstack:")
	stackTrace  = []byte("4XESTACKTRACE                at ")
	statePart   = []byte(" state:")
	priority    = []byte(", native priority")
)

type parser struct {
	format.Passed       // lines that are not a javacore's tagged lines
	emit                format.EmitFunc
	tname, tid, shorten bool

	hasName bool // the script's defined $tname
	name    []byte
	frames  backtrace.Frames // the thread's, leaf first
	stack   []byte

	threads int
}

func (p *parser) Line(name string, n int, line []byte) error {
	if len(line) > 0 && line[0] == '#' {
		return p.Pass()
	}
	line = lex.TrimCR(line)
	switch {
	case bytes.HasPrefix(line, nativeStack):
		return p.flush()
	case bytes.HasPrefix(line, threadInfo) && isThreadHeader(line[len(threadInfo):]):
		if err := p.flush(); err != nil {
			return err
		}
		if p.tname {
			h := line[len(threadInfo):]
			if i := bytes.IndexByte(h, '"'); i >= 0 {
				h = h[:i]
			}
			p.name = append(p.name[:0], h...)
			p.hasName = true
		}
	case bytes.Contains(line, anonymous):
		if err := p.flush(); err != nil {
			return err
		}
		// The script names it whatever --include-tname says.
		p.name = append(p.name[:0], "Anonymous native thread"...)
		p.hasName = true
	case bytes.HasPrefix(line, threadInfo1):
		id := line[len(threadInfo1):]
		i := bytes.Index(id, priority)
		if i < 0 || bytes.IndexByte(id[:i], ' ') >= 0 {
			return nil
		}
		if p.tname && p.tid {
			p.name = append(append(p.name, '-'), id[:i]...)
			p.hasName = true
		}
	case bytes.HasPrefix(line, stackTrace):
		f := line[len(stackTrace):]
		if i := bytes.IndexByte(f, '('); i >= 0 {
			f = f[:i]
		}
		if p.shorten {
			p.frames.Arena = shortenPkgs(p.frames.Arena, f)
		} else {
			p.frames.Arena = append(p.frames.Arena, f...)
		}
		p.frames.End()
	default:
		// A javacore's own lines start with a tag ("1TISIGINFO",
		// "4XESTACKTRACE") or "NULL": the others are passed over.
		if len(line) >= 2 && line[0] >= '0' && line[0] <= '9' && line[1] >= 'A' && line[1] <= 'Z' {
			return nil
		}
		if !bytes.HasPrefix(line, null) && len(lex.TrimLeft(line)) > 0 {
			return p.Pass()
		}
	}
	return nil
}

var null = []byte("NULL")

// isThreadHeader: the rest of `3XMTHREADINFO      "NAME" …, state:S, …`
// matches the script's /"([^"]*).* state:(.*), /.
func isThreadHeader(h []byte) bool {
	i := bytes.Index(h, statePart)
	return i >= 0 && bytes.Contains(h[i+len(statePart):], []byte(", "))
}

// flush ends the current thread: one sample of its stack, its name
// first when it has one.
func (p *parser) flush() error {
	defer func() {
		p.hasName = false
		p.frames.Reset()
	}()
	if !p.hasName && p.frames.Len() == 0 {
		return nil
	}
	p.stack = javaopts.AppendThread(p.stack[:0], p.name, p.hasName, &p.frames)
	p.threads++
	return p.emit(p.stack, fold.Int(1))
}

func (p *parser) End() error { return p.flush() }

func (p *parser) Stats() string { return fmt.Sprintf("%d threads", p.threads) }

// shortenPkgs appends f to dst with its package names cut to their
// first letters. Frames with '.'-separated packages are cut as the
// script cuts them (every run of word characters before Class.method to
// its first); javacore frames, whose packages are separated by '/'
// (java/util/HashMap.put), are cut before the class
// (j/u/HashMap.put). A frame with no package is kept as it is.
func shortenPkgs(dst, f []byte) []byte {
	m := bytes.LastIndexByte(f, '.')
	if m <= 0 || m == len(f)-1 {
		return append(dst, f...)
	}
	cut := -1 // where Class.method starts
	if q := bytes.LastIndexByte(f[:m], '.'); q >= 0 && q+1 < m {
		cut = q + 1
	} else if q < 0 {
		if k := bytes.LastIndexByte(f[:m], '/'); k >= 0 {
			// A hidden class (Foo$$Lambda$21/0x…) is part of the class name.
			if bytes.HasPrefix(f[k+1:], []byte("0x")) {
				if k2 := bytes.LastIndexByte(f[:k], '/'); k2 >= 0 {
					k = k2
				} else {
					k = -1
				}
			}
			if k >= 0 {
				cut = k + 1
			}
		}
	}
	if cut <= 0 {
		return append(dst, f...)
	}
	return append(javaopts.AppendInitials(dst, f[:cut]), f[cut:]...)
}

// sniff is Sure on a javacore: its section lines (0SECTION, 1TISIGINFO)
// or the thread lines the script reads (3XMTHREADINFO, 4XESTACKTRACE).
func sniff(prefix []byte) format.Score {
	for line := range bytes.Lines(prefix) { // the last one too, even cut short
		line = bytes.TrimSuffix(line, []byte("\n"))
		for _, mark := range [][]byte{[]byte("0SECTION       "), []byte("1TISIGINFO     "), threadInfo, []byte("3XMTHREADINFO3           "), stackTrace} {
			if bytes.HasPrefix(line, mark) {
				return format.Sure
			}
		}
	}
	return format.No
}
