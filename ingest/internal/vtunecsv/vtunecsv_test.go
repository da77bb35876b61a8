package vtunecsv

import (
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

func TestSniff(t *testing.T) {
	for in, want := range map[string]format.Score{
		"Function Stack,CPU Time:Self,Module\n":                                           format.Sure,
		"\xef\xbb\xbfwar:Column filter is ON.\r\nFunction Stack,Module,CPU Time:Self\r\n": format.Sure,
		"Function Stack,Allocations:Self\n":                                               format.No,
		"Module,Function Stack,CPU Time:Self\n":                                           format.No,
		"":                                                                                format.No,
	} {
		if got := Sniff([]byte(in), "CPU Time:Self"); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

// TestTable: lines before the header are passed over, the columns are
// found by name, rows are split; an input without a header, or whose
// header lacks the value column, is said.
func TestTable(t *testing.T) {
	var warn strings.Builder
	diag := stream.NewDiag(&warn, false)
	tb := Table{Value: "CPU Time:Self", Header: "Function Stack,CPU Time:Self,…"}
	var rows []string
	for i, l := range []string{"war:x", "Function Stack,Module,CPU Time:Self", "", "main,a.out,1", ` "f, g",lib,2`, ` "open,x,1`, ` short`} {
		row, err := tb.Line(diag, "x", i+1, []byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if !row {
			continue
		}
		if why := tb.Split([]byte(strings.TrimLeft(l, " "))); why != "" {
			rows = append(rows, why)
			continue
		}
		rows = append(rows, string(tb.Fields[0])+"|"+string(tb.Fields[tb.ModuleCol])+"|"+string(tb.Fields[tb.ValueCol]))
	}
	want := []string{"main|a.out|1", "f, g|lib|2", "a quote is not closed (the frame is named [unknown])", "fewer columns than the header names (the frame is named [unknown])"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if err := tb.End(diag); err != nil || diag.Count() != 0 {
		t.Errorf("end: %v, %d malformed", err, diag.Count())
	}
	// No header: said at the end; a header without the column: said there.
	tb.Line(diag, "y", 1, []byte("war:x"))
	tb.End(diag)
	tb.Line(diag, "z", 1, []byte("Function Stack,Allocations:Self"))
	tb.Line(diag, "z", 2, []byte("main,1"))
	tb.End(diag)
	diag.Flush()
	if diag.Count() != 2 || !strings.Contains(warn.String(), `y:1: no VTune header ("Function Stack,CPU Time:Self,…")`) || !strings.Contains(warn.String(), `z:1: a VTune header without a "CPU Time:Self" column`) {
		t.Errorf("%d malformed:\n%s", diag.Count(), warn.String())
	}
}
