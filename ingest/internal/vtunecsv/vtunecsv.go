package vtunecsv

import (
	"bytes"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/calltree"
	"github.com/pfold/pfold/ingest/internal/csvline"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

const (
	// StackColumn is the first column: the function, indented.
	StackColumn = "Function Stack"
	// ModuleColumn names the function's module, when there is one.
	ModuleColumn = "Module"
)

const bom = "\xef\xbb\xbf"

// Sniff is Sure on a VTune header, "Function Stack,…" with one of
// columns, on the first line or after VTune's "war:" warnings.
func Sniff(prefix []byte, columns ...string) format.Score {
	for len(prefix) > 0 {
		line, rest, found := bytes.Cut(prefix, []byte("\n"))
		if !found && len(prefix) == format.SniffSize {
			return format.No // cut short
		}
		line = bytes.TrimRight(bytes.TrimPrefix(line, []byte(bom)), "\r")
		switch {
		case bytes.HasPrefix(line, []byte("war:")):
			prefix = rest
			continue
		case bytes.HasPrefix(line, []byte(StackColumn+",")):
			for f := range bytes.SplitSeq(line, []byte(",")) {
				for _, c := range columns {
					if string(f) == c {
						return format.Sure
					}
				}
			}
		}
		return format.No
	}
	return format.No
}

// Table reads a report's lines into rows: the lines before the header
// are passed over, the header gives the columns, and each row is split
// into its fields, its frame placed in Stack at its depth.
type Table struct {
	// Value is the column that weighs the rows: a header without it is
	// refused, and so is the input.
	Value string
	// Header is the header as messages show it
	// ("Function Stack,CPU Time:Self,…").
	Header string
	// Tabs: besides spaces, tabs (and \f, \v) indent a row a level.
	Tabs bool

	// Fields are the fields of the last row read; ValueCol and
	// ModuleCol are where the columns are in them (ModuleCol -1: no
	// Module column).
	Fields              [][]byte
	ValueCol, ModuleCol int
	// Stack is the path to the last row read: its frame is for the
	// caller to push.
	Stack calltree.Stack

	csv     csvline.Splitter
	header  bool // the header was read
	refused bool // a header was refused
	name    string
	last    int
}

// Row reads line, the line n of the input called name, its trailing
// white space trimmed. ok says it is a row, its fields in Fields and
// depth its level, whose frame the caller pushes on Stack. Before the
// header, lines are passed over and the header read; a row that cannot
// be read is reported, and its frame is calltree.Unknown.
func (t *Table) Row(diag *stream.Diag, name string, n int, line []byte) (depth int, ok bool, err error) {
	if !t.header {
		t.name, t.last = name, n // for End, which speaks of them only without a header
		return 0, false, t.readHeader(diag, name, n, line)
	}
	if len(line) == 0 {
		return 0, false, nil
	}
	depth = lex.Spaces(line) // a word at a time
	for t.Tabs && depth < len(line) && (line[depth] == ' ' || line[depth] == '\t' || line[depth] == '\f' || line[depth] == '\v') {
		depth++
	}
	if depth > t.Stack.Depth() { // Skips says nothing else, and is not inlined here
		if err := t.Stack.Skips(diag, name, n, line, depth); err != nil {
			return 0, false, err
		}
	}
	t.Fields, ok = t.csv.Split(line[depth:])
	why := ""
	switch {
	case !ok:
		why = "a quote is not closed"
	case len(t.Fields) <= t.ValueCol || len(t.Fields) <= t.ModuleCol:
		why = "fewer columns than the header names"
	default:
		return depth, true, nil
	}
	t.Stack.PushUnknown(depth)
	return depth, false, diag.Malformed(name, n, line, why+" (the frame is named "+calltree.Unknown+")")
}

func (t *Table) readHeader(diag *stream.Diag, name string, n int, line []byte) error {
	line = bytes.TrimPrefix(line, []byte(bom))
	if !bytes.HasPrefix(line, []byte(StackColumn+",")) {
		return nil
	}
	var ok bool
	t.Fields, ok = t.csv.Split(line)
	t.ValueCol, t.ModuleCol = -1, -1
	for i, f := range t.Fields {
		switch string(f) {
		case t.Value:
			t.ValueCol = i
		case ModuleColumn:
			t.ModuleCol = i
		}
	}
	if !ok || t.ValueCol < 0 {
		t.refused = true
		return diag.Malformed(name, n, line, "a VTune header without a \""+t.Value+"\" column (the input is not read)")
	}
	t.header = true
	return nil
}

// IsZero reports whether a value's text is all zeros (and points): a
// row that weighs nothing, which is no stack.
func IsZero(b []byte) bool {
	for _, c := range b {
		if c != '0' && c != '.' {
			return false
		}
	}
	return true
}

// End ends an input: one with lines but no header is said to the Diag.
func (t *Table) End(diag *stream.Diag) error {
	var err error
	if !t.header && !t.refused && t.last > 0 {
		err = diag.Malformed(t.name, t.last, nil, "no VTune header (\""+t.Header+"\") in the input")
	}
	t.header, t.refused, t.last = false, false, 0
	t.Stack.Reset()
	return err
}
