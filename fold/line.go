package fold

import (
	"bytes"
	"errors"
	"fmt"
)

// Sep separates frames in a folded stack.
const Sep = ';'

// ParseLine splits a folded line "frame;…;leaf COUNT" at its last space.
// Frame names may contain spaces; the count never does. A trailing '\r'
// is ignored. The returned stack aliases line. A line of two counts is a
// *DiffError: it is a differential (ParseDiffLine), and its first count
// is not the end of the leaf frame's name.
func ParseLine(line []byte) (stack []byte, c Count, err error) {
	// Scan back from the end by hand: the count is a few bytes, while
	// bytes.TrimRight and two LastIndexByte calls cost a pass over the
	// whole line each when it has no tab.
	end := len(line)
	for end > 0 && (line[end-1] == ' ' || line[end-1] == '\t' || line[end-1] == '\r') {
		end--
	}
	line = line[:end]
	i := end - 1
	for i >= 0 && line[i] != ' ' && line[i] != '\t' {
		i--
	}
	if i < 0 {
		return nil, Count{}, errors.New("no count after the stack")
	}
	c, err = ParseCount(line[i+1:])
	if err != nil {
		return nil, Count{}, fmt.Errorf("bad count %q: %w", line[i+1:], err)
	}
	// The stack is everything before the separator, as flamegraph.pl
	// reads it: "a;  3" is the stack "a; " whose leaf frame is a blank.
	stack = line[:i]
	if len(stack) == 0 {
		return nil, Count{}, errors.New("empty stack")
	}
	// A count after a blank ends a differential's stack. Most stacks end
	// in a letter, the rest in a name's digits after no blank: the
	// count is seldom parsed.
	if j := diffTail(stack); j > 0 {
		b, _ := ParseCount(stack[j:])
		return nil, Count{}, &DiffError{Stack: stack[:j-1], Before: b, After: c}
	}
	return stack, c, nil
}

func countByte(b byte) bool {
	return b >= '0' && b <= '9' || b == '.' || b == 'e' || b == 'E' || b == '+' || b == '-'
}

// DiffError is ParseLine's error for a line of two counts, "frame;…;leaf
// BEFORE AFTER": a differential, as pdiff writes it and flamegraph.pl
// reads it. Stack aliases the line.
type DiffError struct {
	Stack         []byte
	Before, After Count
}

func (e *DiffError) Error() string {
	return fmt.Sprintf("two counts, %s and %s: a differential (BEFORE AFTER, as pdiff writes it), which pflame draws; this reads one count", e.Before, e.After)
}

// ParseDiffLine splits a folded line that may be a differential,
// "frame;…;leaf BEFORE AFTER", as flamegraph.pl and pdiff have it: the
// stack's last field is the first count when it is one and a frame comes
// before it. diff reports which; before is after when not.
func ParseDiffLine(line []byte) (stack []byte, before, after Count, diff bool, err error) {
	stack, after, err = ParseLine(line)
	var de *DiffError
	switch {
	case err == nil:
		return stack, after, after, false, nil
	case errors.As(err, &de):
		return de.Stack, de.Before, de.After, true, nil
	}
	return nil, Count{}, Count{}, false, err
}

// AppendLine appends "stack COUNT\n" to dst. A stack whose leaf frame
// ends in a blank and a number ("a;b 0") would read back as a
// differential, stack BEFORE AFTER, as flamegraph.pl and ParseLine read
// "a;b 0 5": that blank is written as '_' ("a;b_0 5"), as
// stackcollapse-perf.pl writes the blanks of a process name.
func AppendLine(dst, stack []byte, c Count) []byte {
	start := len(dst)
	dst = append(dst, stack...)
	if j := diffTail(stack); j > 0 {
		dst[start+j-1] = '_'
	}
	dst = append(dst, ' ')
	dst = c.Append(dst)
	return append(dst, '\n')
}

// diffTail returns where the count that ends stack begins, when a blank
// comes before it and a frame before that (ParseLine's differential),
// else 0.
func diffTail(stack []byte) int {
	j := len(stack)
	for j > 0 && countByte(stack[j-1]) {
		j--
	}
	if j > 1 && j < len(stack) && (stack[j-1] == ' ' || stack[j-1] == '\t') {
		if _, err := ParseCount(stack[j:]); err == nil && len(bytes.TrimSpace(stack[:j-1])) > 0 {
			return j
		}
	}
	return 0
}

// Frames calls fn for each frame of stack, root first, until fn returns
// false. Frames alias stack.
func Frames(stack []byte, fn func(frame []byte) bool) {
	for len(stack) > 0 {
		i := bytes.IndexByte(stack, Sep)
		if i < 0 {
			fn(stack)
			return
		}
		if !fn(stack[:i]) {
			return
		}
		stack = stack[i+1:]
	}
}

// SplitFrames appends the frames of stack to dst and returns it.
func SplitFrames(dst [][]byte, stack []byte) [][]byte {
	Frames(stack, func(f []byte) bool { dst = append(dst, f); return true })
	return dst
}

// Leaf returns the last frame of stack.
func Leaf(stack []byte) []byte {
	return stack[bytes.LastIndexByte(stack, Sep)+1:]
}
