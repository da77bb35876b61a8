package vtunemc

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/vtunemc"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(r); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func fold1(t testing.TB, opts format.MapOptions, name string, data []byte) formattest.Result {
	t.Helper()
	res, err := formattest.Fold(Format, opts, formattest.Input{Name: name, Data: data})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func parse(t testing.TB, folded string) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for l := range strings.Lines(folded) {
		stack, c, err := fold.ParseLine([]byte(strings.TrimSuffix(l, "\n")))
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		m[string(stack)] += c.Float64()
	}
	return m
}

// TestGolden folds allocations.csv, counting allocations and bytes
// (--size); the goldens equal stackcollapse-vtune-mc.pl's output
// (testdata/vtunemc/*.oracle.folded, run here).
func TestGolden(t *testing.T) {
	for _, option := range []string{"", "size"} {
		base := "allocations"
		opts := format.MapOptions{}
		if option != "" {
			base += "." + option
			opts[option] = true
		}
		t.Run(base, func(t *testing.T) {
			res := fold1(t, opts, "allocations.csv", read(t, "allocations.csv"))
			if res.Malformed != 0 {
				t.Errorf("warnings: %s", res.Warnings)
			}
			golden := filepath.Join("golden", base+".folded")
			if *update {
				os.MkdirAll(filepath.Join(dir, "golden"), 0o755)
				os.WriteFile(filepath.Join(dir, golden), []byte(res.Folded), 0o644)
			}
			want := string(read(t, golden))
			if res.Folded != want {
				t.Fatalf("output differs from %s", golden)
			}
			if oracle := string(read(t, base+".oracle.folded")); want != oracle {
				t.Errorf("golden differs from stackcollapse-vtune-mc.pl's output")
			}
		})
	}
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

var notSure = []string{
	"../perf/recorded/*.txt", "../perf/recorded/*.gz", "../perf/flamegraph/*.txt", "../dtrace/*.txt",
	"../pfilter/iperf.folded", "../stackprof/*.json", "../stackprof/*.dump", "../igprof/*.gz",
	"../igprof/*.txt", "../perfreport/*.txt",
	"../sample/*.txt", "../sample/*.gz", "../instruments/*.txt", "../xctrace/*.xml", "../vtune/*.csv", "../vsprof/*.csv",
}

func TestSniff(t *testing.T) {
	if s := Format.Sniff(read(t, "allocations.csv")); s != format.Sure {
		t.Errorf("allocations.csv: %v", s)
	}
	n := 0
	for _, g := range notSure {
		others, _ := filepath.Glob(filepath.Join(dir, g))
		for _, p := range others {
			n++
			rel, _ := filepath.Rel(dir, p)
			b := read(t, rel)
			if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
				t.Errorf("%s taken for vtune-mc", p)
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d other inputs", n)
	}
	rnd := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(rnd)
	for _, s := range []string{
		"Nov  2 10:00:01 host kernel: Function Stack,Allocations:Self\n",
		string(rnd),
		`{"Function Stack": "Allocations:Self"}`,
		"name,value,unit\nFunction Stack,Allocations:Self,Module\n",
		"Function Stack,CPU Time:Self,Module\n",
		"Level,Function Name,Inclusive Samples,Exclusive Samples\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%.40q taken for vtune-mc", s)
		}
	}
}

func FuzzVTuneMC(f *testing.F) {
	f.Add(read(f, "allocations.csv"))
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkVTuneMC folds allocations.csv repeated to 4 MB, the stacks
// going nowhere: the parser alone.
func BenchmarkVTuneMC(b *testing.B) {
	in := read(b, "allocations.csv")
	_, rows, _ := bytes.Cut(in, []byte("\n"))
	_, rows, _ = bytes.Cut(rows, []byte("\n"))
	data := append([]byte(nil), in...)
	for len(data) < 4<<20 {
		data = append(data, rows...)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	emit := func([]byte, fold.Count) error { return nil }
	diag := stream.NewDiag(io.Discard, false)
	for b.Loop() {
		p, _ := Format.New(format.MapOptions{}, emit, diag)
		rest, n := data, 0
		for len(rest) > 0 {
			line := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				line, rest = rest[:i], rest[i+1:]
			} else {
				rest = nil
			}
			n++
			if err := p.Line("x", n, line); err != nil {
				b.Fatal(err)
			}
		}
		if err := p.End(); err != nil {
			b.Fatal(err)
		}
	}
}
