package stream

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Diag reports malformed input lines on a writer (standard error): the
// first few verbatim with file:line and the reason, then only a count, so
// a bad multi-GB dump cannot flood the terminal. Nothing is dropped
// silently: Flush prints how many lines were skipped in all.
type Diag struct {
	mu     sync.Mutex // parsers on several goroutines share one Diag
	w      io.Writer
	strict bool
	shown  int
	count  atomic.Int64 // read without the lock, once a line, by drivers
	// Verbatim is how many malformed lines are printed in full.
	Verbatim int
	// Prefix starts every message: the program's name and ": ", as the
	// program's other messages start.
	Prefix string
}

// NewDiag returns a Diag writing to w; with strict, the first malformed
// line is an error.
func NewDiag(w io.Writer, strict bool) *Diag {
	return &Diag{w: w, strict: strict, Verbatim: 10}
}

// SyntaxError is a malformed input line.
type SyntaxError struct {
	Name string // input name
	Line int    // 1-based line number
	Why  string
	Text string // the offending line, shortened when long
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %q", e.Name, e.Line, e.Why, e.Text)
}

// maxShown bounds how much of an offending line is printed.
const maxShown = 200

// Malformed records a malformed line. It returns a *SyntaxError when the
// Diag is strict, nil otherwise (the caller skips the line and goes on).
func (d *Diag) Malformed(name string, line int, text []byte, why string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.count.Add(1)
	t := text
	if len(t) > maxShown {
		t = t[:maxShown]
	}
	e := &SyntaxError{Name: name, Line: line, Why: why, Text: string(t)}
	if d.strict {
		return e
	}
	if d.shown < d.Verbatim {
		d.shown++
		fmt.Fprintf(d.w, "%swarning: %s (line skipped)\n", d.Prefix, e)
	}
	return nil
}

// Shows reports whether the next malformed line would be shown (or
// returned, when strict) with its line number: a reader that must wait to
// learn line numbers (Chunker.DeferLines) need not once it is false.
func (d *Diag) Shows() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.strict || d.shown < d.Verbatim
}

// Skip counts n malformed lines without showing them.
func (d *Diag) Skip(n int) { d.count.Add(int64(n)) }

// Count returns how many malformed lines were recorded.
func (d *Diag) Count() int { return int(d.count.Load()) }

// Flush prints the number of malformed lines not shown verbatim.
func (d *Diag) Flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n := int(d.count.Load()); n > d.shown && !d.strict {
		fmt.Fprintf(d.w, "%swarning: %d more malformed lines skipped (%d in all)\n", d.Prefix, n-d.shown, n)
	}
}
