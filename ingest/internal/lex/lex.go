package lex

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// spaces8 is eight ' ' read as a little-endian uint64.
const spaces8 = 0x2020202020202020

// TrimCR returns line without the '\r' that ends it in a CRLF file.
func TrimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// IsSpace reports whether c is ASCII white space (' ', '\t', '\n',
// '\v', '\f', '\r').
func IsSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// TrimLeft returns b without its leading white space.
func TrimLeft(b []byte) []byte {
	// Indentation is mostly spaces (DTrace's 14, perf script's 6 to 16,
	// padded columns): skip them eight at a time, then up to the first
	// byte that is not ' ', as Spaces does (written out: TrimLeft stays
	// inlined).
	for len(b) >= 8 {
		if x := binary.LittleEndian.Uint64(b) ^ spaces8; x != 0 {
			b = b[bits.TrailingZeros64(x)/8:]
			break
		}
		b = b[8:]
	}
	for len(b) > 0 && IsSpace(b[0]) {
		b = b[1:]
	}
	return b
}

// Spaces returns how many ' ' b starts with (other white space ends
// them), read eight bytes at a time, then up to the first byte that
// differs.
func Spaces(b []byte) int {
	i := 0
	for ; len(b)-i >= 8; i += 8 {
		if x := binary.LittleEndian.Uint64(b[i:]) ^ spaces8; x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

// TrimRight returns b without its trailing white space.
func TrimRight(b []byte) []byte {
	for len(b) > 0 && IsSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// Trim returns b without its leading and trailing white space.
func Trim(b []byte) []byte { return TrimRight(TrimLeft(b)) }

// Digits returns how many ASCII digits b starts with.
func Digits(b []byte) int {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// IsDigits reports whether b is ASCII digits, one at least.
func IsDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// Uint returns the number b writes when b is 1 to 19 ASCII digits and
// nothing else (19 digits always fit a uint64), and whether it is.
func Uint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// IsHex reports whether c is a hex digit, of either case.
func IsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// IsLowerHex reports whether c is a digit or one of a to f.
func IsLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// IndexPair returns the index of the first a followed by b in s, or -1:
// bytes.Index(s, []byte{a, b}), in a few IndexByte calls where a is rare
// (cheaper than bytes.Index on the short names of a frame).
func IndexPair(s []byte, a, b byte) int {
	for off := 0; ; {
		i := bytes.IndexByte(s[off:], a)
		if i < 0 {
			return -1
		}
		i += off
		if i+1 < len(s) && s[i+1] == b {
			return i
		}
		off = i + 1
	}
}

// IndexAny3 returns the index of the first a, b or c in s, or -1:
// bytes.IndexAny(s, "abc") for three bytes, read eight at a time (for
// the short names of a frame, where a call of bytes.IndexByte per byte
// costs more than the bytes).
func IndexAny3(s []byte, a, b, c byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; len(s)-i >= 8; i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		x, y, z := w^(ones*uint64(a)), w^(ones*uint64(b)), w^(ones*uint64(c))
		// The high bit of each zero byte of x, y or z; the lowest is
		// exact (a borrow only flags bytes above a zero byte).
		if m := ((x-ones)&^x | (y-ones)&^y | (z-ones)&^z) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if d := s[i]; d == a || d == b || d == c {
			return i
		}
	}
	return -1
}

// AppendFrame appends name to dst as one frame: each ';' in it made ':'.
// name may be the bytes of dst's array that follow dst
// (AppendFrame(b[:i], b[i:]) makes b[i:] a frame in place).
func AppendFrame(dst, name []byte) []byte {
	for {
		i := bytes.IndexByte(name, ';')
		if i < 0 {
			return append(dst, name...)
		}
		dst = append(dst, name[:i]...)
		dst = append(dst, ':')
		name = name[i+1:]
	}
}

// AppendFrameLine is AppendFrame for names that may hold line breaks
// too (names read from JSON, XML or protobuf): '\n' and '\r' become ' ',
// so that the frame stays on its folded line. name may be the bytes of
// dst's array that follow dst, as for AppendFrame.
func AppendFrameLine[S string | []byte](dst []byte, name S) []byte {
	start := len(dst)
	dst = append(dst, name...)
	for i := start; i < len(dst); i++ {
		switch dst[i] {
		case ';':
			dst[i] = ':'
		case '\n', '\r':
			dst[i] = ' '
		}
	}
	return dst
}
