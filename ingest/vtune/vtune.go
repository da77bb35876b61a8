package vtune

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/calltree"
	"github.com/pfold/pfold/ingest/internal/flags"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/ingest/internal/vtunecsv"
	"github.com/pfold/pfold/stream"
)

// Format is VTune's top-down CSV report of CPU time.
var Format = format.Format{
	Name:     "vtune",
	Replaces: "stackcollapse-vtune.pl, inferno-collapse-vtune",
	Sniff:    func(prefix []byte) format.Score { return vtunecsv.Sniff(prefix, timeColumn) },
	Flags:    []format.Flag{flags.NoModules},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		p := &parser{emit: emit, diag: diag, noModules: opts.Bool(flags.NoModules.Name)}
		p.table.Value, p.table.Header = timeColumn, vtunecsv.StackColumn+","+timeColumn+",…"
		return p, nil
	},
}

const timeColumn = "CPU Time:Self"

type parser struct {
	emit      format.EmitFunc
	diag      *stream.Diag
	noModules bool

	table vtunecsv.Table
	ms    []byte
}

var backquote = []byte("`")

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimRight(line)
	depth, ok, err := p.table.Row(p.diag, name, n, line)
	if !ok {
		return err
	}
	fields := p.table.Fields
	ms, ok := p.millis(fields[p.table.ValueCol])
	if !ok {
		if err := p.diag.Malformed(name, n, line, fmt.Sprintf("the %s field %q is not a number of seconds (the frame is kept without time)", timeColumn, fields[p.table.ValueCol])); err != nil {
			return err
		}
	}
	function := fields[0]
	if len(function) == 0 {
		if err := p.diag.Malformed(name, n, line, "no function name (the frame is named "+calltree.Unknown+")"); err != nil {
			return err
		}
		function = []byte(calltree.Unknown)
	}
	if p.table.ModuleCol >= 0 && !p.noModules && len(fields[p.table.ModuleCol]) > 0 {
		p.table.Stack.Push(depth, fields[p.table.ModuleCol], backquote, function) // inferno's module`function
	} else {
		p.table.Stack.Push(depth, function)
	}
	if !ok || vtunecsv.IsZero(ms) {
		return nil
	}
	c, err := fold.ParseCount(ms)
	if err != nil {
		return p.diag.Malformed(name, n, line, fmt.Sprintf("the %s field %q: %v", timeColumn, fields[p.table.ValueCol], err))
	}
	return p.emit(p.table.Stack.Bytes(), c)
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
	if len(frac) > 3 && !vtunecsv.IsZero(frac[3:]) {
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

func (p *parser) End() error {
	return p.table.End(p.diag)
}
