package fold

import (
	"bytes"
	"errors"
	"math"
	"math/bits"
	"strconv"
)

// Count is a sample count: an exact integer, or a decimal when the input
// carried one (flamegraph.pl accepts fractional counts). Integer sums are
// exact; adding a decimal turns the sum into a float64.
type Count struct {
	N     uint64  // the integer count, when !Float
	F     float64 // the decimal count, when Float
	Float bool
}

// ErrOverflow is returned when a sum does not fit: an integer past
// uint64, a decimal past float64 (which would print as +Inf, a count
// nothing reads back).
var ErrOverflow = errors.New("count overflows (integers must fit in 64 bits, decimals in a float64)")

// Int returns the integer count n.
func Int(n uint64) Count { return Count{N: n} }

// Dec returns the decimal count f.
func Dec(f float64) Count { return Count{F: f, Float: true} }

// Float64 returns c as a float64, whatever its kind.
func (c Count) Float64() float64 {
	if c.Float {
		return c.F
	}
	return float64(c.N)
}

// IsZero reports whether c counts nothing.
func (c Count) IsZero() bool {
	if c.Float {
		return c.F == 0
	}
	return c.N == 0
}

// Add returns c+d. Sums that overflow return ErrOverflow.
func (c Count) Add(d Count) (Count, error) {
	if !c.Float && !d.Float {
		s, carry := bits.Add64(c.N, d.N, 0)
		if carry != 0 {
			return c, ErrOverflow
		}
		return Count{N: s}, nil
	}
	f := c.Float64() + d.Float64()
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return c, ErrOverflow
	}
	return Count{F: f, Float: true}, nil
}

// Scale returns c multiplied by w. An integer count scaled by a whole
// number stays an integer when the product fits; otherwise it becomes a
// decimal.
func (c Count) Scale(w float64) Count {
	if !c.Float && w >= 0 && w == math.Trunc(w) && w <= math.MaxUint64 {
		hi, lo := bits.Mul64(c.N, uint64(w))
		if hi == 0 {
			return Count{N: lo}
		}
	}
	return Dec(c.Float64() * w)
}

// Less reports whether c < d.
func (c Count) Less(d Count) bool {
	if !c.Float && !d.Float {
		return c.N < d.N
	}
	return c.Float64() < d.Float64()
}

// Append appends the decimal text of c to dst: integers as digits,
// decimals in the shortest form that reads back exactly, with no
// trailing ".0".
func (c Count) Append(dst []byte) []byte {
	if !c.Float {
		return strconv.AppendUint(dst, c.N, 10)
	}
	if c.F == math.Trunc(c.F) && math.Abs(c.F) < 1e15 {
		return strconv.AppendInt(dst, int64(c.F), 10)
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, c.F, 'f', -1, 64)
	if c.F >= math.MaxUint64 && bytes.IndexByte(dst[n:], '.') < 0 {
		// Digits alone would read back as an overflowing integer.
		dst = append(dst, ".0"...)
	}
	return dst
}

// String returns the text Append writes.
func (c Count) String() string { return string(c.Append(nil)) }

// ParseCount parses a non-negative integer or decimal count. Integers are
// parsed without allocating.
func ParseCount(b []byte) (Count, error) {
	if len(b) == 0 {
		return Count{}, errors.New("empty count")
	}
	var n uint64
	if len(b) <= 19 { // fits in a uint64 whatever the digits: no overflow checks
		for i, ch := range b {
			d := ch - '0'
			if d > 9 {
				return parseDecimal(b, i)
			}
			n = n*10 + uint64(d)
		}
		return Count{N: n}, nil
	}
	for i, ch := range b {
		if ch < '0' || ch > '9' {
			return parseDecimal(b, i)
		}
		hi, lo := bits.Mul64(n, 10)
		lo, carry := bits.Add64(lo, uint64(ch-'0'), 0)
		if hi != 0 || carry != 0 {
			if j := bytes.IndexAny(b, ".eE"); j > i {
				return parseDecimal(b, j) // a large decimal, not an integer
			}
			return Count{}, ErrOverflow
		}
		n = lo
	}
	return Count{N: n}, nil
}

func parseDecimal(b []byte, at int) (Count, error) {
	// Only plain decimals: digits, one '.', digits, optional exponent.
	// No sign, no "inf"/"nan", no hex.
	if b[at] != '.' && b[at] != 'e' && b[at] != 'E' {
		return Count{}, errors.New("count is not a number")
	}
	for _, ch := range b {
		switch {
		case ch >= '0' && ch <= '9', ch == '.', ch == 'e', ch == 'E', ch == '+', ch == '-':
		default:
			return Count{}, errors.New("count is not a number")
		}
	}
	if b[0] == '-' || b[0] == '+' {
		return Count{}, errors.New("count is not a non-negative number")
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return Count{}, errors.New("count is not a non-negative number")
	}
	return Dec(f), nil
}
