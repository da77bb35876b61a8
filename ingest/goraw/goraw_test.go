package goraw

import (
	"bytes"
	"errors"
	"flag"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/ingest/internal/flags"
	"github.com/pfold/pfold/stream"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/goraw"

// compatFormat is Format naming locations as stackcollapse-go.pl does
// (the first line only, cut at its first space) and dropping samples
// without locations.
var compatFormat = func() format.Format {
	f := Format
	f.New = func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		p := newParser(opts.String(flags.SampleIndex.Name), emit, diag)
		p.compat = true
		return p, nil
	}
	return f
}()

// run folds data with --sample-index index ("" for none), as pfold does
// or, with compat, naming locations as stackcollapse-go.pl does.
func run(t testing.TB, data []byte, index string, compat bool) string {
	t.Helper()
	f := Format
	if compat {
		f = compatFormat
	}
	res, err := formattest.Fold(f, format.MapOptions{flags.SampleIndex.Name: index}, formattest.Input{Name: "in", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return res.Folded
}

// inputs are the recordings (go tool pprof -raw of each profile in
// testdata/pprofproto), but diff.txt, whose negative values are refused.
var (
	inputs = []string{"*.txt"}
	skip   = map[string]string{"diff.txt": "its negative values are refused (TestNegative)"}
)

// columns returns how many values each sample of a -raw text has.
func columns(data []byte) int {
	_, after, _ := bytes.Cut(data, []byte("\nSamples:\n"))
	line, _, _ := bytes.Cut(after, []byte("\n"))
	return len(bytes.Fields(line))
}

// indexes are the option sets of an input: --sample-index for each of
// its values.
func indexes(_ testing.TB, _ string, data []byte) []formattest.Option {
	var opts []formattest.Option
	for i := range columns(data) {
		opts = append(opts, formattest.Option{Name: "sample-index-" + strconv.Itoa(i), Opts: format.MapOptions{flags.SampleIndex.Name: strconv.Itoa(i)}})
	}
	return opts
}

const edgeNames = "the inlined frame expanded; locations without function name named by system name or address " +
	"(the Perl: M=1 or the location id), a folded location by its function (the Perl: [F]), a sample without locations kept"

// TestGolden folds every recording, by default and for each value; the
// goldens equal stackcollapse-go.pl's output (run by default, and given
// each value as the first of two) but where listed. TestCompat shows
// that these differences are all: with the Perl's naming of locations,
// pfold prints what the Perl prints.
func TestGolden(t *testing.T) {
	differs := map[string]string{
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
	// Among the per-value oracles, those pfold differs from.
	differsIndexed := map[string]string{
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
	known := map[string]formattest.Diff{}
	for name, why := range differs {
		known[name] = formattest.Diff{Why: why}
	}
	for name, why := range differsIndexed {
		for i := range columns(dir.Read(t, name+".txt")) {
			known[name+".sample-index-"+strconv.Itoa(i)] = formattest.Diff{Why: why}
		}
	}
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: inputs, Skip: skip, Ext: ".txt", Min: 12,
		OptionsOf:  indexes,
		References: []formattest.Reference{{Tool: "stackcollapse-go.pl", Differs: known}},
	}.Test(t)
}

// TestCompat: naming locations as stackcollapse-go.pl does (the first
// line only, cut at its first space) and dropping samples without
// locations, pfold folds each value of every recording byte for byte as
// the Perl folds it given that value first. So the goldens' differences
// from the Perl are the fixes listed in doc.go, and nothing else.
func TestCompat(t *testing.T) {
	files, _ := filepath.Glob(dir.Path("*.txt"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		if _, ok := skip[name+".txt"]; ok {
			continue
		}
		data := dir.Read(t, name+".txt")
		for i := range columns(data) {
			base := name + ".sample-index-" + strconv.Itoa(i)
			if got := run(t, data, strconv.Itoa(i), true); got != string(dir.Read(t, base+".oracle.folded")) {
				t.Errorf("%s: with the Perl's names, pfold differs from it", base)
			}
		}
		if got := run(t, data, "", true); columns(data) == 2 && got != string(dir.Read(t, name+".oracle.folded")) {
			t.Errorf("%s: with the Perl's names, pfold differs from it", name)
		}
	}
}

func TestSampleIndex(t *testing.T) {
	heap := dir.Read(t, "heap.txt")
	if run(t, heap, "inuse_space", false) != run(t, heap, "3", false) {
		t.Errorf("inuse_space and 3 differ")
	}
	var cases []formattest.Case
	for _, bad := range []string{"4", "-1", "nope"} {
		cases = append(cases, formattest.Case{Name: bad, In: string(heap), Opts: format.MapOptions{flags.SampleIndex.Name: bad}, Err: "--sample-index"})
	}
	formattest.Cases(t, Format, cases)
}

// TestNegative: a difference of profiles (go tool pprof -diff_base) has
// negative values, which folded stacks cannot carry.
func TestNegative(t *testing.T) {
	_, err := formattest.Fold(Format, nil, formattest.Input{Name: "diff", Data: dir.Read(t, "diff.txt")})
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
	var cs []formattest.Case
	for _, c := range cases {
		cs = append(cs, formattest.Case{Name: c.name, In: c.in, Opts: format.MapOptions{flags.SampleIndex.Name: c.index}, Want: c.want, Malformed: c.malformed})
	}
	formattest.Cases(t, Format, cs)
	// Two inputs: each is a profile of its own.
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "a", Data: []byte(old)}, formattest.Input{Name: "b", Data: []byte(old)})
	if err != nil || res.Folded != "GC;flushptrbuf 4\nGC;runtime.MSpan_Sweep 2\nGC;scanblock 2\n" {
		t.Errorf("two inputs: %q, %v", res.Folded, err)
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "a", Data: []byte("Samples:\nsamples/count\n 1 x: 1\n")}); err == nil {
		t.Errorf("strict: no error on a malformed line")
	}
}

// TestSniff: every recording is recognised; nothing else is taken for
// it.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		NotSureText: []string{
			"Nov  2 10:00:01 host kernel: [    0.000000] Linux version\nNov  2 10:00:02 host systemd[1]: Started\n",
			`{"Samples:": 1}` + "\n",
			"name,Samples:,count\na,b,1\n",
			"Samples:\n\n",
			"Samples:\nsamples count\n 1: 1\n",
			"Samples:\nsamples/count\nsomething else\n",
			"hello: world\nSamples:\nsamples/count\n 1: 1 \n",
			"\x00\x01\x02Samples:\n",
		},
	}.Test(t)
}

func FuzzGoRaw(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "edge.txt"), dir.Read(f, "goroutine.txt"), dir.Read(f, "block.txt"), dir.Read(f, "diff.txt"))
}

// BenchmarkGoRaw folds the go test -cpuprofile recording, repeated to
// about 4 MB, one input per copy as a stream of profiles.
func BenchmarkGoRaw(b *testing.B) {
	one := dir.Read(b, "gotest-stream.txt")
	formattest.Benchmark(b, Format, nil, slices.Repeat([][]byte{one}, 4<<20/len(one))...)
}
