package vtunecsv

import (
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// TestTabs: with Tabs, a tab indents a row as a space does.
func TestTabs(t *testing.T) {
	diag := stream.NewDiag(&strings.Builder{}, false)
	for _, tabs := range []bool{false, true} {
		tb := Table{Value: "v", Tabs: tabs}
		tb.Row(diag, "x", 1, []byte("Function Stack,v"))
		depth, ok, _ := tb.Row(diag, "x", 2, []byte(" \t\vf,1"))
		if want := map[bool]int{false: 1, true: 3}[tabs]; !ok || depth != want {
			t.Errorf("tabs %v: depth %d %v, want %d", tabs, depth, ok, want)
		}
	}
}

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
// found by name, rows are split and placed at their depth, a row that
// cannot be read gets an [unknown] frame; an input without a header, or
// whose header lacks the value column, is said.
func TestTable(t *testing.T) {
	var warn strings.Builder
	diag := stream.NewDiag(&warn, false)
	tb := Table{Value: "CPU Time:Self", Header: "Function Stack,CPU Time:Self,…"}
	var rows []string
	for i, l := range []string{"war:x", "Function Stack,Module,CPU Time:Self", "", "main,a.out,1", ` "f, g",lib,2`, `  "open,x,1`, `  short`} {
		depth, ok, err := tb.Row(diag, "x", i+1, []byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			rows = append(rows, string(tb.Fields[0])+"|"+string(tb.Fields[tb.ModuleCol])+"|"+string(tb.Fields[tb.ValueCol]))
			tb.Stack.Push(depth, tb.Fields[0])
		}
	}
	if got, want := strings.Join(rows, "\n"), "main|a.out|1\nf, g|lib|2"; got != want {
		t.Errorf("rows:\n%s\nwant\n%s", got, want)
	}
	if got := string(tb.Stack.Bytes()); got != "main;f, g;[unknown]" {
		t.Errorf("stack %q", got)
	}
	diag.Flush()
	if diag.Count() != 2 || !strings.Contains(warn.String(), "x:6: a quote is not closed (the frame is named [unknown])") || !strings.Contains(warn.String(), "x:7: fewer columns than the header names") {
		t.Errorf("%d malformed:\n%s", diag.Count(), warn.String())
	}
	if err := tb.End(diag); err != nil || tb.Stack.Depth() != 0 {
		t.Errorf("end: %v, depth %d", err, tb.Stack.Depth())
	}
	// No header: said at the end; a header without the column: said there.
	warn.Reset()
	diag = stream.NewDiag(&warn, false)
	tb.Row(diag, "y", 1, []byte("war:x"))
	tb.End(diag)
	tb.Row(diag, "z", 1, []byte("Function Stack,Allocations:Self"))
	tb.Row(diag, "z", 2, []byte("main,1"))
	tb.End(diag)
	diag.Flush()
	if diag.Count() != 2 || !strings.Contains(warn.String(), `y:1: no VTune header ("Function Stack,CPU Time:Self,…")`) || !strings.Contains(warn.String(), `z:1: a VTune header without a "CPU Time:Self" column`) {
		t.Errorf("%d malformed:\n%s", diag.Count(), warn.String())
	}
}
