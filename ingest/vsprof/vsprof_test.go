package vsprof

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/vsprof"

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

var space = regexp.MustCompile(`\s`)

// perlLeaves: stackcollapse-vsprof.pl writes only the leaves of the tree
// (with their own count) and deletes all white space from names
// ("classRaytracer.Ray&"); its every stack is pfold's with the spaces
// taken out.
func perlLeaves(t *testing.T, got, perl map[string]float64) {
	squeezed := map[string]float64{}
	for s, c := range got {
		squeezed[space.ReplaceAllString(s, "")] += c
	}
	for s, c := range perl {
		if squeezed[s] != c {
			t.Errorf("%s: %g, the Perl %g", s, squeezed[s], c)
		}
	}
}

// infernoLast: inferno keeps the last of identical stacks
// (Occurrences::insert) where pfold adds them up; the stacks are the same.
func infernoLast(t *testing.T, got, inf map[string]float64) {
	if len(got) != len(inf) {
		t.Errorf("%d stacks, inferno %d", len(got), len(inf))
	}
	for s, c := range inf {
		if got[s] < c {
			t.Errorf("%s: %g, inferno %g", s, got[s], c)
		}
	}
}

// TestGolden folds inferno's CallTreeSummary.csv (Number of Calls) and
// samples.csv (Inclusive Samples, the Perl's layout). Both references
// were run here (testdata/vsprof/*.oracle.folded); pfold differs from
// each in the ways the checks say, and nowhere else.
func TestGolden(t *testing.T) {
	cases := []struct {
		input  string
		checks map[string]func(t *testing.T, got, ref map[string]float64)
		total  float64 // samples layout: every sample lands once
	}{
		{"CallTreeSummary.csv", map[string]func(*testing.T, map[string]float64, map[string]float64){"perl": perlLeaves, "inferno": infernoLast}, 0},
		// inferno refuses this layout (its header check wants Number of Calls).
		{"samples.csv", map[string]func(*testing.T, map[string]float64, map[string]float64){"perl": perlLeaves}, 8735},
	}
	for _, tc := range cases {
		base := strings.TrimSuffix(tc.input, ".csv")
		t.Run(base, func(t *testing.T) {
			res := fold1(t, nil, tc.input, read(t, tc.input))
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
			got := parse(t, want)
			for ref, check := range tc.checks {
				oracle := string(read(t, base+"."+ref+".oracle.folded"))
				if oracle == want {
					t.Errorf("golden equals the %s oracle, listed as differing", ref)
				}
				t.Run(ref, func(t *testing.T) { check(t, got, parse(t, oracle)) })
			}
			if tc.total != 0 {
				var s float64
				for _, c := range got {
					s += c
				}
				if s != tc.total {
					t.Errorf("%g samples, want %g", s, tc.total)
				}
			}
		})
	}
}

// TestErrorCases: inferno's malformed inputs (where it stops with an
// error) are reported with file:line; what can be read is kept.
func TestErrorCases(t *testing.T) {
	cases := []struct {
		input string
		lines []string
		out   string
	}{
		// Nothing to read, nothing to say (inferno warns).
		{"empty-file.csv", nil, ""},
		{"incorrect-header.csv", []string{":1:"}, ""},
		// "x,…": the row is skipped.
		{"invalid-depth.csv", []string{":3:"}, ""},
		// An unclosed quote: a placeholder at level 1.
		{"invalid-function-name.csv", []string{":3:"}, ""},
		// "4,718.25" calls: the frame is kept, counting nothing.
		{"invalid-number-of-calls.csv", []string{":3:"}, ""},
		// "0" alone: no name.
		{"missing-function-name.csv", []string{":2:"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.input, func(t *testing.T) {
			res := fold1(t, nil, tc.input, read(t, tc.input))
			if res.Malformed != len(tc.lines) {
				t.Errorf("%d warnings, want %d:\n%s", res.Malformed, len(tc.lines), res.Warnings)
			}
			for _, l := range tc.lines {
				if !strings.Contains(res.Warnings, tc.input+l) {
					t.Errorf("no warning at %s:\n%s", l, res.Warnings)
				}
			}
			if res.Folded != tc.out {
				t.Errorf("output %q, want %q", res.Folded, tc.out)
			}
			if len(tc.lines) > 0 {
				if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: tc.input, Data: read(t, tc.input)}); err == nil || !strings.Contains(err.Error(), tc.input+tc.lines[0]) {
					t.Errorf("strict: %v", err)
				}
			}
		})
	}
}

// TestRows: placeholders keep the rows under a bad one in place, in
// both layouts; counts in other locales' grouping are read.
func TestRows(t *testing.T) {
	samples := "Level,Function Name,Inclusive Samples,Exclusive Samples,Module Name,\n" +
		"1,\"main\",\"1.200\",0,\"a\",\n" +
		"3,\"deep\",\"1 000\",\"1 000\",\"a\",\n" + // level 2 missing
		"2,\"f;g\",\"2,0\",0,\"a\",\n" + // a bad count: kept, counting nothing
		"3,\"h\",100,100,\"a\",\n"
	res := fold1(t, nil, "x", []byte(samples))
	want := "main 100\nmain;[unknown];deep 1000\nmain;f:g;h 100\n"
	if res.Folded != want || res.Malformed != 2 || !strings.Contains(res.Warnings, "x:3:") || !strings.Contains(res.Warnings, "x:4:") {
		t.Errorf("samples:\n%s\nwant\n%s%s", res.Folded, want, res.Warnings)
	}
	calls := "Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Module Name,\n" +
		"0,\"app.exe\",0,100,\"\",\n" +
		"1,\"main\",1,100,\"a\",\n" +
		"3,\"deep\",\"1\u00a0000\",1,\"a\",\n" +
		"2,\"f\",5,1,\"a\",\n"
	res = fold1(t, nil, "x", []byte(calls))
	want = "main 1\nmain;[unknown];deep 1000\nmain;f 5\n"
	if res.Folded != want || res.Malformed != 1 || !strings.Contains(res.Warnings, "x:4:") {
		t.Errorf("calls:\n%s\nwant\n%s%s", res.Folded, want, res.Warnings)
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "471": 471, "2,893,824": 2893824, "2.893.824": 2893824, "2 893 824": 2893824, "1\u202f000": 1000, "2893824": 2893824} {
		if got, why := parseNumber([]byte(in)); got != want || why != "" {
			t.Errorf("%q: %d %s", in, got, why)
		}
	}
	for _, in := range []string{"", "x", "4,718.25", "28,93824", "2893,824", "1,00", ",100", "100,", "-1", "99999999999999999999"} {
		if _, why := parseNumber([]byte(in)); why == "" {
			t.Errorf("%q read", in)
		}
	}
}

var notSure = []string{
	"../perf/recorded/*.txt", "../perf/recorded/*.gz", "../perf/flamegraph/*.txt", "../dtrace/*.txt",
	"../pfilter/iperf.folded", "../stackprof/*.json", "../stackprof/*.dump", "../igprof/*.gz",
	"../igprof/*.txt", "../perfreport/*.txt",
	"../sample/*.txt", "../sample/*.gz", "../instruments/*.txt", "../xctrace/*.xml", "../vtune/*.csv", "../vtunemc/*.csv",
}

func TestSniff(t *testing.T) {
	for _, f := range []string{"CallTreeSummary.csv", "samples.csv", "invalid-depth.csv", "invalid-function-name.csv", "invalid-number-of-calls.csv", "missing-function-name.csv"} {
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
				t.Errorf("%s taken for vsprof", p)
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d other inputs", n)
	}
	rnd := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(rnd)
	for _, s := range []string{
		"Nov  2 10:00:01 host kernel: Level,Function Name,Number of Calls,\n",
		string(rnd),
		`{"Level": 1, "Function Name": "main"}`,
		"Level,Function Name,Count\n1,main,3\n",
		"name,value,unit\nLevel,Function Name,Inclusive Samples\n",
		"Function Stack,CPU Time:Self,Module\n",
		"This is not a correct header\r\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%.40q taken for vsprof", s)
		}
	}
}

func FuzzVSProf(f *testing.F) {
	for _, n := range []string{"CallTreeSummary.csv", "samples.csv", "invalid-function-name.csv"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkVSProf folds inferno's CallTreeSummary.csv repeated to 4 MB, the stacks
// going nowhere: the parser alone.
func BenchmarkVSProf(b *testing.B) {
	in := read(b, "CallTreeSummary.csv")
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
