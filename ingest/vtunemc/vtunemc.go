package vtunemc

import (
	"bytes"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/csvline"
	"github.com/pfold/pfold/stream"
)

// Format is VTune's top-down CSV report of memory consumption.
var Format = format.Format{
	Name:     "vtune-mc",
	Replaces: "stackcollapse-vtune-mc.pl",
	Sniff:    sniff,
	Flags: []format.Flag{{
		Name:    "size",
		Kind:    format.Bool,
		Usage:   "vtune-mc: weigh stacks by the bytes allocated (Allocation Size:Self), not by allocations",
		Default: "false",
	}},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag, size: opts.Bool("size")}, nil
	},
}

const (
	stackColumn  = "Function Stack"
	countColumn  = "Allocations:Self"
	sizeColumn   = "Allocation Size:Self"
	moduleColumn = "Module"
	unknown      = "[unknown]"
)

type parser struct {
	emit format.EmitFunc
	diag *stream.Diag
	size bool

	header  bool
	refused bool
	valCol  int // the column weighing the stacks
	modCol  int // -1: none
	name    string
	last    int

	stack  []byte
	ends   []int
	fields [][]byte
	csv    csvline.Splitter
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
	for depth < len(line) && isSpace(line[depth]) {
		depth++
	}
	if depth > len(p.ends) {
		if err := p.diag.Malformed(name, n, line, missing(depth-len(p.ends))); err != nil {
			return err
		}
	}
	var ok bool
	p.fields, ok = p.csv.Split(line[depth:])
	if !ok || len(p.fields) <= p.valCol || len(p.fields) <= p.modCol {
		why := "fewer columns than the header names"
		if !ok {
			why = "a quote is not closed"
		}
		if err := p.diag.Malformed(name, n, line, why+" (the frame is named "+unknown+")"); err != nil {
			return err
		}
		p.push(depth, []byte(unknown), nil, false)
		return nil
	}
	if len(p.fields[0]) == 0 {
		if err := p.diag.Malformed(name, n, line, "no function name (the frame is named "+unknown+")"); err != nil {
			return err
		}
		p.fields[0] = []byte(unknown)
	}
	var module []byte
	if p.modCol >= 0 {
		module = p.fields[p.modCol]
	}
	p.push(depth, p.fields[0], module, true)
	v := bytes.TrimSpace(p.fields[p.valCol])
	if len(v) == 0 || isZero(v) {
		return nil
	}
	c, err := fold.ParseCount(v)
	if err != nil {
		return p.diag.Malformed(name, n, line, fmt.Sprintf("the %s field %q: %v", p.column(), v, err))
	}
	return p.emit(p.stack, c)
}

func (p *parser) column() string {
	if p.size {
		return sizeColumn
	}
	return countColumn
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
	p.valCol, p.modCol = -1, -1
	for i, f := range p.fields {
		switch string(f) {
		case p.column():
			p.valCol = i
		case moduleColumn:
			p.modCol = i
		}
	}
	if !ok || p.valCol < 0 {
		p.refused = true
		return p.diag.Malformed(name, n, line, "a VTune header without a \""+p.column()+"\" column (the input is not read)")
	}
	p.header = true
	return nil
}

// push makes "function(module)" the frame at depth, filling missing
// levels above it with placeholders.
func (p *parser) push(depth int, function, module []byte, withModule bool) {
	if depth < len(p.ends) {
		p.ends = p.ends[:depth]
		if depth == 0 {
			p.stack = p.stack[:0]
		} else {
			p.stack = p.stack[:p.ends[depth-1]]
		}
	}
	for len(p.ends) < depth {
		p.add([]byte(unknown), nil, false)
	}
	p.add(function, module, withModule)
}

func (p *parser) add(function, module []byte, withModule bool) {
	if len(p.ends) > 0 {
		p.stack = append(p.stack, ';')
	}
	start := len(p.stack)
	p.stack = append(p.stack, function...)
	if withModule {
		p.stack = append(p.stack, '(')
		p.stack = append(p.stack, module...)
		p.stack = append(p.stack, ')')
	}
	for i := start; i < len(p.stack); i++ {
		if p.stack[i] == ';' {
			p.stack[i] = ':'
		}
	}
	p.ends = append(p.ends, len(p.stack))
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\f' || c == '\v'
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

func (p *parser) End() error {
	var err error
	if !p.header && !p.refused && p.last > 0 {
		err = p.diag.Malformed(p.name, p.last, nil, "no VTune header (\""+stackColumn+",…,"+p.column()+",…\") in the input")
	}
	p.header, p.refused, p.last = false, false, 0
	p.stack, p.ends = p.stack[:0], p.ends[:0]
	return err
}

// missing says that k levels are missing above a row, and what stands
// in for them.
func missing(k int) string {
	if k == 1 {
		return "a level is missing above this; the frame there is named " + unknown
	}
	return fmt.Sprintf("%d levels are missing above this; the frames there are named %s", k, unknown)
}
