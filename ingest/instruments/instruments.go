package instruments

import (
	"bytes"
	"fmt"
	"math/bits"
	"strconv"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/calltree"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is Instruments' Deep Copy of a Time Profiler call tree.
var Format = format.Format{
	Name:     "instruments",
	Replaces: "stackcollapse-instruments.pl",
	Sniff:    sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

type parser struct {
	emit format.EmitFunc
	diag *stream.Diag

	stack calltree.Stack
	ms    []byte
}

// row is a parsed line.
type row struct {
	self   []byte // the self weight's number
	unit   []byte // min, s, ms, µs
	depth  int
	symbol []byte
}

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimRight(line)
	if len(line) == 0 {
		return nil
	}
	var r row
	why := parseRow(line, &r)
	if why != "" {
		if n == 1 {
			return nil // the header ("Weight\tSelf Weight\t\tSymbol Name")
		}
		return p.diag.Malformed(name, n, line, why)
	}
	if err := p.stack.Skips(p.diag, name, n, line, r.depth); err != nil {
		return err
	}
	p.stack.Push(r.depth, r.symbol)
	v, shift, ok := scaled(r.self, r.unit)
	if !ok {
		return p.diag.Malformed(name, n, line, fmt.Sprintf("the self weight %q %s is out of range", r.self, r.unit))
	}
	if v == 0 {
		return nil
	}
	var c fold.Count
	if shift < len(pow10) && v%pow10[shift] == 0 {
		c = fold.Int(v / pow10[shift]) // whole milliseconds, as ParseCount reads their text
	} else {
		var err error
		if c, err = fold.ParseCount(p.decimal(v, shift)); err != nil {
			return p.diag.Malformed(name, n, line, fmt.Sprintf("the self weight %q %s: %v", r.self, r.unit, err))
		}
	}
	return p.emit(p.stack.Bytes(), c)
}

// pow10[k] is 10^k.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// parseRow reads "1.98 s  3.0%\t120.00 ms\t \t    work" into r.
func parseRow(l []byte, r *row) string {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	j := numberEnd(l, i, true)
	if j < 0 {
		return "no weight (\"1.98 s\") at the start of the row"
	}
	if j = unitEnd(l, j); j < 0 {
		return "no unit (min, s, ms, µs) after the weight"
	}
	i = spacesEnd(l, j)
	if i == j {
		return "no percentage after the weight"
	}
	if j = numberEnd(l, i, true); j < 0 || j == len(l) || l[j] != '%' {
		return "no percentage after the weight"
	}
	j++
	if i = spacesEnd(l, j); i == j {
		return "no self weight after the percentage"
	}
	if j = numberEnd(l, i, false); j < 0 {
		return "no self weight after the percentage"
	}
	r.self = l[i:j]
	if i = unitEnd(l, j); i < 0 {
		return "no unit (min, s, ms, µs) after the self weight"
	}
	r.unit = l[j+1 : i]
	if len(l)-i < 3 || l[i] != '\t' || l[i+1] != ' ' || l[i+2] != '\t' {
		return "no symbol column after the self weight"
	}
	l = l[i+3:]
	r.depth = 0
	for r.depth < len(l) && isSpace(l[r.depth]) {
		r.depth++
	}
	r.symbol = l[r.depth:]
	if len(r.symbol) == 0 {
		return "no symbol"
	}
	return ""
}

// numberEnd reads digits, and '.' and digits (required when point),
// from l[i:]: it returns where they end, -1 when there are none.
func numberEnd(l []byte, i int, point bool) int {
	d := lex.Digits(l[i:])
	if d == 0 {
		return -1
	}
	i += d
	if i < len(l) && l[i] == '.' {
		d = lex.Digits(l[i+1:])
		if d == 0 {
			return -1
		}
		return i + 1 + d
	}
	if point {
		return -1
	}
	return i
}

// unitEnd reads " min", " s", " ms" or " µs" (micro sign or Greek mu)
// from l[i:], then white space or the end: it returns where the unit
// ends, -1 when there is none.
func unitEnd(l []byte, i int) int {
	if i >= len(l) || l[i] != ' ' {
		return -1
	}
	u := l[i+1:]
	// No two units start alike.
	n := 0
	switch {
	case len(u) >= 3 && u[0] == 'm' && u[1] == 'i' && u[2] == 'n':
		n = 3
	case len(u) >= 2 && u[0] == 'm' && u[1] == 's':
		n = 2
	case len(u) >= 1 && u[0] == 's':
		n = 1
	case len(u) >= 3 && (u[0] == 0xc2 && u[1] == 0xb5 || u[0] == 0xce && u[1] == 0xbc) && u[2] == 's': // µ, μ
		n = 3
	default:
		return -1
	}
	if len(u) > n && !isSpace(u[n]) {
		return -1
	}
	return i + 1 + n
}

// spacesEnd returns where the white space at l[i:] ends.
func spacesEnd(l []byte, i int) int {
	for i < len(l) && isSpace(l[i]) {
		i++
	}
	return i
}

// isSpace reports whether c is ' ', '\t', '\f' or '\v': a table load,
// not four compares.
func isSpace(c byte) bool { return spaces[c] }

var spaces = [256]bool{' ': true, '\t': true, '\f': true, '\v': true}

// millis turns a self weight into milliseconds, exactly, as decimal
// text; nil when it is zero.
func (p *parser) millis(num, u []byte) ([]byte, bool) {
	v, shift, ok := scaled(num, u)
	if !ok || v == 0 {
		return nil, ok
	}
	return p.decimal(v, shift), true
}

// scaled reads a self weight as v / 10^shift milliseconds, exactly; v
// is 0 when the weight is zero, ok false when it is out of range.
func scaled(num, u []byte) (v uint64, shift int, ok bool) {
	whole, frac := num, num[len(num):] // (num is short: no IndexByte, TrimRight calls)
	for k, c := range num {
		if c == '.' {
			whole, frac = num[:k], num[k+1:]
			break
		}
	}
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if len(frac) > 18 {
		frac = frac[:18] // beyond float64 anyway
	}
	// num = mant / 10^len(frac)
	mant, ok := appendDigits(0, whole)
	if ok {
		mant, ok = appendDigits(mant, frac)
	}
	if !ok {
		return 0, 0, false
	}
	if mant == 0 {
		return 0, 0, true
	}
	var mul uint64 = 1
	shift = len(frac) // digits after the point
	switch string(u) {
	case "min":
		mul = 60000
	case "s":
		mul = 1000
	case "µs", "μs":
		shift += 3
	}
	// mant > (1<<64-1)/mul, without a division a row (most rows are ms,
	// mul 1).
	hi, v := bits.Mul64(mant, mul)
	if hi != 0 {
		return 0, 0, false
	}
	return v, shift, true
}

// decimal is v / 10^shift as decimal text (no trailing zeros after the
// point, no point after a whole number), in p.ms.
func (p *parser) decimal(v uint64, shift int) []byte {
	var tmp [24]byte
	d := strconv.AppendUint(tmp[:0], v, 10)
	out := p.ms[:0]
	switch {
	case shift == 0:
		out = append(out, d...)
	case len(d) <= shift:
		out = append(out, '0', '.')
		for range shift - len(d) {
			out = append(out, '0')
		}
		out = append(out, d...)
	default:
		out = append(out, d[:len(d)-shift]...)
		out = append(out, '.')
		out = append(out, d[len(d)-shift:]...)
	}
	if shift > 0 {
		out = bytes.TrimSuffix(bytes.TrimRight(out, "0"), []byte("."))
	}
	p.ms = out
	return out
}

// appendDigits returns n followed by the decimal digits ds (number read
// them), false when that overflows a uint64.
func appendDigits(n uint64, ds []byte) (uint64, bool) {
	for _, c := range ds {
		hi, lo := bits.Mul64(n, 10)
		lo, carry := bits.Add64(lo, uint64(c-'0'), 0)
		if hi != 0 || carry != 0 {
			return 0, false
		}
		n = lo
	}
	return n, true
}

func (p *parser) End() error {
	p.stack.Reset()
	return nil
}
