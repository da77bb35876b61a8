package transform

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pfold/pfold/fold"
)

// A Transform rewrites or drops one folded stack at a time. pfilter
// applies a list of them in the order they were given.
//
// A transform that can rewrite stacks (Merges) appends its result to dst
// and returns it, or returns stack itself when it leaves it as it is;
// one that only keeps or drops stacks returns stack itself.
type Transform struct {
	// Name is the option that made the transform, e.g. "--grep=main",
	// for statistics.
	Name string
	// Merges reports whether the transform can make two different
	// stacks equal, so that its output has to be aggregated again.
	Merges bool
	// Top, when positive, makes this a --top transform: it keeps the Top
	// heaviest stacks of its whole input (see the Top type), and Apply
	// must not be called.
	Top int
	// Counts reports that the transform looks at counts (--min-count,
	// --top), so that it must see each stack once, summed, after any
	// transform that Merges.
	Counts bool

	apply func(dst, stack []byte, c fold.Count) ([]byte, bool)
}

// Apply returns the transformed stack, or keep=false when the stack is
// dropped. The result may alias stack or dst.
func (t *Transform) Apply(dst, stack []byte, c fold.Count) (out []byte, keep bool) {
	return t.apply(dst, stack, c)
}

// frameRE matches frames against a regular expression, after ruling
// out with one fast literal search the stacks where no frame can match:
// every match begins with the expression's literal prefix, so a stack
// that does not contain it has no matching frame. Most stacks fail it,
// and the regexp then runs on none of their frames.
type frameRE struct {
	re     *regexp.Regexp
	prefix []byte // empty when the expression has none
}

func newFrameRE(re *regexp.Regexp) frameRE {
	p, _ := re.LiteralPrefix()
	return frameRE{re: re, prefix: []byte(p)}
}

// mayMatch reports whether some frame of stack can match; false is sure.
func (m frameRE) mayMatch(stack []byte) bool {
	return len(m.prefix) == 0 || bytes.Contains(stack, m.prefix)
}

// anyFrame reports whether some frame of stack matches.
func (m frameRE) anyFrame(stack []byte) bool {
	if !m.mayMatch(stack) {
		return false
	}
	found := false
	fold.Frames(stack, func(f []byte) bool {
		found = m.re.Match(f)
		return !found
	})
	return found
}

// Grep keeps the stacks in which some frame matches re.
func Grep(re *regexp.Regexp) Transform {
	m := newFrameRE(re)
	return Transform{Name: "--grep=" + re.String(), apply: func(_, stack []byte, _ fold.Count) ([]byte, bool) {
		return stack, m.anyFrame(stack)
	}}
}

// GrepV drops the stacks in which some frame matches re.
func GrepV(re *regexp.Regexp) Transform {
	m := newFrameRE(re)
	return Transform{Name: "--grep-v=" + re.String(), apply: func(_, stack []byte, _ fold.Count) ([]byte, bool) {
		return stack, !m.anyFrame(stack)
	}}
}

// Focus keeps the stacks that pass through a frame matching re: pprof's
// name for Grep.
func Focus(re *regexp.Regexp) Transform {
	t := Grep(re)
	t.Name = "--focus=" + re.String()
	return t
}

// From drops the frames rootward of the first (rootmost) frame matching
// re, which becomes the root. Stacks with no matching frame are kept
// whole.
func From(re *regexp.Regexp) Transform {
	m := newFrameRE(re)
	return Transform{Name: "--from=" + re.String(), Merges: true, apply: func(dst, stack []byte, _ fold.Count) ([]byte, bool) {
		if !m.mayMatch(stack) {
			return stack, true
		}
		off, start := 0, -1
		fold.Frames(stack, func(f []byte) bool {
			if re.Match(f) {
				start = off
				return false
			}
			off += len(f) + 1
			return true
		})
		if start < 0 {
			start = 0
		}
		return append(dst, stack[start:]...), true
	}}
}

// To drops the frames leafward of the last (leafmost) frame matching re,
// which becomes the leaf. Stacks with no matching frame are kept whole.
func To(re *regexp.Regexp) Transform {
	m := newFrameRE(re)
	return Transform{Name: "--to=" + re.String(), Merges: true, apply: func(dst, stack []byte, _ fold.Count) ([]byte, bool) {
		if !m.mayMatch(stack) {
			return stack, true
		}
		off, end := 0, len(stack)
		fold.Frames(stack, func(f []byte) bool {
			if re.Match(f) {
				end = off + len(f)
			}
			off += len(f) + 1
			return true
		})
		return append(dst, stack[:end]...), true
	}}
}

// DropFrame removes the frames matching re from every stack; a stack
// left with no frame is dropped.
func DropFrame(re *regexp.Regexp) Transform {
	m := newFrameRE(re)
	return Transform{Name: "--drop-frame=" + re.String(), Merges: true, apply: func(dst, stack []byte, _ fold.Count) ([]byte, bool) {
		// With no frame to drop the stack is kept as it is, unless it
		// starts or ends with an empty frame, which the loop below
		// leaves out.
		if len(stack) > 0 && stack[0] != fold.Sep && stack[len(stack)-1] != fold.Sep && !m.mayMatch(stack) {
			return stack, true
		}
		start := len(dst)
		fold.Frames(stack, func(f []byte) bool {
			if !re.Match(f) {
				if len(dst) > start {
					dst = append(dst, fold.Sep)
				}
				dst = append(dst, f...)
			}
			return true
		})
		return dst, len(dst) > start
	}}
}

// NoRoot drops the root frame (the process name pfold puts there); a
// stack of one frame is dropped.
func NoRoot() Transform {
	return Transform{Name: "--no-root", Merges: true, apply: func(dst, stack []byte, _ fold.Count) ([]byte, bool) {
		i := bytes.IndexByte(stack, fold.Sep)
		if i < 0 {
			return dst, false
		}
		return append(dst, stack[i+1:]...), true
	}}
}

// MaxDepth keeps the n rootmost frames of every stack (n ≥ 1).
func MaxDepth(n int) Transform {
	return Transform{Name: fmt.Sprintf("--max-depth=%d", n), Merges: true, apply: func(dst, stack []byte, _ fold.Count) ([]byte, bool) {
		end, depth := 0, 0
		for end < len(stack) {
			i := bytes.IndexByte(stack[end:], fold.Sep)
			if i < 0 {
				end = len(stack)
				break
			}
			depth++
			if depth == n {
				end += i
				break
			}
			end += i + 1
		}
		return append(dst, stack[:end]...), true
	}}
}

// CollapseRecursive merges each run of identical adjacent frames into
// one, so that direct recursion (f calling f) shows as a single frame, as
// FlameGraph's stackcollapse-recursive.pl and inferno's collapse-recursive
// do. Indirect recursion (f;g;f) is kept. Empty frames are frames like
// any other: the Perl also drops an empty root frame (its "previous
// frame" starts as the empty string) and trailing empty frames (Perl's
// split drops them), artifacts not kept here. A stack left with no
// frame at all (";") is dropped.
func CollapseRecursive() Transform {
	return Transform{Name: "--collapse-recursive", Merges: true, apply: func(dst, stack []byte, _ fold.Count) ([]byte, bool) {
		if !hasRepeatedFrame(stack) {
			return stack, true
		}
		start := len(dst)
		var last []byte
		for i, rest := 0, stack; ; i++ {
			f, tail, more := bytes.Cut(rest, []byte{fold.Sep})
			if i == 0 || !bytes.Equal(f, last) {
				if i > 0 {
					dst = append(dst, fold.Sep)
				}
				dst = append(dst, f...)
			}
			last = f
			if !more {
				break
			}
			rest = tail
		}
		return dst, len(dst) > start
	}}
}

// hasRepeatedFrame reports whether two adjacent frames of stack are
// equal: most stacks have none, and are passed on without a copy.
func hasRepeatedFrame(stack []byte) bool {
	last, rest := []byte(nil), stack
	for i := 0; ; i++ {
		f, tail, more := bytes.Cut(rest, []byte{fold.Sep})
		if i > 0 && bytes.Equal(f, last) {
			return true
		}
		if !more {
			return false
		}
		last, rest = f, tail
	}
}

// MinCount keeps the stacks whose count is at least min.
func MinCount(min fold.Count) Transform {
	return Transform{Name: "--min-count=" + min.String(), Counts: true, apply: func(_, stack []byte, c fold.Count) ([]byte, bool) {
		return stack, !c.Less(min)
	}}
}

// TopN keeps the n heaviest stacks of the whole input.
func TopN(n int) Transform {
	return Transform{Name: fmt.Sprintf("--top=%d", n), Top: n, Counts: true}
}

// StripAddrs replaces every hexadecimal number "0x" followed by hex
// digits with "0x...", as difffolded.pl -s does, so that stacks that
// differ only by addresses become one.
func StripAddrs() Transform {
	return Transform{Name: "--strip-addrs", Merges: true, apply: func(dst, stack []byte, _ fold.Count) ([]byte, bool) {
		return AppendStripHex(dst, stack), true
	}}
}

// AppendStripHex appends s to dst with each "0x" followed by one or more
// hexadecimal digits written "0x...".
func AppendStripHex(dst, s []byte) []byte {
	for {
		i := bytes.Index(s, []byte("0x"))
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i+2]...)
		s = s[i+2:]
		n := 0
		for n < len(s) && isHex(s[n]) {
			n++
		}
		if n > 0 {
			dst = append(dst, "..."...)
		}
		s = s[n:]
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Replace returns the transform of a sed substitution "s/RE/REPL/FLAGS"
// applied to each frame name. RE is a Go regular expression; in REPL,
// & and \0 stand for the match and \1…\9 for its groups, as in sed. The
// delimiter is the character after the "s". FLAGS are g (replace every
// match, not only the first) and i (ignore case). A frame replaced by
// nothing is removed; a replacement containing ';' splits the frame.
func Replace(spec string) (Transform, error) {
	re, tmpl, global, err := ParseSubst(spec)
	if err != nil {
		return Transform{}, err
	}
	return Transform{Name: "--replace=" + spec, Merges: true, apply: func(dst, stack []byte, _ fold.Count) ([]byte, bool) {
		start := len(dst)
		fold.Frames(stack, func(f []byte) bool {
			mark := len(dst)
			if len(dst) > start {
				dst = append(dst, fold.Sep)
			}
			body := len(dst)
			dst = appendSubst(dst, re, tmpl, global, f)
			if len(dst) == body {
				dst = dst[:mark] // replaced by nothing: no frame
			}
			return true
		})
		return dst, len(dst) > start
	}}, nil
}

func appendSubst(dst []byte, re *regexp.Regexp, tmpl []byte, global bool, f []byte) []byte {
	if !global {
		loc := re.FindSubmatchIndex(f)
		if loc == nil {
			return append(dst, f...)
		}
		dst = append(dst, f[:loc[0]]...)
		dst = re.Expand(dst, tmpl, f, loc)
		return append(dst, f[loc[1]:]...)
	}
	last := 0
	for _, loc := range re.FindAllSubmatchIndex(f, -1) {
		dst = append(dst, f[last:loc[0]]...)
		dst = re.Expand(dst, tmpl, f, loc)
		last = loc[1]
	}
	return append(dst, f[last:]...)
}

// ParseSubst parses a sed substitution "s/RE/REPL/FLAGS" into a compiled
// regular expression and a template for regexp.Expand.
func ParseSubst(spec string) (re *regexp.Regexp, tmpl []byte, global bool, err error) {
	if len(spec) < 2 || spec[0] != 's' {
		return nil, nil, false, fmt.Errorf("%q: a substitution is s/RE/REPL/", spec)
	}
	d := spec[1]
	if d == '\\' || d == '\n' || d == ' ' || isAlnum(d) {
		return nil, nil, false, fmt.Errorf("%q: %q cannot delimit a substitution", spec, d)
	}
	parts, rest, err := splitDelim(spec[2:], d, 2)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%q: %v", spec, err)
	}
	pattern, repl := parts[0], parts[1]
	for _, f := range rest {
		switch f {
		case 'g':
			global = true
		case 'i':
			pattern = "(?i)" + pattern
		default:
			return nil, nil, false, fmt.Errorf("%q: unknown flag %q (g and i are known)", spec, f)
		}
	}
	if parts[0] == "" {
		return nil, nil, false, fmt.Errorf("%q: empty regular expression", spec)
	}
	re, err = regexp.Compile(pattern)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%q: %v", spec, err)
	}
	tmpl, err = sedTemplate(repl, re.NumSubexp())
	if err != nil {
		return nil, nil, false, fmt.Errorf("%q: %v", spec, err)
	}
	return re, tmpl, global, nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// splitDelim splits s into n fields each ended by an unescaped d, and
// returns what follows the last. "\d" stands for d itself; other escapes
// are kept for the regexp or the template to read.
func splitDelim(s string, d byte, n int) ([]string, string, error) {
	var fields []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != d {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		case c == d:
			fields = append(fields, b.String())
			b.Reset()
			if len(fields) == n {
				return fields, s[i+1:], nil
			}
		default:
			b.WriteByte(c)
		}
	}
	return nil, "", errors.New("unterminated substitution (s/RE/REPL/)")
}

// sedTemplate turns a sed replacement into a regexp.Expand template.
func sedTemplate(repl string, groups int) ([]byte, error) {
	var t []byte
	for i := 0; i < len(repl); i++ {
		switch c := repl[i]; c {
		case '$':
			t = append(t, "$$"...)
		case '&':
			t = append(t, "${0}"...)
		case '\\':
			if i+1 == len(repl) {
				return nil, errors.New("trailing backslash in the replacement")
			}
			i++
			n := repl[i]
			if n >= '0' && n <= '9' {
				if int(n-'0') > groups {
					return nil, fmt.Errorf("\\%c: the expression has %d groups", n, groups)
				}
				t = append(t, '$', '{', n, '}')
				continue
			}
			if n == '$' {
				t = append(t, "$$"...)
				continue
			}
			t = append(t, n)
		default:
			t = append(t, c)
		}
	}
	return t, nil
}
