package instruments

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

const dir = "../../testdata/instruments"

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

// TestGolden folds deep-copy.txt; the golden equals
// stackcollapse-instruments.pl's output (testdata/instruments/
// deep-copy.oracle.folded, run here).
func TestGolden(t *testing.T) {
	res := fold1(t, nil, "deep-copy.txt", read(t, "deep-copy.txt"))
	if res.Malformed != 0 {
		t.Errorf("warnings: %s", res.Warnings)
	}
	golden := filepath.Join("golden", "deep-copy.folded")
	if *update {
		os.MkdirAll(filepath.Join(dir, "golden"), 0o755)
		os.WriteFile(filepath.Join(dir, golden), []byte(res.Folded), 0o644)
	}
	want := string(read(t, golden))
	if res.Folded != want {
		t.Fatalf("output differs from %s", golden)
	}
	if oracle := string(read(t, "deep-copy.oracle.folded")); want != oracle {
		t.Errorf("golden differs from stackcollapse-instruments.pl's output")
	}
}

// TestFractions: weights under a millisecond, or not whole, are kept
// exactly. The script rounds each row to whole milliseconds (printf
// "%.0f": 1.5 is 2, 2.5 is 2) and dies at the first µs.
func TestFractions(t *testing.T) {
	res := fold1(t, nil, "fractions.txt", read(t, "fractions.txt"))
	want := "" +
		"cwork (4242);Main Thread  0x1a2b3c;main 1.5\n" + // the Perl: 2
		"cwork (4242);Main Thread  0x1a2b3c;main;free 0.5\n" + // the Perl: never reached
		"cwork (4242);Main Thread  0x1a2b3c;main;work 2.5\n" + // the Perl: 2
		"cwork (4242);Main Thread  0x1a2b3c;main;work;compute 7.4\n" + // the Perl: 7
		"cwork (4242);Main Thread  0x1a2b3c;main;work;compute;memcpy 0.5\n" // the Perl dies here
	if res.Folded != want || res.Malformed != 0 {
		t.Errorf("%s\nwant\n%s%s", res.Folded, want, res.Warnings)
	}
	golden := filepath.Join("golden", "fractions.folded")
	if *update {
		os.WriteFile(filepath.Join(dir, golden), []byte(res.Folded), 0o644)
	}
	if string(read(t, golden)) != res.Folded {
		t.Errorf("output differs from %s", golden)
	}
}

func TestMillis(t *testing.T) {
	var p parser
	for in, want := range map[string]string{
		"0 s": "", "0.00 ms": "", "1 ms": "1", "1.00 ms": "1", "120.00 ms": "120", "1.44 s": "1440",
		"2 s": "2000", "1.02 min": "61200", "0.5 min": "30000", "500.00 µs": "0.5", "7 µs": "0.007",
		"12.5 μs": "0.0125", "0.001 ms": "0.001", "1.234567 s": "1234.567",
	} {
		num, u, _ := strings.Cut(in, " ")
		got, ok := p.millis([]byte(num), []byte(u))
		if !ok || string(got) != want {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
}

// TestMalformed: rows the script dies on are reported with file:line
// and skipped; a missing level is a placeholder, not a stale frame.
func TestMalformed(t *testing.T) {
	in := "Weight\tSelf Weight\t\tSymbol Name\r\n" +
		"2.00 ms  100.0%\t1.00 ms\t \tmain\r\n" +
		"1.00 ms  50.0%\t1.00 ms\t \t   deep\r\n" + // two levels missing
		"garbage\r\n" +
		"1.00 ms  50.0%\t1.00 ns\t \t f\r\n" + // unknown unit
		"\r\n" +
		"1.00 ms  50.0%\t1.00 ms\t \t g;h\r\n"
	res := fold1(t, nil, "x", []byte(in))
	want := "main 1\nmain;[unknown];[unknown];deep 1\nmain;g:h 1\n"
	if res.Folded != want || res.Malformed != 3 {
		t.Errorf("%s\nwant\n%s%s", res.Folded, want, res.Warnings)
	}
	for _, l := range []string{"x:3:", "x:4:", "x:5:"} {
		if !strings.Contains(res.Warnings, l) {
			t.Errorf("no warning at %s:\n%s", l, res.Warnings)
		}
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "x", Data: []byte(in)}); err == nil || !strings.Contains(err.Error(), "x:3:") {
		t.Errorf("strict: %v", err)
	}
	// Without the header, the first row is read (the script skips it).
	res = fold1(t, nil, "x", []byte("2.00 ms  100.0%\t2.00 ms\t \tmain\n"))
	if res.Folded != "main 2\n" {
		t.Errorf("%q", res.Folded)
	}
	// Each input has its own header.
	res2, err := formattest.Fold(Format, nil, formattest.Input{Name: "a", Data: read(t, "deep-copy.txt")}, formattest.Input{Name: "b", Data: read(t, "deep-copy.txt")})
	if err != nil || res2.Malformed != 0 {
		t.Errorf("%v %s", err, res2.Warnings)
	}
}

var notSure = []string{
	"../perf/recorded/*.txt", "../perf/recorded/*.gz", "../perf/flamegraph/*.txt", "../dtrace/*.txt",
	"../pfilter/iperf.folded", "../stackprof/*.json", "../stackprof/*.dump", "../igprof/*.gz",
	"../igprof/*.txt", "../perfreport/*.txt",
	"../sample/*.txt", "../sample/*.gz", "../xctrace/*.xml", "../vtune/*.csv", "../vtunemc/*.csv", "../vsprof/*.csv",
}

func TestSniff(t *testing.T) {
	for _, f := range []string{"deep-copy.txt", "fractions.txt"} {
		if s := Format.Sniff(read(t, f)); s != format.Sure {
			t.Errorf("%s: %v", f, s)
		}
	}
	n := 0
	for _, g := range notSure {
		others, _ := filepath.Glob(filepath.Join(dir, g))
		for _, p := range others {
			n++
			rel, _ := filepath.Rel(dir, p)
			b := read(t, rel)
			if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
				t.Errorf("%s taken for instruments", p)
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d other inputs", n)
	}
	rnd := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(rnd)
	for _, s := range []string{
		"Nov  2 10:00:01 host kernel: 1.00 ms  100.0%\t1.00 ms\t \tmain\nNov  2 10:00:02 host x\n",
		string(rnd),
		`{"weight": "1.00 ms"}`,
		"weight,self,symbol\n1.00 ms,1.00 ms,main\n",
		"Weight\tSelf Weight\t\tSymbol Name\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%.40q taken for instruments", s)
		}
	}
}

func FuzzInstruments(f *testing.F) {
	for _, n := range []string{"deep-copy.txt", "fractions.txt"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkInstruments folds deep-copy.txt repeated to 4 MB, the stacks
// going nowhere: the parser alone.
func BenchmarkInstruments(b *testing.B) {
	in := read(b, "deep-copy.txt")
	_, rows, _ := bytes.Cut(in, []byte("\n"))
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
