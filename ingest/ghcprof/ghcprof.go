package ghcprof

import (
	"bytes"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/flags"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the GHC .prof input format.
var Format = format.Format{
	Name:     "ghcprof",
	Replaces: "inferno-collapse-ghcprof",
	Sniff:    sniff,
	Flags: []format.Flag{
		flags.Time,
		{Name: "bytes", Kind: format.Bool, Default: "false", Usage: "ghcprof: weigh by the bytes column, bytes allocated (profiles made with +RTS -P or -pa)"},
		{Name: "ticks", Kind: format.Bool, Default: "false", Usage: "ghcprof: weigh by the ticks column, runtime ticks (profiles made with +RTS -P or -pa)"},
	},
	New: newParser,
}

// source is the column a stack's weight comes from.
type source int

const (
	percentTime source = iota // individual %time, in tenths
	ticks
	bytesCol
)

func newParser(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
	src, n := percentTime, 0
	if opts.Bool("time") {
		n++
	}
	if opts.Bool("ticks") {
		src = ticks
		n++
	}
	if opts.Bool("bytes") {
		src = bytesCol
		n++
	}
	if n > 1 {
		return nil, errors.New("ghcprof: --time, --ticks and --bytes exclude each other")
	}
	return &parser{emit: emit, diag: diag, src: src}, nil
}

// banner is in the first line of a report.
var banner = []byte("Time and Allocation Profiling Report")

// startLine is the header of the call tree, as fields: the ticks and
// bytes columns may follow.
var startLine = [...]string{"COST", "CENTRE", "MODULE", "SRC", "no.", "entries", "%time", "%alloc", "%time", "%alloc"}

// numbersFrom is the index in startLine of the first numeric column
// ("no."): the columns from there on are read from the end of a line.
const numbersFrom = 4

type state int

const (
	seeking     state = iota // looking for the tree's header
	afterHeader              // the (blank) line after it
	inTree
)

type parser struct {
	format.Passed // the lines before the call tree (the report's header, its other tables)
	emit          format.EmitFunc
	diag          *stream.Diag
	src           source

	state  state
	ncols  int // numeric columns in the tree ("no." to the end)
	col    int // the weight's index among them
	seen   bool
	name   string
	lastN  int
	stack  []byte // frames joined by ';', root first
	ends   []int  // ends[d] is len(stack) with frames 0..d
	fields [][]byte
}

func (p *parser) Line(name string, n int, line []byte) error {
	p.name, p.lastN = name, n
	switch p.state {
	case seeking:
		return p.header(name, n, line)
	case afterHeader:
		p.state = inTree
		if len(trimRightSpace(line)) == 0 {
			return nil
		}
	}
	line = trimRightSpace(line)
	if len(line) == 0 || line[0] == '\t' && bytes.Contains(line, banner) {
		// The tree ends at a blank line (or, in concatenated files
		// whose last tree ran to the end, at the next report's banner);
		// another profile may follow.
		p.state = seeking
		p.stack, p.ends = p.stack[:0], p.ends[:0]
		return nil
	}
	return p.row(name, n, line)
}

// header recognises the call tree's header line and finds the weight's
// column in it.
func (p *parser) header(name string, n int, line []byte) error {
	p.fields = fields(p.fields[:0], line)
	if !isStartLine(p.fields) {
		return p.Pass()
	}
	p.seen = true
	p.ncols = len(p.fields) - numbersFrom
	want := "%time"
	switch p.src {
	case ticks:
		want = "ticks"
	case bytesCol:
		want = "bytes"
	}
	p.col = -1
	for i, f := range p.fields[numbersFrom:] {
		if string(f) == want {
			p.col = i
			break
		}
	}
	if p.col < 0 {
		return fmt.Errorf("%s:%d: ghcprof: --%s: the profile has no %s column (run the program with +RTS -P or -pa)", name, n, want, want)
	}
	p.state = afterHeader
	p.stack, p.ends = p.stack[:0], p.ends[:0]
	return nil
}

func isStartLine(f [][]byte) bool {
	if len(f) < len(startLine) {
		return false
	}
	for i, s := range startLine {
		if string(f[i]) != s {
			return false
		}
	}
	return true
}

// row folds one line of the tree: its indentation is its depth, its
// first two fields the cost centre and module, its weight counted from
// the end of the line.
func (p *parser) row(name string, n int, line []byte) error {
	depth := 0
	for depth < len(line) && line[depth] == ' ' {
		depth++
	}
	if depth > len(p.ends) {
		return p.diag.Malformed(name, n, line, fmt.Sprintf("indented %d levels under a line of depth %d", depth, len(p.ends)-1))
	}
	// cost centre, module, then SRC (one field or more, or none) and the numbers.
	cc, mod, val, ok := asciiRow(line[depth:], p.ncols, p.col)
	if !ok {
		p.fields = fields(p.fields[:0], line)
		if len(p.fields) < 2+p.ncols {
			return p.diag.Malformed(name, n, line, fmt.Sprintf("%d fields, expected a cost centre, a module, a source and %d numbers", len(p.fields), p.ncols))
		}
		cc, mod, val = p.fields[0], p.fields[1], p.fields[len(p.fields)-p.ncols+p.col]
	}
	var c fold.Count
	if p.src == percentTime {
		c, ok = tenths(val)
	} else {
		c, ok = whole(val)
	}
	if !ok {
		return p.diag.Malformed(name, n, line, fmt.Sprintf("the cost %q is not a number", val))
	}
	// The stack to this line's parent, then Module.costcentre.
	s := p.stack[:0]
	if depth > 0 {
		s = p.stack[:p.ends[depth-1]]
		s = append(s, ';')
	}
	s = lex.AppendFrame(s, mod)
	s = append(s, '.')
	s = lex.AppendFrame(s, cc)
	p.stack = s
	p.ends = append(p.ends[:depth], len(s))
	return p.emit(s, c)
}

// asciiRow is fields for a row, reading only what the row needs: its
// first two fields (cost centre, module) from the front and its last
// ncols (the numbers, the weight col among them) from the back, the
// SRC between them unread. It says !ok when the row has fewer than
// 2+ncols fields, or a byte that is not ASCII where it reads (a Unicode
// space may split a field there: fields decides).
func asciiRow(line []byte, ncols, col int) (cc, mod, val []byte, ok bool) {
	i := 0
	for k := 0; k < 2; k++ {
		for i < len(line) && lex.IsSpace(line[i]) {
			i++
		}
		start := i
		for ; i < len(line); i++ {
			if c := line[i]; c >= utf8.RuneSelf {
				return nil, nil, nil, false
			} else if lex.IsSpace(c) {
				break
			}
		}
		if k == 0 {
			cc = line[start:i]
		} else {
			mod = line[start:i]
		}
	}
	if len(mod) == 0 {
		return nil, nil, nil, false
	}
	// From the back, down to the module's end: line[i] is a space, so a
	// field read backwards stops after it.
	j := len(line)
	for k := ncols - 1; k >= 0; k-- {
		for j > i && lex.IsSpace(line[j-1]) {
			j--
		}
		if j <= i {
			return nil, nil, nil, false
		}
		end := j
		for {
			c := line[j-1]
			if c >= utf8.RuneSelf {
				return nil, nil, nil, false
			}
			if lex.IsSpace(c) {
				break
			}
			j--
		}
		if k == col {
			val = line[j:end]
		}
	}
	return cc, mod, val, true
}

// tenths reads a percentage as inferno does, in tenths of a percent
// truncated ("97.4" is 974): digits, optionally a point and digits.
func tenths(b []byte) (fold.Count, bool) {
	var n uint64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if i == 18 {
			return fold.Count{}, false // no percentage has so many digits
		}
		n = n*10 + uint64(b[i]-'0')
	}
	if i == 0 && (len(b) < 2 || b[0] != '.') {
		return fold.Count{}, false
	}
	n *= 10
	if i < len(b) {
		if b[i] != '.' {
			return fold.Count{}, false
		}
		frac := b[i+1:]
		for j, ch := range frac {
			if ch < '0' || ch > '9' {
				return fold.Count{}, false
			}
			if j == 0 {
				n += uint64(ch - '0')
			}
		}
		if i == 0 && len(frac) == 0 {
			return fold.Count{}, false
		}
	}
	return fold.Int(n), true
}

// whole reads a tick or byte count: digits.
func whole(b []byte) (fold.Count, bool) {
	if len(b) == 0 {
		return fold.Count{}, false
	}
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return fold.Count{}, false
		}
	}
	c, err := fold.ParseCount(b)
	return c, err == nil
}

func (p *parser) End() error {
	var err error
	if !p.seen {
		err = p.diag.Malformed(p.name, p.lastN, nil, "no cost-centre tree: no header line \"COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc\"")
	}
	p.state, p.seen = seeking, false
	p.stack, p.ends = p.stack[:0], p.ends[:0]
	return err
}

// isSpace is Unicode's White_Space, as Rust's char::is_whitespace (and
// so inferno) has it.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
	}
	return unicode.IsSpace(r)
}

// fields appends the whitespace-separated fields of line to dst.
func fields(dst [][]byte, line []byte) [][]byte {
	start := -1
	for i := 0; i < len(line); {
		c := line[i]
		size := 1
		var sp bool
		if c < utf8.RuneSelf {
			sp = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
		} else {
			var r rune
			r, size = utf8.DecodeRune(line[i:])
			sp = isSpace(r)
		}
		if sp {
			if start >= 0 {
				dst = append(dst, line[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		dst = append(dst, line[start:])
	}
	return dst
}

// trimRightSpace removes trailing white space (a CRLF file's '\r' too).
func trimRightSpace(b []byte) []byte {
	for len(b) > 0 {
		c := b[len(b)-1]
		if c < utf8.RuneSelf {
			if c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' {
				b = b[:len(b)-1]
				continue
			}
			return b
		}
		r, size := utf8.DecodeLastRune(b)
		if !isSpace(r) {
			return b
		}
		b = b[:len(b)-size]
	}
	return b
}

// sniff is Sure on the report's banner ("Time and Allocation Profiling
// Report") opening the input, or on the call tree's header line.
func sniff(prefix []byte) format.Score {
	first := prefix
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	if bytes.Contains(first, banner) {
		return format.Sure
	}
	var f [][]byte
	for line := range format.Lines(prefix) { // fields takes '\r' for a space
		if !bytes.HasPrefix(line, []byte("COST CENTRE")) {
			continue
		}
		if f = fields(f[:0], line); isStartLine(f) {
			return format.Sure
		}
	}
	return format.No
}
