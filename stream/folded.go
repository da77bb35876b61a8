package stream

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/pfold/pfold/fold"
)

// FoldedReader reads folded lines "stack COUNT" from a Reader. Blank
// lines are skipped; malformed ones (no count, a negative or non-numeric
// count, an empty stack) are reported to a Diag with file:line and
// skipped, or end the reading when the Diag is strict.
//
//	fr := stream.NewFoldedReader(in, diag)
//	for fr.Next() {
//		use(fr.Stack(), fr.Count())
//	}
//	if err := fr.Err(); err != nil { … }
type FoldedReader struct {
	r     *Reader
	m     *mappedLines // in place of r, when mapped
	diag  *Diag
	stack []byte
	count fold.Count
	err   error

	// Lines counts the lines read, Stacks the well-formed ones.
	Lines, Stacks int64

	bad BadLines

	prog    *Progress // counts the stacks too, when not nil
	counted int64     // stacks counted in prog
}

// NotFoldedError is the end of an input of which no line was folded
// text: most likely another format, which Hint names.
type NotFoldedError struct {
	Name    string
	Line    int    // of the first malformed line
	Hint    string // "looks like perf script output: pipe it through pfold first", or ""
	Refused bool   // told by the first line (RefuseInput), the rest unread
	// First is what was wrong with the first malformed line, said when
	// there is no Hint: the error stands for the warnings.
	First *SyntaxError
}

func (e *NotFoldedError) Error() string {
	if e.Refused {
		return fmt.Sprintf("%s: not folded stacks (\"root;...;leaf COUNT\"): %s", e.Name, e.Hint)
	}
	msg := fmt.Sprintf("%s: no line is folded stacks (\"root;...;leaf COUNT\"), from line %d on", e.Name, e.Line)
	if e.Hint != "" {
		msg += ": " + e.Hint
	} else if e.First != nil {
		msg += fmt.Sprintf("; line %d: %s: %q", e.First.Line, e.First.Why, e.First.Text)
	}
	return msg
}

// DescribeInput, when set, names what the first lines of an input that
// is not folded text look like ("perf script output: pipe it through
// pfold first"). The core knows no other format: the CLI sets it.
var DescribeInput func(prefix []byte) string

// RefuseInput, when set, names what an input whose first line it is
// given is for certain, when that is not folded text (an executable, a
// callgrind profile): the reader stops there, even if lines that parse
// as stacks follow ("version: 1" in a callgrind file). The CLI sets it.
var RefuseInput func(firstLine []byte) string

// Refused returns the error for input name when RefuseInput tells from
// its first line that it is not folded text, or nil.
func Refused(name string, firstLine []byte) error {
	if RefuseInput == nil {
		return nil
	}
	if what := RefuseInput(firstLine); what != "" {
		return &NotFoldedError{Name: name, Line: 1, Hint: what, Refused: true}
	}
	return nil
}

// notFoldedPrefix bounds the lines kept to describe such an input.
const notFoldedPrefix = 64 << 10

// NewFoldedReader returns a FoldedReader of r reporting to diag.
func NewFoldedReader(r *Reader, diag *Diag) *FoldedReader {
	return &FoldedReader{r: r, diag: diag}
}

// Next advances to the next well-formed line. It returns false at the end
// of the input or on an error.
func (f *FoldedReader) Next() bool {
	if f.err != nil {
		return false
	}
	if f.bad.Diag == nil {
		if f.diag == nil {
			f.diag = NewDiag(io.Discard, false)
		}
		f.bad.Diag = f.diag
	}
	for f.scan() {
		f.Lines++
		line := f.bytes()
		if IsBlank(line) {
			continue
		}
		if f.Line() == 1 {
			if f.err = Refused(f.Name(), line); f.err != nil {
				return false
			}
		}
		stack, c, err := fold.ParseLine(line)
		if err != nil {
			if err := f.bad.Add(f.Name(), f.Line(), line, err.Error()); err != nil {
				f.err = err
				return false
			}
			continue
		}
		f.bad.Good()
		f.stack, f.count = stack, c
		f.Stacks++
		if f.Stacks-f.counted == stacksBatch {
			f.countStacks()
		}
		return true
	}
	f.countStacks()
	if f.m != nil {
		f.err = f.m.err
	} else {
		f.err = f.r.Err()
	}
	if f.err == nil {
		f.err = f.bad.End()
	}
	return false
}

// CountInto makes f count the bytes and stacks it reads in p, for a
// progress line over several readers. Call it before the first Next.
func (f *FoldedReader) CountInto(p *Progress) {
	f.prog = p
	if f.r != nil {
		f.r.CountInto(p)
	}
	if f.m != nil {
		f.m.prog = p
	}
}

// countStacks adds the stacks read since the last call to the Progress.
func (f *FoldedReader) countStacks() {
	f.prog.addStacks(f.Stacks - f.counted)
	f.counted = f.Stacks
}

// BadLines reports the malformed lines of a reader of folded stacks to
// its Diag, but holds back those met before any good line: when the
// input turns out to have no folded line at all, End's error, which says
// what the input looks like, stands for them all (perf script fed to
// ptop is one error, not ten warnings and an empty report).
type BadLines struct {
	Diag *Diag

	good     bool
	n        int64  // malformed lines
	start    []byte // the first of them, to say what the input is
	name     string
	line     int
	first    SyntaxError // the first, for End's error
	held     []heldLine
	heldMore int // held past what the Diag shows: counted only
}

type heldLine struct {
	name string
	line int
	text []byte
	why  string
}

// Add reports malformed line n of input name. An error ends the
// reading: the Diag is strict.
func (b *BadLines) Add(name string, n int, text []byte, why string) error {
	if b.n == 0 {
		b.name, b.line = name, n
		b.first = SyntaxError{Name: name, Line: n, Why: why, Text: string(text[:min(len(text), maxShown)])}
	}
	b.n++
	if b.good {
		return b.Diag.Malformed(name, n, text, why)
	}
	if len(b.start) < notFoldedPrefix {
		b.start = append(append(b.start, text...), '\n')
	}
	if b.Diag.strict {
		// Strict: the first bad line ends it; say what it is.
		if hint := describeInput(b.start); hint != "" {
			b.Diag.Skip(1)
			return &NotFoldedError{Name: name, Line: n, Hint: hint}
		}
		return b.Diag.Malformed(name, n, text, why)
	}
	if len(b.held) < b.Diag.Verbatim {
		b.held = append(b.held, heldLine{name, n, append([]byte(nil), text...), why})
	} else {
		b.heldMore++
	}
	return nil
}

// Good marks a well-formed line: the lines held back are reported.
func (b *BadLines) Good() {
	if b.good {
		return
	}
	b.good = true
	for _, h := range b.held {
		b.Diag.Malformed(h.name, h.line, h.text, h.why)
	}
	b.Diag.Skip(b.heldMore)
	b.held, b.heldMore, b.start = nil, 0, nil
}

// End returns a *NotFoldedError when malformed lines came and no good
// one: the input is not folded stacks.
func (b *BadLines) End() error {
	if b.good || b.n == 0 {
		return nil
	}
	b.held, b.heldMore = nil, 0 // the error stands for them
	return &NotFoldedError{Name: b.name, Line: b.line, Hint: describeInput(b.start), First: &b.first}
}

func describeInput(prefix []byte) string {
	if DescribeInput == nil {
		return ""
	}
	return DescribeInput(prefix)
}

func (f *FoldedReader) scan() bool {
	if f.m != nil {
		return f.m.scan()
	}
	return f.r.Scan()
}

func (f *FoldedReader) bytes() []byte {
	if f.m != nil {
		return f.m.text
	}
	return f.r.Bytes()
}

// IsBlank reports whether a line of folded text is blank: only spaces,
// tabs and a CRLF's '\r'. Every reader of folded stacks skips such lines.
func IsBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// Stack returns the stack of the current line; it is valid until the
// next call to Next.
func (f *FoldedReader) Stack() []byte { return f.stack }

// Count returns the count of the current line.
func (f *FoldedReader) Count() fold.Count { return f.count }

// Name and Line locate the current line.
func (f *FoldedReader) Name() string {
	if f.m != nil {
		return f.m.name
	}
	return f.r.Name()
}

// Line returns the 1-based line number of the current line in its input.
func (f *FoldedReader) Line() int {
	if f.m != nil {
		return f.m.line
	}
	return f.r.Line()
}

// Strict reports whether a malformed line ends the reading (the Diag is
// strict) instead of being reported and skipped.
func (f *FoldedReader) Strict() bool { return f.diag != nil && f.diag.strict }

// Err returns the first error met: a read error, or a malformed line
// when the Diag is strict.
func (f *FoldedReader) Err() error { return f.err }

// newMappedFoldedReader returns a FoldedReader of the named file mapped
// a window at a time instead of read, with no copy of its bytes, or nil
// when it cannot be mapped (see mapLines). Its stacks are slices of the
// mapping: a file that shrinks meanwhile makes them fault, so they must
// be read under CatchFault. Close unmaps it.
func newMappedFoldedReader(name string, diag *Diag) *FoldedReader {
	if name == "" || name == "-" {
		return nil
	}
	rc, err := openFrom(name, nil)
	if err != nil {
		return nil
	}
	in, _ := rc.(*input)
	var f *os.File
	if in != nil {
		f = mappable(in)
	}
	var st os.FileInfo
	if f != nil {
		st, err = f.Stat()
	}
	if f == nil || err != nil {
		rc.Close()
		return nil
	}
	// Smaller windows than a single pass's: a merge holds two per input.
	window := int64(min(MapWindow, readBufSize))
	m := &mappedLines{rc: rc, f: f, name: displayName(name), size: st.Size(), window: window}
	return &FoldedReader{m: m, diag: diag}
}

// mappedLines splits a mapped file into lines, as Reader does a read one.
// A window stays mapped until the one after the next is: a line stays
// valid past the next call to scan.
type mappedLines struct {
	rc     io.Closer
	f      *os.File
	name   string
	size   int64
	pos    int64 // file offset where data ends
	window int64
	cur    []byte // the mapped window data is in
	old    []byte // the window before it
	data   []byte // the rest of the lines of cur
	text   []byte
	line   int
	err    error
	prog   *Progress // counts the windows mapped, when not nil
}

func (m *mappedLines) scan() bool {
	for len(m.data) == 0 {
		if m.pos >= m.size || m.err != nil {
			return false
		}
		page := int64(os.Getpagesize())
		start := m.pos &^ (page - 1)
		end := min(start+m.window, m.size)
		mem, err := mapFile(m.f, start, int(end-start))
		if err != nil {
			m.err = fmt.Errorf("%s: %w", m.name, err)
			return false
		}
		data := mem[m.pos-start:]
		if end < m.size { // the last line goes whole into the next window
			cut := bytes.LastIndexByte(data, '\n')
			if cut < 0 {
				unmapFile(mem)
				m.window *= 2
				continue
			}
			data = data[:cut+1]
		}
		if m.old != nil {
			unmapFile(m.old)
		}
		m.old, m.cur, m.data = m.cur, mem, data
		m.pos += int64(len(data))
		m.prog.addBytes(int64(len(data)))
	}
	m.line++
	if i := bytes.IndexByte(m.data, '\n'); i >= 0 {
		m.text, m.data = m.data[:i], m.data[i+1:]
	} else {
		m.text, m.data = m.data, nil
	}
	return true
}

// Close unmaps the file of a FoldedReader from newMappedFoldedReader
// and closes it; it does nothing to others, whose Reader the caller
// closes.
func (f *FoldedReader) Close() error {
	m := f.m
	if m == nil || m.rc == nil {
		return nil
	}
	for _, mem := range [][]byte{m.old, m.cur} {
		if mem != nil {
			unmapFile(mem)
		}
	}
	m.old, m.cur, m.data, m.text = nil, nil, nil, nil
	err := m.rc.Close()
	m.rc = nil
	return err
}
