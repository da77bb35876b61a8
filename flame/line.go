package flame

import (
	"bytes"
	"errors"

	"github.com/pfold/pfold/fold"
)

// ParseLine parses a folded line with one count, "stack COUNT", or with
// two, "stack BEFORE AFTER" as pdiff and difffolded.pl write them for
// differential graphs; diff reports which. With one count, before
// equals after. Like flamegraph.pl, a stack whose last frame ends in a
// blank and a number is read as differential, and only one blank is
// taken before a count, so a leaf named " " (a missing JavaScript
// symbol) survives "a;  3". The stack aliases line.
func ParseLine(line []byte) (stack []byte, before, after fold.Count, diff bool, err error) {
	stack, after, err = fold.ParseLine(line)
	if err != nil {
		return nil, fold.Count{}, fold.Count{}, false, err
	}
	if i := lastBlank(stack); i > 0 {
		if b, err := fold.ParseCount(stack[i+1:]); err == nil && len(bytes.TrimSpace(stack[:i])) > 0 {
			stack, before, diff = stack[:i], b, true
		}
	}
	if !diff {
		before = after
	}
	if bytes.IndexByte(stack, 0) >= 0 || bytes.IndexByte(stack, keySep) >= 0 {
		return nil, fold.Count{}, fold.Count{}, false, errors.New("stack holds a control byte 0x00 or 0x01")
	}
	return stack, before, after, diff, nil
}

// lastBlank returns the index of the last space or tab in b, or -1.
func lastBlank(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ' ' || b[i] == '\t' {
			return i
		}
	}
	return -1
}
