package stream

import (
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
	diag  *Diag
	stack []byte
	count fold.Count
	err   error

	// Lines counts the lines read, Stacks the well-formed ones.
	Lines, Stacks int64
}

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
	for f.r.Scan() {
		f.Lines++
		line := f.r.Bytes()
		if isBlank(line) {
			continue
		}
		stack, c, err := fold.ParseLine(line)
		if err != nil {
			if err := f.diag.Malformed(f.r.Name(), f.r.Line(), line, err.Error()); err != nil {
				f.err = err
				return false
			}
			continue
		}
		f.stack, f.count = stack, c
		f.Stacks++
		return true
	}
	f.err = f.r.Err()
	return false
}

func isBlank(line []byte) bool {
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
func (f *FoldedReader) Name() string { return f.r.Name() }

// Line returns the 1-based line number of the current line in its input.
func (f *FoldedReader) Line() int { return f.r.Line() }

// Err returns the first error met: a read error, or a malformed line
// when the Diag is strict.
func (f *FoldedReader) Err() error { return f.err }
