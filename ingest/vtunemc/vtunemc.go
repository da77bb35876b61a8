package vtunemc

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/calltree"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/ingest/internal/vtunecsv"
	"github.com/pfold/pfold/stream"
)

// Format is VTune's top-down CSV report of memory consumption.
var Format = format.Format{
	Name:     "vtune-mc",
	Replaces: "stackcollapse-vtune-mc.pl",
	Sniff: func(prefix []byte) format.Score {
		return vtunecsv.Sniff(prefix, countColumn, sizeColumn)
	},
	Flags: []format.Flag{{
		Name:    "size",
		Kind:    format.Bool,
		Usage:   "vtune-mc: weigh stacks by the bytes allocated (Allocation Size:Self), not by allocations",
		Default: "false",
	}},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		p := &parser{emit: emit, diag: diag}
		p.table.Value = countColumn
		if opts.Bool("size") {
			p.table.Value = sizeColumn
		}
		p.table.Header = vtunecsv.StackColumn + ",…," + p.table.Value + ",…"
		p.table.Tabs = true // the script reads indentation as \s: tabs too
		return p, nil
	},
}

const (
	countColumn = "Allocations:Self"
	sizeColumn  = "Allocation Size:Self"
)

type parser struct {
	emit format.EmitFunc
	diag *stream.Diag

	table vtunecsv.Table // its Value is the column weighing the stacks
}

var (
	lparen = []byte("(")
	rparen = []byte(")")
)

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimRight(line)
	depth, ok, err := p.table.Row(p.diag, name, n, line)
	if !ok {
		return err
	}
	fields := p.table.Fields
	function := fields[0]
	if len(function) == 0 {
		if err := p.diag.Malformed(name, n, line, "no function name (the frame is named "+calltree.Unknown+")"); err != nil {
			return err
		}
		function = []byte(calltree.Unknown)
	}
	var module []byte
	if p.table.ModuleCol >= 0 {
		module = fields[p.table.ModuleCol]
	}
	p.table.Stack.Push(depth, function, lparen, module, rparen) // the script's function(module)
	v := trimValue(fields[p.table.ValueCol])
	if len(v) == 0 || vtunecsv.IsZero(v) {
		return nil
	}
	c, err := fold.ParseCount(v)
	if err != nil {
		return p.diag.Malformed(name, n, line, fmt.Sprintf("the %s field %q: %v", p.table.Value, v, err))
	}
	return p.emit(p.table.Stack.Bytes(), c)
}

// trimValue is bytes.TrimSpace(v), called only when v starts or ends
// with a byte it may trim.
func trimValue(v []byte) []byte {
	if len(v) == 0 || trims[v[0]] || trims[v[len(v)-1]] {
		return bytes.TrimSpace(v)
	}
	return v
}

// trims holds the bytes that bytes.TrimSpace may trim from either end
// of a value: ASCII white space, and the bytes of any other rune (whose
// spaces TrimSpace decodes). A value that neither starts nor ends with
// one is its own trim, and is read without the call.
var trims = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= utf8.RuneSelf || lex.IsSpace(byte(c))
	}
	return t
}()

func (p *parser) End() error {
	return p.table.End(p.diag)
}
