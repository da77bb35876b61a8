package dtrace

import (
	"bytes"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the DTrace input format.
var Format = format.Format{
	Name:     "dtrace",
	Replaces: "stackcollapse.pl",
	Sniff:    sniff,
	Flags: []format.Flag{
		{Name: "includeoffset", Kind: format.Bool, Usage: "dtrace: keep function offsets (+0x…), except the leaf's", Default: "false"},
	},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag, offsets: opts.Bool("includeoffset")}, nil
	},
}

// headerLines is how many lines stackcollapse.pl skips at the start of
// each input: dtrace's "CPU ID FUNCTION:NAME" banner and the probe line.
const headerLines = 3

type parser struct {
	emit    format.EmitFunc
	diag    *stream.Diag
	offsets bool

	// indented is set once a frame of this input came indented, as
	// DTrace prints them (stackindent, 14 spaces by default): a line at
	// column 0 after that is no frame. With -x stackindent=0 the first
	// frame is at column 0 and every line is taken as the Perl takes it.
	indented, seen bool
	// name and start say where the stack being read began.
	name  string
	start int

	// The frames read so far, leaf first: group g's parts (a frame and
	// its inlined callees, "a->b") are parts[groups[g]:groups[g+1]],
	// offsets into arena.
	groups []int32
	parts  []int32 // the end of each part in arena
	stack  []byte
	arena  []byte
}

func (p *parser) Line(name string, n int, line []byte) error {
	if n <= headerLines {
		if n == 1 {
			p.seen, p.indented = false, false
		}
		return nil
	}
	for len(line) > 0 && line[len(line)-1] == '\r' { // bytes.TrimRight(line, "\r")
		line = line[:len(line)-1]
	}
	t := lex.TrimLeft(line)
	if len(t) == 0 {
		return nil
	}
	if lex.IsDigits(t) {
		if len(p.groups) == 0 {
			// stackcollapse.pl prints " COUNT", a line nothing reads back.
			return p.diag.Malformed(name, n, line, "a count with no stack before it")
		}
		c, err := fold.ParseCount(t)
		if err != nil {
			return p.diag.Malformed(name, n, line, err.Error())
		}
		return p.flush(c)
	}
	indented := len(line) > len(t)
	if !p.seen {
		p.seen, p.indented = true, indented
	} else if p.indented && !indented {
		// Not DTrace's: another format's line (a folded stack, a
		// perf script header), or text a D script printed. The Perl
		// takes it for a frame.
		return p.diag.Malformed(name, n, line, "not a frame: a line at column 0 among indented frames")
	}
	if len(p.groups) == 0 {
		p.name, p.start = name, n
	}
	p.addFrame(t)
	return nil
}

// addFrame tidies a frame as stackcollapse.pl does and records it (with
// its inlined parts "a->b", which become "a;b_[i]").
func (p *parser) addFrame(f []byte) {
	if !p.offsets {
		f = trimOffset(f)
	}
	if lex.IndexAny3(f, ':', '-', ';') < 0 {
		// The usual frame: no "::" (no arguments to remove), no "->"
		// (one part), no ';' (kept as it is).
		p.groups = append(p.groups, int32(len(p.parts)))
		if len(f) > 0 && f[0] == 'L' {
			f = f[1:]
		}
		if len(f) == 0 {
			f = []byte("-")
		}
		p.arena = append(p.arena, f...)
		p.parts = append(p.parts, int32(len(p.arena)))
		return
	}
	// Remove arguments from C++ names: "(::…)[(<]…" keeps the "::…" part.
	if i := lex.IndexPair(f, ':', ':'); i >= 0 {
		if j := lastArgStart(f, i); j >= 0 {
			f = f[:j]
		}
	}
	if len(f) == 0 {
		f = []byte("-")
	}
	// unshift @stack, @inline: the frame's parts go in front of the
	// callees read before, in their order; flush puts the groups root
	// first.
	p.groups = append(p.groups, int32(len(p.parts)))
	for k, more := 0, true; more; k++ {
		part := f
		if i := lex.IndexPair(f, '-', '>'); i >= 0 {
			part, f = f[:i], f[i+2:]
		} else {
			more = false
		}
		part = bytes.TrimPrefix(part, []byte("L"))
		if len(part) == 0 {
			part = []byte("-") // ("L" alone was a name; the Perl leaves it empty)
		}
		p.arena = lex.AppendFrame(p.arena, part)
		if k > 0 {
			p.arena = append(p.arena, "_[i]"...)
		}
		p.parts = append(p.parts, int32(len(p.arena)))
	}
}

// lastArgStart is where perl's s/(::.*)[(<].*/$1/ cuts: the last '(' or
// '<' after the first "::" (the .* is greedy).
func lastArgStart(f []byte, colons int) int {
	for j := len(f) - 1; j > colons+1; j-- {
		if f[j] == '(' || f[j] == '<' {
			return j
		}
	}
	return -1
}

// trimOffset removes a trailing "+…" without '+' in it (s/\+[^+]*$//).
func trimOffset(f []byte) []byte {
	if i := bytes.LastIndexByte(f, '+'); i >= 0 {
		return f[:i]
	}
	return f
}

func (p *parser) flush(c fold.Count) error {
	s := p.stack[:0]
	end := int32(len(p.parts))
	for g := len(p.groups) - 1; g >= 0; g-- {
		for k := p.groups[g]; k < end; k++ {
			start := int32(0)
			if k > 0 {
				start = p.parts[k-1]
			}
			if len(s) > 0 {
				s = append(s, ';')
			}
			s = append(s, p.arena[start:p.parts[k]]...)
		}
		end = p.groups[g]
	}
	if p.offsets {
		// The leaf's offset goes, and only the leaf's: the Perl's
		// s/\+[^+]*$// on the joined stack cuts at the last '+' of the
		// whole stack, so a leaf printed without offset
		// ("genunix`segvn_fault") was dropped with its caller's offset
		// (FlameGraph issue 202; inferno trims the leaf frame alone).
		if i := bytes.LastIndexByte(s, '+'); i > bytes.LastIndexByte(s, ';') {
			s = s[:i]
		}
	}
	p.stack = s
	p.reset()
	return p.emit(s, c)
}

func (p *parser) reset() {
	p.groups, p.parts, p.arena = p.groups[:0], p.parts[:0], p.arena[:0]
}

func (p *parser) End() error {
	pending := len(p.groups) > 0
	p.reset()
	p.seen, p.indented = false, false
	if pending {
		// The Perl drops it silently; inferno stops ("Input data ends
		// in the middle of a stack").
		return p.diag.Malformed(p.name, p.start, nil, "a stack with no count after it at the end of the input")
	}
	return nil
}

// sniff is Sure on dtrace's aggregation banner ("CPU     ID
// FUNCTION:NAME") or on frames "module`function+0x…" closed by a count.
func sniff(prefix []byte) format.Score {
	first, _, _ := bytes.Cut(prefix, []byte("\n"))
	if bytes.HasPrefix(bytes.TrimSpace(first), []byte("CPU")) && bytes.Contains(first, []byte("FUNCTION:NAME")) {
		return format.Sure
	}
	ticked, counts, i := 0, 0, -1
	for l := range format.Lines(prefix) {
		i++
		t := bytes.TrimSpace(l)
		switch {
		case len(t) == 0:
		case lex.IsDigits(t) && len(l) > len(t) && (l[0] == ' ' || l[0] == '\t'):
			counts++
		case bytes.IndexByte(t, '`') > 0 && (l[0] == ' ' || l[0] == '\t'):
			ticked++
		default:
			if i >= headerLines {
				return format.No
			}
		}
	}
	if ticked >= 2 && counts >= 1 {
		return format.Sure
	}
	return format.No
}
