package vtunemc

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/vtunemc"

func fold1(t testing.TB, opts format.MapOptions, name string, data []byte) formattest.Result {
	t.Helper()
	return formattest.MustFold(t, Format, opts, formattest.Input{Name: name, Data: data})
}

// TestGolden folds allocations.csv, counting allocations and bytes
// (--size); the goldens equal stackcollapse-vtune-mc.pl's output
// (testdata/vtunemc/*.oracle.folded, run here).
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"allocations.csv"}, Ext: ".csv",
		Options:    []formattest.Option{formattest.Flags("size")},
		References: []formattest.Reference{{Tool: "stackcollapse-vtune-mc.pl"}},
	}.Test(t)
}

// TestMalformed: rows the script dies on (or mangles) are reported with
// file:line; a missing level is a placeholder, not a stale frame.
func TestMalformed(t *testing.T) {
	in := "Function Stack,Allocation Size:Self,Deallocation Size:Self,Allocations:Self,Module\r\n" +
		"main,10,0,1,a\r\n" +
		"   deep,20,0,2,a\r\n" + // two levels missing
		" \"open,30,0,3,a\r\n" + // a quote not closed
		"  under,40,0,4,b\r\n" +
		" ,50,0,5,a\r\n" + // no name
		" x,60,0,many,a\r\n" // not a number
	res := fold1(t, nil, "x", []byte(in))
	want := "main(a) 1\nmain(a);[unknown](a) 5\nmain(a);[unknown];[unknown];deep(a) 2\nmain(a);[unknown];under(b) 4\n"
	if res.Folded != want {
		t.Errorf("%s\nwant\n%s", res.Folded, want)
	}
	for _, l := range []string{"x:3:", "x:4:", "x:6:", "x:7:"} {
		if !strings.Contains(res.Warnings, l) {
			t.Errorf("no warning at %s:\n%s", l, res.Warnings)
		}
	}
	if res.Malformed != 4 {
		t.Errorf("%d warnings:\n%s", res.Malformed, res.Warnings)
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "x", Data: []byte(in)}); err == nil || !strings.Contains(err.Error(), "x:3:") {
		t.Errorf("strict: %v", err)
	}
	// A header without the column to count is refused, once.
	res = fold1(t, format.MapOptions{"size": true}, "x", []byte("Function Stack,Allocations:Self,Module\nmain,2,a\n"))
	if res.Folded != "" || res.Malformed != 1 {
		t.Errorf("%q %s", res.Folded, res.Warnings)
	}
	// No header at all.
	res = fold1(t, nil, "x", []byte("war:Column filter is ON.\n"))
	if res.Folded != "" || res.Malformed != 1 || !strings.Contains(res.Warnings, "x:1:") {
		t.Errorf("%q %s", res.Folded, res.Warnings)
	}
}

// TestColumns: the columns are found by name, in any order.
func TestColumns(t *testing.T) {
	in := "Function Stack,Allocations:Self,Allocation Size:Self,Module\n" +
		"main,2,100,a.out\n" +
		" \"f, g\",3,300,\"lib, x\"\n"
	for opt, want := range map[bool]string{
		false: "main(a.out) 2\nmain(a.out);f, g(lib, x) 3\n",
		true:  "main(a.out) 100\nmain(a.out);f, g(lib, x) 300\n",
	} {
		res := fold1(t, format.MapOptions{"size": opt}, "x", []byte(in))
		if res.Folded != want || res.Malformed != 0 {
			t.Errorf("size %v: %s\nwant\n%s%s", opt, res.Folded, want, res.Warnings)
		}
	}
}

func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"allocations.csv"},
		NotSureText: []string{
			"Nov  2 10:00:01 host kernel: Function Stack,Allocations:Self\n",
			`{"Function Stack": "Allocations:Self"}`,
			"name,value,unit\nFunction Stack,Allocations:Self,Module\n",
			"Function Stack,CPU Time:Self,Module\n",
			"Level,Function Name,Inclusive Samples,Exclusive Samples\n",
		},
	}.Test(t)
}

func FuzzVTuneMC(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "allocations.csv"))
}

// BenchmarkVTuneMC folds allocations.csv repeated to 4 MB, the stacks
// going nowhere: the parser alone.
func BenchmarkVTuneMC(b *testing.B) {
	in := dir.Read(b, "allocations.csv")
	_, rows, _ := bytes.Cut(in, []byte("\n"))
	_, rows, _ = bytes.Cut(rows, []byte("\n"))
	formattest.Benchmark(b, Format, nil, formattest.Repeat(in, rows, 4<<20))
}

// TestTrimValue holds trimValue to bytes.TrimSpace.
func TestTrimValue(t *testing.T) {
	var vs []string
	for c := range 256 {
		for _, f := range []string{"%c", "1%c", "%c1", "1%c1", "%c\u00a0", "\u00a0%c", "%c\u2003 1"} {
			vs = append(vs, strings.ReplaceAll(f, "%c", string([]byte{byte(c)})))
		}
	}
	vs = append(vs, "", " ", "12", "\u00851\u0085", "\u3000", "\xff1", "1\xc2")
	for _, v := range vs {
		got, want := trimValue([]byte(v)), bytes.TrimSpace([]byte(v))
		if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("trimValue(%q) = %q, want %q", v, got, want)
		}
	}
}
