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
	stack, before, after, diff, err = fold.ParseDiffLine(line)
	if err != nil {
		return nil, fold.Count{}, fold.Count{}, false, err
	}
	if bytes.IndexByte(stack, 0) >= 0 || bytes.IndexByte(stack, keySep) >= 0 {
		return nil, fold.Count{}, fold.Count{}, false, errors.New("stack holds a control byte 0x00 or 0x01")
	}
	return stack, before, after, diff, nil
}
