package calltree

import (
	"bytes"
	"fmt"

	"github.com/pfold/pfold/stream"
)

// Unknown names a frame a row skips, or a row that cannot be read.
const Unknown = "[unknown]"

var unknown = []byte(Unknown)

// Missing says that k levels are missing above a row, and what stands
// in for them.
func Missing(k int) string { return missing(k) }

func missing(k int) string {
	if k == 1 {
		return "a level is missing above this; the frame there is named " + Unknown
	}
	return fmt.Sprintf("%d levels are missing above this; the frames there are named %s", k, Unknown)
}

// Stack is the path from the root to the current row: a frame a level,
// root first, joined by ';'.
type Stack struct {
	b    []byte
	ends []int // where each level's frame ends in b
}

// Depth is how many levels the path has.
func (s *Stack) Depth() int { return len(s.ends) }

// Bytes returns the path as a folded stack, valid until the next Push.
func (s *Stack) Bytes() []byte { return s.b }

// Reset empties the path.
func (s *Stack) Reset() { s.b, s.ends = s.b[:0], s.ends[:0] }

// Skips reports a row at depth that skips levels under the path to the
// Diag, as malformed, saying what stands in for them.
func (s *Stack) Skips(diag *stream.Diag, name string, n int, line []byte, depth int) error {
	if depth <= len(s.ends) {
		return nil // inlined: this is every row but a few
	}
	return diag.Malformed(name, n, line, missing(depth-len(s.ends)))
}

// Push makes the frame at depth (0 is the root) the parts joined, ';' in
// them made ':', in place of the frame there and those under it. Levels
// missing above it are named Unknown.
func (s *Stack) Push(depth int, parts ...[]byte) {
	if depth < len(s.ends) {
		s.ends = s.ends[:depth]
		if depth == 0 {
			s.b = s.b[:0]
		} else {
			s.b = s.b[:s.ends[depth-1]]
		}
	}
	for len(s.ends) < depth {
		s.add(unknown)
	}
	s.add(parts...)
}

// PushUnknown makes the frame at depth Unknown.
func (s *Stack) PushUnknown(depth int) { s.Push(depth, unknown) }

func (s *Stack) add(parts ...[]byte) {
	b := s.b
	if len(s.ends) > 0 {
		b = append(b, ';')
	}
	start := len(b)
	for _, p := range parts {
		if len(p) == 1 {
			b = append(b, p[0]) // a separator ("(", "`"): no copy called
		} else {
			b = append(b, p...)
		}
	}
	for i := start; ; {
		j := bytes.IndexByte(b[i:], ';')
		if j < 0 {
			break
		}
		b[i+j] = ':'
		i += j + 1
	}
	s.b = b
	s.ends = append(s.ends, len(b))
}
