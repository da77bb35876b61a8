package perfreport

// perf report's folded call chains.
//
// Since Linux 4.5, perf report prints each call chain on one line:
//
//	perf report --stdio --no-children -n -g folded,0,caller,count -s comm
//
// gives a '#' header naming the columns, then for each process name (comm)
// an entry line followed by its chains, root first, with their counts:
//
//	# Overhead       Samples  Command
//	# ........  ............  ...........
//	#
//	    66.57%           452  spin worker
//	449 start_thread;spin
//	2 start_thread;spin;asm_sysvec_apic_timer_interrupt
//
// and ends with a "# (Tip: …)" block. The comm is everything after the
// numeric columns, so it may contain spaces; it becomes the root frame
// with its spaces made '_', as for perf script (and any ';' made ':').
// Frames are kept as perf printed them. The chains must be in caller
// order (root first, as "caller" asks): a callee-ordered report cannot be
// told apart and would fold upside down. Chains weighed in percent (the
// default of -g folded) are refused line by line with the option to use.

import (
	"bytes"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Stats counts what the parser saw.
type Stats struct {
	Comms  int64 // entry lines (one per process name)
	Chains int64 // call chains folded
}

// Parser folds perf report -g folded text, one line at a time.
type Parser struct {
	emit format.EmitFunc
	diag *stream.Diag

	// Layout from the column header line, when there was one.
	header  bool
	numCols int // numeric columns after the percentages: Samples, Period

	comm  []byte // root frame of the chains that follow; nil before the first entry
	stack []byte
	stats Stats
}

// New returns a parser that passes each call chain, under its
// process name, to emit and reports malformed lines to diag.
func New(emit format.EmitFunc, diag *stream.Diag) *Parser {
	return &Parser{emit: emit, diag: diag}
}

// Stats returns what the parser has counted.
func (p *Parser) Stats() Stats { return p.stats }

// Reset forgets the header layout and the current process name, at the
// start of another input.
func (p *Parser) Reset() {
	p.header, p.numCols, p.comm = false, 0, nil
}

// Line parses one line of input name (1-based number lineNo), without
// its newline.
func (p *Parser) Line(name string, lineNo int, line []byte) error {
	line = bytes.TrimRight(line, "\r")
	text := bytes.TrimLeft(line, " \t")
	switch {
	case len(bytes.TrimRight(text, " \t")) == 0:
		return nil
	case text[0] == '#':
		return p.headerLine(name, lineNo, line)
	case len(text) < len(line):
		return p.entry(name, lineNo, line, text)
	case text[0] >= '0' && text[0] <= '9':
		return p.chain(name, lineNo, line)
	}
	return p.diag.Malformed(name, lineNo, line, "neither a process entry nor a folded call chain")
}

// headerLine reads the column names from "# Overhead  Samples  Command"
// (columns are separated by two or more spaces): pfold needs to know how
// many numeric columns precede the comm, and that the report is sorted
// by comm alone.
func (p *Parser) headerLine(name string, lineNo int, line []byte) error {
	cols := splitColumns(bytes.TrimPrefix(line, []byte("#")))
	if len(cols) == 0 {
		return nil
	}
	switch string(cols[0]) {
	case "Overhead", "Children", "Self":
	default:
		return nil // comments, the event block, the tip
	}
	p.header, p.numCols = true, 0
	var keys []string
	for _, c := range cols {
		switch s := string(c); s {
		case "Overhead", "Children", "Self":
		case "Samples", "Period":
			p.numCols++
		default:
			if len(s) >= 8 && s[:8] == "Overhead" { // "Overhead guest sys" and the like
				continue
			}
			keys = append(keys, s)
		}
	}
	if len(keys) != 1 || keys[0] != "Command" {
		return fmt.Errorf("%s:%d: perf report sorted by %q: pfold reads reports sorted by comm alone "+
			"(perf report --stdio --no-children -n -g folded,0,caller,count -s comm)", name, lineNo, keys)
	}
	return nil
}

// splitColumns splits a header line at runs of two or more spaces.
func splitColumns(b []byte) [][]byte {
	var cols [][]byte
	for {
		b = bytes.TrimLeft(b, " ")
		if len(b) == 0 {
			return cols
		}
		i := bytes.Index(b, []byte("  "))
		if i < 0 {
			return append(cols, bytes.TrimRight(b, " "))
		}
		cols = append(cols, b[:i])
		b = b[i:]
	}
}

// entry reads "    66.57%           452  spin worker": percentages, the
// numeric columns, then the comm, spaces and all.
func (p *Parser) entry(name string, lineNo int, line, text []byte) error {
	rest := text
	pct := 0
	for {
		tok, after := nextField(rest)
		if len(tok) < 2 || tok[len(tok)-1] != '%' || !isDecimal(tok[:len(tok)-1]) {
			break
		}
		pct++
		rest = after
	}
	if pct == 0 {
		return p.diag.Malformed(name, lineNo, line, "indented line without a percentage: not a perf report entry")
	}
	if p.header {
		for i := 0; i < p.numCols; i++ {
			tok, after := nextField(rest)
			if !lex.IsDigits(tok) {
				return p.diag.Malformed(name, lineNo, line, "entry without the Samples/Period column the header announces")
			}
			rest = after
		}
	} else if tok, after := nextField(rest); lex.IsDigits(tok) && len(bytes.TrimSpace(after)) > 0 {
		// No header seen: a number followed by more text is taken for
		// the Samples column (perf report -n), as the command below asks.
		rest = after
	}
	comm := bytes.TrimSpace(rest)
	if len(comm) == 0 {
		return p.diag.Malformed(name, lineNo, line, "entry without a process name")
	}
	p.comm = appendComm(p.comm[:0], comm)
	// A ';' in the name would split the root frame in two.
	for i, c := range p.comm {
		if c == fold.Sep {
			p.comm[i] = ':'
		}
	}
	p.stats.Comms++
	return nil
}

// chain reads "COUNT root;…;leaf".
func (p *Parser) chain(name string, lineNo int, line []byte) error {
	i := bytes.IndexAny(line, " \t")
	if i < 0 {
		return p.diag.Malformed(name, lineNo, line, "count without a call chain")
	}
	num, chain := line[:i], bytes.TrimSpace(line[i:])
	if bytes.HasSuffix(num, []byte("%")) {
		return p.diag.Malformed(name, lineNo, line,
			"call chain weighed in percent: run perf report with -g folded,0,caller,count")
	}
	c, err := fold.ParseCount(num)
	if err != nil {
		return p.diag.Malformed(name, lineNo, line, "bad count: "+err.Error())
	}
	if len(chain) == 0 {
		return p.diag.Malformed(name, lineNo, line, "count without a call chain")
	}
	if p.comm == nil {
		return p.diag.Malformed(name, lineNo, line, "call chain before any process entry line (was the report made with -s comm?)")
	}
	p.stack = append(append(append(p.stack[:0], p.comm...), fold.Sep), chain...)
	p.stats.Chains++
	return p.emit(p.stack, c)
}

// nextField returns the first space-separated field of b and what
// follows it.
func nextField(b []byte) (field, rest []byte) {
	b = bytes.TrimLeft(b, " \t")
	i := bytes.IndexAny(b, " \t")
	if i < 0 {
		return b, nil
	}
	return b[:i], b[i:]
}

func isDecimal(b []byte) bool {
	dot := false
	for _, c := range b {
		switch {
		case c == '.' && !dot:
			dot = true
		case c < '0' || c > '9':
			return false
		}
	}
	return len(b) > 0 && b[0] != '.'
}

// Fold feeds every line of r to p, forgetting the layout and
// process name at the start of each input.
func Fold(r *stream.Reader, p *Parser) error {
	for r.Scan() {
		if r.FirstOfInput() {
			p.Reset()
		}
		if err := p.Line(r.Name(), r.Line(), r.Bytes()); err != nil {
			return err
		}
	}
	return r.Err()
}
