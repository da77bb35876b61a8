package stream

import (
	"bytes"
	"io"

	"github.com/pfold/pfold/fold"
)

// EachStack calls fn with the stack, count and line number of every
// well-formed line of the named input, as a FoldedReader reads them, and
// skips malformed lines silently: it is a first pass, and the pass that
// follows reports them. An uncompressed regular file is mapped instead of
// read (see mapLines), so the stack passed to fn is valid only during the
// call. An error from fn ends the reading and is returned. The bytes and
// stacks read are counted in prog, when not nil.
func EachStack(name string, prog *Progress, fn func(stack []byte, c fold.Count, name string, line int) error) error {
	ok, err := mapLines(name, foldedLines(displayName(name), prog, fn))
	if !ok {
		err = readFoldedLines(name, prog, fn)
	}
	return err
}

// foldedLines returns a function of whole lines of the named input, for
// mapLines, that calls take with the stack and count of each well-formed
// line and its number, as a FoldedReader reads them, and counts the
// bytes and then the stacks of each call in prog, when not nil.
func foldedLines(name string, prog *Progress, take func(stack []byte, c fold.Count, name string, line int) error) func([]byte) (bool, error) {
	line := 0
	return func(data []byte) (bool, error) {
		var stacks int64
		defer func(n int) {
			prog.addBytes(int64(n))
			prog.addStacks(stacks)
		}(len(data))
		for len(data) > 0 {
			line++
			text := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				text, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			if IsBlank(text) {
				continue
			}
			stack, c, err := fold.ParseLine(text)
			if err != nil {
				continue
			}
			stacks++
			if err := take(stack, c, name, line); err != nil {
				return true, err
			}
		}
		return false, nil
	}
}

// readFoldedLines is foldedLines of an input read instead of mapped.
func readFoldedLines(name string, prog *Progress, take func(stack []byte, c fold.Count, name string, line int) error) error {
	r := NewReader([]string{name})
	defer r.Close()
	fr := NewFoldedReader(r, NewDiag(io.Discard, false))
	fr.CountInto(prog)
	for fr.Next() {
		if err := take(fr.Stack(), fr.Count(), fr.Name(), fr.Line()); err != nil {
			return err
		}
	}
	return fr.Err()
}
