package vtune

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/csvline"
	"github.com/pfold/pfold/stream"
)

// Format is VTune's top-down CSV report of CPU time.
var Format = format.Format{
	Name:     "vtune",
	Replaces: "stackcollapse-vtune.pl, inferno-collapse-vtune",
	Sniff:    sniff,
	Flags: []format.Flag{{
		Name:    "no-modules",
		Kind:    format.Bool,
		Usage:   "sample, vtune: leave out the module (library) before each function name",
		Default: "false",
	}},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag, noModules: opts.Bool("no-modules")}, nil
	},
}

const (
	stackColumn  = "Function Stack"
	timeColumn   = "CPU Time:Self"
	moduleColumn = "Module"
	unknown      = "[unknown]"
)

type parser struct {
	emit      format.EmitFunc
	diag      *stream.Diag
	noModules bool

	header  bool // the header was read
	refused bool // a header was refused
	timeCol int
	modCol  int // -1: none
	name    string
	last    int

	stack  []byte
	ends   []int // where each level's frame ends in stack
	fields [][]byte
	csv    csvline.Splitter
	ms     []byte
}

func (p *parser) Line(name string, n int, line []byte) error {
	p.name, p.last = name, n
	line = trimSpaceRight(line)
	if !p.header {
		return p.readHeader(name, n, line)
	}
	if len(line) == 0 {
		return nil
	}
	depth := 0
	for depth < len(line) && line[depth] == ' ' {
		depth++
	}
	if depth > len(p.ends) {
		if err := p.diag.Malformed(name, n, line, missing(depth-len(p.ends))); err != nil {
			return err
		}
	}
	var ok bool
	p.fields, ok = p.csv.Split(line[depth:])
	if !ok || len(p.fields) <= p.timeCol || len(p.fields) <= p.modCol {
		why := "fewer columns than the header names"
		if !ok {
			why = "a quote is not closed"
		}
		if err := p.diag.Malformed(name, n, line, why+" (the frame is named "+unknown+")"); err != nil {
			return err
		}
		p.push(depth, []byte(unknown), nil)
		return nil
	}
	ms, ok := p.millis(p.fields[p.timeCol])
	if !ok {
		if err := p.diag.Malformed(name, n, line, fmt.Sprintf("the %s field %q is not a number of seconds (the frame is kept without time)", timeColumn, p.fields[p.timeCol])); err != nil {
			return err
		}
	}
	if len(p.fields[0]) == 0 {
		if err := p.diag.Malformed(name, n, line, "no function name (the frame is named "+unknown+")"); err != nil {
			return err
		}
		p.fields[0] = []byte(unknown)
	}
	var module []byte
	if p.modCol >= 0 && !p.noModules {
		module = p.fields[p.modCol]
	}
	p.push(depth, p.fields[0], module)
	if !ok || isZero(ms) {
		return nil
	}
	c, err := fold.ParseCount(ms)
	if err != nil {
		return p.diag.Malformed(name, n, line, fmt.Sprintf("the %s field %q: %v", timeColumn, p.fields[p.timeCol], err))
	}
	return p.emit(p.stack, c)
}

// readHeader finds the columns in the header line; lines before it
// (VTune's "war:" warnings) are passed over.
func (p *parser) readHeader(name string, n int, line []byte) error {
	line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(line, []byte(stackColumn+",")) {
		return nil
	}
	var ok bool
	p.fields, ok = p.csv.Split(line)
	p.timeCol, p.modCol = -1, -1
	for i, f := range p.fields {
		switch string(f) {
		case timeColumn:
			p.timeCol = i
		case moduleColumn:
			p.modCol = i
		}
	}
	if !ok || p.timeCol < 0 {
		p.refused = true
		return p.diag.Malformed(name, n, line, "a VTune header without a \""+timeColumn+"\" column (the input is not read)")
	}
	p.header = true
	return nil
}

// push makes frame (module`function) the frame at depth, filling missing
// levels above it with placeholders.
func (p *parser) push(depth int, function, module []byte) {
	if depth < len(p.ends) {
		p.ends = p.ends[:depth]
		if depth == 0 {
			p.stack = p.stack[:0]
		} else {
			p.stack = p.stack[:p.ends[depth-1]]
		}
	}
	for len(p.ends) < depth {
		p.add(nil, []byte(unknown))
	}
	p.add(module, function)
}

func (p *parser) add(module, function []byte) {
	if len(p.ends) > 0 {
		p.stack = append(p.stack, ';')
	}
	start := len(p.stack)
	if len(module) > 0 {
		p.stack = append(p.stack, module...)
		p.stack = append(p.stack, '`')
	}
	p.stack = append(p.stack, function...)
	for i := start; i < len(p.stack); i++ {
		if p.stack[i] == ';' {
			p.stack[i] = ':'
		}
	}
	p.ends = append(p.ends, len(p.stack))
}

// millis turns seconds ("0.016612") into milliseconds ("16.612") by
// moving the decimal point, exactly.
func (p *parser) millis(s []byte) ([]byte, bool) {
	s = bytes.TrimSpace(s)
	whole, frac, _ := bytes.Cut(s, []byte("."))
	if len(whole)+len(frac) == 0 || !digits(whole) || !digits(frac) {
		// Anything else a float reads (1e-05): seconds × 1000.
		f, err := strconv.ParseFloat(string(s), 64)
		if err != nil || !(f >= 0 && f <= 1e300) {
			return nil, false
		}
		p.ms = strconv.AppendFloat(p.ms[:0], f*1000, 'f', -1, 64)
		return p.ms, true
	}
	m := append(p.ms[:0], whole...)
	for i := range 3 {
		if i < len(frac) {
			m = append(m, frac[i])
		} else {
			m = append(m, '0')
		}
	}
	if len(frac) > 3 && !isZero(frac[3:]) {
		m = append(m, '.')
		m = append(m, frac[3:]...)
	}
	p.ms = m
	for len(m) > 1 && m[0] == '0' && m[1] != '.' {
		m = m[1:]
	}
	return m, true
}

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isZero reports whether a number's text is all zeros (and points).
func isZero(b []byte) bool {
	for _, c := range b {
		if c != '0' && c != '.' {
			return false
		}
	}
	return true
}

func (p *parser) End() error {
	var err error
	if !p.header && !p.refused && p.last > 0 {
		err = p.diag.Malformed(p.name, p.last, nil, "no VTune header (\""+stackColumn+","+timeColumn+",…\") in the input")
	}
	p.header, p.refused, p.last = false, false, 0
	p.stack, p.ends = p.stack[:0], p.ends[:0]
	return err
}

// trimSpaceRight drops trailing white space (and a CRLF file's '\r').
func trimSpaceRight(b []byte) []byte {
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\t', '\r', '\n', '\f', '\v':
			b = b[:len(b)-1]
		default:
			return b
		}
	}
	return b
}

// missing says that k levels are missing above a row, and what stands
// in for them.
func missing(k int) string {
	if k == 1 {
		return "a level is missing above this; the frame there is named " + unknown
	}
	return fmt.Sprintf("%d levels are missing above this; the frames there are named %s", k, unknown)
}
