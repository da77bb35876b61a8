package goraw

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/goraw"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// foldAll runs a parser over data and returns the folded stacks summed
// and sorted, those counted 0 included (pfold prints them, as
// stackcollapse-go.pl does; formattest.Fold leaves them out).
func foldAll(t testing.TB, p *parser, sums map[string]fold.Count, data []byte) string {
	t.Helper()
	n := 0
	for line := range bytes.Lines(data) {
		n++
		if err := p.Line("in", n, bytes.TrimSuffix(line, []byte("\n"))); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
	}
	if err := p.End(); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []byte
	for _, k := range keys {
		out = fold.AppendLine(out, []byte(k), sums[k])
	}
	return string(out)
}

// run folds data with --sample-index index ("" for none), as pfold does
// or, with compat, naming locations as stackcollapse-go.pl does.
func run(t testing.TB, data []byte, index string, compat bool) (string, *bytes.Buffer) {
	t.Helper()
	var warn bytes.Buffer
	sums := map[string]fold.Count{}
	emit := func(stack []byte, c fold.Count) error {
		s, err := sums[string(stack)].Add(c)
		sums[string(stack)] = s
		return err
	}
	p := newParser(index, emit, stream.NewDiag(&warn, false))
	p.compat = compat
	return foldAll(t, p, sums, data), &warn
}

// inputs lists the recordings (go tool pprof -raw of each profile in
// testdata/pprofproto), but diff.txt, whose negative values are refused.
func inputs(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	var names []string
	for _, f := range files {
		if n := strings.TrimSuffix(filepath.Base(f), ".txt"); n != "diff" {
			names = append(names, n)
		}
	}
	if len(names) < 12 {
		t.Fatalf("%d inputs", len(names))
	}
	return names
}

// columns returns how many values each sample of a -raw text has.
func columns(data []byte) int {
	_, after, _ := bytes.Cut(data, []byte("\nSamples:\n"))
	line, _, _ := bytes.Cut(after, []byte("\n"))
	return len(bytes.Fields(line))
}

// differs lists the goldens that differ from stackcollapse-go.pl's output
// on purpose, and why. TestCompat shows that these differences are all:
// with the Perl's naming of locations, pfold prints what the Perl prints.
var differs = map[string]string{
	"cpu":           "inlined frames expanded (the Perl keeps the innermost); a generic shape with spaces named whole",
	"merged":        "inlined frames expanded; a generic shape with spaces named whole",
	"export-shape":  "three values: the Perl folds nothing; inlined frames expanded; a generic shape named whole",
	"gotest-stream": "inlined frames expanded",
	"mutex":         "inlined frames expanded",
	"block":         "inlined frames expanded",
	"heap":          "four values: the Perl folds nothing; inlined frames expanded",
	"allocs":        "four values: the Perl folds nothing; inlined frames expanded",
	"goroutine":     "one value: the Perl folds nothing of one-digit counts and the first digit of longer ones",
	"noinline-cpu":  "a generic shape with spaces (in the runtime) named whole",
	"edge":          "three values: the Perl folds nothing; " + edgeNames,
}

const edgeNames = "the inlined frame expanded; locations without function name named by system name or address " +
	"(the Perl: M=1 or the location id), a folded location by its function (the Perl: [F]), a sample without locations kept"

// differsIndexed lists, among the per-value oracles (the Perl given each
// value as the first of two), those pfold differs from on purpose, and why.
var differsIndexed = map[string]string{
	"cpu":           differs["cpu"],
	"merged":        differs["merged"],
	"export-shape":  "inlined frames expanded; a generic shape named whole",
	"gotest-stream": differs["gotest-stream"],
	"mutex":         differs["mutex"],
	"block":         differs["block"],
	"heap":          "inlined frames expanded",
	"allocs":        "inlined frames expanded",
	"noinline-cpu":  differs["noinline-cpu"],
	"edge":          edgeNames,
}

// TestGolden folds every recording, by default and for each value; the
// goldens equal stackcollapse-go.pl's output but where listed in differs.
func TestGolden(t *testing.T) {
	for _, name := range inputs(t) {
		data := read(t, name+".txt")
		opts := []string{""}
		for i := range columns(data) {
			opts = append(opts, strconv.Itoa(i))
		}
		for _, index := range opts {
			base := name
			why := differs[name]
			if index != "" {
				base += ".sample-index-" + index
				why = differsIndexed[name]
			}
			got, warn := run(t, data, index, false)
			if warn.Len() > 0 {
				t.Errorf("%s: warnings:\n%s", base, warn)
			}
			golden := filepath.Join(dir, "golden", base+".folded")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := read(t, "golden/"+base+".folded")
			if got != string(want) {
				t.Errorf("%s differs from its golden", base)
			}
			oracle := read(t, base+".oracle.folded")
			switch {
			case why == "" && string(want) != string(oracle):
				t.Errorf("golden %s differs from stackcollapse-go.pl's output", base)
			case why != "" && string(want) == string(oracle):
				t.Errorf("golden %s equals stackcollapse-go.pl's output: take it off the list (%s)", base, why)
			}
		}
	}
}

// TestCompat: naming locations as stackcollapse-go.pl does (the first
// line only, cut at its first space) and dropping samples without
// locations, pfold folds each value of every recording byte for byte as
// the Perl folds it given that value first. So the goldens' differences
// from the Perl are the fixes listed in doc.go, and nothing else.
func TestCompat(t *testing.T) {
	for _, name := range inputs(t) {
		data := read(t, name+".txt")
		for i := range columns(data) {
			base := name + ".sample-index-" + strconv.Itoa(i)
			got, _ := run(t, data, strconv.Itoa(i), true)
			if want := read(t, base+".oracle.folded"); got != string(want) {
				t.Errorf("%s: with the Perl's names, pfold differs from it", base)
			}
		}
		if got, _ := run(t, data, "", true); columns(data) == 2 && got != string(read(t, name+".oracle.folded")) {
			t.Errorf("%s: with the Perl's names, pfold differs from it", name)
		}
	}
}

func TestSampleIndex(t *testing.T) {
	heap := read(t, "heap.txt")
	byName, _ := run(t, heap, "inuse_space", false)
	byIndex, _ := run(t, heap, "3", false)
	if byName != byIndex {
		t.Errorf("inuse_space and 3 differ")
	}
	for _, bad := range []string{"4", "-1", "nope"} {
		p := newParser(bad, func([]byte, fold.Count) error { return nil }, stream.NewDiag(&bytes.Buffer{}, false))
		err := feed(p, heap)
		if err == nil || !strings.Contains(err.Error(), "--sample-index") {
			t.Errorf("--sample-index %s: %v", bad, err)
		}
	}
}

func feed(p format.Parser, data []byte) error {
	n := 0
	for line := range bytes.Lines(data) {
		n++
		if err := p.Line("in", n, bytes.TrimSuffix(line, []byte("\n"))); err != nil {
			return err
		}
	}
	return p.End()
}

// TestNegative: a difference of profiles (go tool pprof -diff_base) has
// negative values, which folded stacks cannot carry.
func TestNegative(t *testing.T) {
	_, err := formattest.Fold(Format, nil, formattest.Input{Name: "diff", Data: read(t, "diff.txt")})
	if !errors.Is(err, ErrNegative) {
		t.Fatalf("err = %v, want ErrNegative", err)
	}
}

// TestCases covers what the recordings lack: the -raw text of older
// pprof (no column), CRLF, comments, lines without function ("??"), ids
// no location lists, malformed lines, several inputs.
func TestCases(t *testing.T) {
	const old = "PeriodType: cpu nanoseconds\nPeriod: 10000000\nSamples:\nsamples/count cpu/nanoseconds\n" +
		"     1   10000000: 1 2 \n     2   10000000: 3 2 \n     1   10000000: 4 2 \n" +
		"Locations\n     1: 0x58b265 scanblock :0 s=0\n     2: 0x599530 GC :0 s=0\n" +
		"     3: 0x58a999 flushptrbuf :0 s=0\n     4: 0x58d6a8 runtime.MSpan_Sweep :0 s=0\nMappings\n"
	cases := []struct {
		name, in, index, want string
		malformed             int
	}{
		{"old format", old, "", "GC;flushptrbuf 2\nGC;runtime.MSpan_Sweep 1\nGC;scanblock 1\n", 0},
		{"old format, second value", old, "cpu", "GC;flushptrbuf 10000000\nGC;runtime.MSpan_Sweep 10000000\nGC;scanblock 10000000\n", 0},
		{"CRLF and comments", strings.ReplaceAll("# a comment\n"+old, "\n", "\r\n"), "", "GC;flushptrbuf 2\nGC;runtime.MSpan_Sweep 1\nGC;scanblock 1\n", 0},
		{"no function, no lines, address 0",
			"Samples:\nsamples/count\n 1: 1 2 \n 2: 3 2 \n 4: 4 \nLocations\n" +
				"     1: 0x4a2b3c M=1 ??\n     2: 0x10 M=1 main /x.go:1:0 s=0\n     3: 0xabc \n     4: 0x0 \nMappings\n",
			"", "[unknown] 4\nmain;0x4a2b3c 1\nmain;0xabc 2\n", 0},
		{"inlined, system name, folded",
			"Samples:\nsamples/count\n 1: 1 2 \nLocations\n     1: 0x1 M=1 [F] a /x.go:1:0 s=0\n             b /x.go:2:0 s=0\n" +
				"     2: 0x2 M=1  /x.c:0:0 s=0(_Z1fv)\n",
			"", "_Z1fv;b;a 1\n", 0},
		{"names with spaces and ';'",
			"Samples:\nsamples/count\n 1: 1 \nLocations\n     1: 0x1 M=1 F[go.shape.struct { x int; y int }] /x.go:1:0 s=0\n",
			"", "F[go.shape.struct { x int: y int }] 1\n", 0},
		{"id not listed", "Samples:\nsamples/count\n 1: 1 9 \nLocations\n     1: 0x1 a /x.go:1:0 s=0\n", "", "9;a 1\n", 1},
		{"empty sample", "Samples:\nsamples/count\n 7: \nLocations\n", "", "[unknown] 7\n", 0},
		{"malformed", "Samples:\nsamples/count cpu/ns\n 1 2: 1 \n 1 x: 1\n 1 2 3: 1\n 1 2: 1 x\n nonsense\n 99999999999999999999 2: 1\n" +
			"Locations\n     1: 0x1 a /x.go:1:0 s=0\n     1: 0x1 b /x.go:1:0 s=0\nhello\n     2: 0xzz a\n", "", "a 1\n", 8},
		{"legacy inuse_ name", "Samples:\nobjects/count space/bytes\n 1 2: 1 \nLocations\n     1: 0x1 a /x.go:1:0 s=0\n", "inuse_space", "a 2\n", 0},
		{"label lines", "Samples:\nsamples/count\n 1: 1 \n                phase:[hash]\n                bytes:[16 bytes]\n 2: 1 \n" +
			"Locations\n     1: 0x1 a /x.go:1:0 s=0\n", "", "a 3\n", 0},
	}
	for _, c := range cases {
		res, err := formattest.Fold(Format, format.MapOptions{"sample-index": c.index}, formattest.Input{Name: "in", Data: []byte(c.in)})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if res.Folded != c.want || res.Malformed != c.malformed {
			t.Errorf("%s: got\n%s(%d malformed: %s), want\n%s(%d malformed)", c.name, res.Folded, res.Malformed, res.Warnings, c.want, c.malformed)
		}
	}
	// Two inputs: each is a profile of its own.
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "a", Data: []byte(old)}, formattest.Input{Name: "b", Data: []byte(old)})
	if err != nil || res.Folded != "GC;flushptrbuf 4\nGC;runtime.MSpan_Sweep 2\nGC;scanblock 2\n" {
		t.Errorf("two inputs: %q, %v", res.Folded, err)
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "a", Data: []byte("Samples:\nsamples/count\n 1 x: 1\n")}); err == nil {
		t.Errorf("strict: no error on a malformed line")
	}
}

// TestSniff: every recording is recognised; the other formats pfold
// reads, and what is no profile, are not taken for it.
func TestSniff(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, f := range files {
		if s := Format.Sniff(read(t, filepath.Base(f))); s != format.Sure {
			t.Errorf("%s: %v", f, s)
		}
	}
	var others []string
	for _, g := range []string{"perf/recorded/*", "perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded",
		"stackprof/*", "igprof/*", "perfreport/*.txt", "pprofproto/*.pb.gz", "goraw/*.folded", "goraw/golden/*"} {
		m, _ := filepath.Glob(filepath.Join(dir, "..", g))
		if len(m) == 0 {
			t.Errorf("no files match %s", g)
		}
		others = append(others, m...)
	}
	for _, f := range others {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) { // a profile: the core un-gzips it
			z, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(z); err != nil {
				t.Fatal(err)
			}
		}
		if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
			t.Errorf("%s taken for go tool pprof -raw text", f)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host kernel: [    0.000000] Linux version\nNov  2 10:00:02 host systemd[1]: Started\n",
		`{"Samples:": 1}` + "\n",
		"name,Samples:,count\na,b,1\n",
		"Samples:\n\n",
		"Samples:\nsamples count\n 1: 1\n",
		"Samples:\nsamples/count\nsomething else\n",
		"hello: world\nSamples:\nsamples/count\n 1: 1 \n",
		"\x00\x01\x02Samples:\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for go tool pprof -raw text", s)
		}
	}
}

func FuzzGoRaw(f *testing.F) {
	for _, n := range []string{"edge.txt", "goroutine.txt", "block.txt", "diff.txt"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkGoRaw folds the go test -cpuprofile recording, repeated to
// about 4 MB, one input per copy as a stream of profiles.
func BenchmarkGoRaw(b *testing.B) {
	one := read(b, "gotest-stream.txt")
	n := 4 << 20 / len(one)
	b.SetBytes(int64(n * len(one)))
	b.ReportAllocs()
	p := newParser("", func([]byte, fold.Count) error { return nil }, stream.NewDiag(&bytes.Buffer{}, false))
	lines := bytes.Split(bytes.TrimSuffix(one, []byte("\n")), []byte("\n"))
	for b.Loop() {
		for range n {
			for i, l := range lines {
				if err := p.Line("x", i+1, l); err != nil {
					b.Fatal(err)
				}
			}
			if err := p.End(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
