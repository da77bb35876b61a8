package instruments

import (
	"bytes"
	"fmt"
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
	r, why := parseRow(line)
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
	ms, ok := p.millis(r.self, r.unit)
	if !ok {
		return p.diag.Malformed(name, n, line, fmt.Sprintf("the self weight %q %s is out of range", r.self, r.unit))
	}
	if ms == nil {
		return nil
	}
	c, err := fold.ParseCount(ms)
	if err != nil {
		return p.diag.Malformed(name, n, line, fmt.Sprintf("the self weight %q %s: %v", r.self, r.unit, err))
	}
	return p.emit(p.stack.Bytes(), c)
}

// parseRow reads "1.98 s  3.0%\t120.00 ms\t \t    work".
func parseRow(l []byte) (row, string) {
	var r row
	l = bytes.TrimLeft(l, " ")
	var ok bool
	if _, l, ok = number(l, true); !ok {
		return r, "no weight (\"1.98 s\") at the start of the row"
	}
	if _, l, ok = unit(l); !ok {
		return r, "no unit (min, s, ms, µs) after the weight"
	}
	l, ok = spaces(l)
	if !ok {
		return r, "no percentage after the weight"
	}
	if _, l, ok = number(l, true); !ok || len(l) == 0 || l[0] != '%' {
		return r, "no percentage after the weight"
	}
	if l, ok = spaces(l[1:]); !ok {
		return r, "no self weight after the percentage"
	}
	if r.self, l, ok = number(l, false); !ok {
		return r, "no self weight after the percentage"
	}
	if r.unit, l, ok = unit(l); !ok {
		return r, "no unit (min, s, ms, µs) after the self weight"
	}
	if !bytes.HasPrefix(l, []byte("\t \t")) {
		return r, "no symbol column after the self weight"
	}
	l = l[3:]
	for r.depth < len(l) && isSpace(l[r.depth]) {
		r.depth++
	}
	r.symbol = l[r.depth:]
	if len(r.symbol) == 0 {
		return r, "no symbol"
	}
	return r, ""
}

// number reads digits, and '.' and digits (required when point).
func number(l []byte, point bool) (num, rest []byte, ok bool) {
	i := 0
	for i < len(l) && '0' <= l[i] && l[i] <= '9' {
		i++
	}
	if i == 0 {
		return nil, l, false
	}
	if i < len(l) && l[i] == '.' {
		j := i + 1
		for j < len(l) && '0' <= l[j] && l[j] <= '9' {
			j++
		}
		if j == i+1 {
			return nil, l, false
		}
		i = j
	} else if point {
		return nil, l, false
	}
	return l[:i], l[i:], true
}

// unit reads " min", " s", " ms" or " µs" (micro sign or Greek mu).
func unit(l []byte) (u, rest []byte, ok bool) {
	if len(l) == 0 || l[0] != ' ' {
		return nil, l, false
	}
	l = l[1:]
	for _, s := range []string{"min", "ms", "s", "µs", "μs"} {
		if bytes.HasPrefix(l, []byte(s)) {
			rest := l[len(s):]
			if len(rest) > 0 && !isSpace(rest[0]) {
				continue
			}
			return l[:len(s)], rest, true
		}
	}
	return nil, l, false
}

func spaces(l []byte) ([]byte, bool) {
	i := 0
	for i < len(l) && isSpace(l[i]) {
		i++
	}
	return l[i:], i > 0
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\f' || c == '\v'
}

// millis turns a self weight into milliseconds, exactly, as decimal
// text; nil when it is zero.
func (p *parser) millis(num, u []byte) ([]byte, bool) {
	whole, frac, _ := bytes.Cut(num, []byte("."))
	frac = bytes.TrimRight(frac, "0")
	if len(frac) > 18 {
		frac = frac[:18] // beyond float64 anyway
	}
	// num = mant / 10^len(frac)
	mant, err := strconv.ParseUint(string(whole)+string(frac), 10, 64)
	if err != nil {
		return nil, false
	}
	if mant == 0 {
		return nil, true
	}
	var mul uint64 = 1
	shift := len(frac) // digits after the point
	switch string(u) {
	case "min":
		mul = 60000
	case "s":
		mul = 1000
	case "µs", "μs":
		shift += 3
	}
	if mant > (1<<64-1)/mul {
		return nil, false
	}
	var tmp [24]byte
	d := strconv.AppendUint(tmp[:0], mant*mul, 10)
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
	return out, true
}

func (p *parser) End() error {
	p.stack.Reset()
	return nil
}
