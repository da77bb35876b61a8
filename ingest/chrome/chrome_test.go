package chrome

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/chrome"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// inputs are the traces of testdata/chrome: recordings made here and
// hand-made ones (ORIGIN.md).
func inputs(t testing.TB) []string {
	var names []string
	for _, g := range []string{"*.json", "*.json.gz"} {
		m, _ := filepath.Glob(filepath.Join(dir, g))
		for _, f := range m {
			names = append(names, filepath.Base(f))
		}
	}
	if len(names) < 7 {
		t.Fatalf("%d inputs", len(names))
	}
	return names
}

func base(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".json")
}

// differs lists the inputs whose golden is not the script's output, and
// why; every other golden equals its oracle byte for byte.
var differs = map[string]string{
	"misnested": "the script nests events that start together in file order (a parent gets -5), " +
		"lets an event that ends after its parent outlive it (the next events nest under a parent that has ended), " +
		"and prints names with ';' or a line break as they are (two frames, a broken line); " +
		"pfold nests the longer event outside, cuts an event at its parent's end, and writes ':' and a space",
}

// TestGolden folds every input; the goldens equal stackcollapse-chrome-
// tracing.py's output (*.oracle.folded, made by running it here), but
// for the inputs listed in differs.
func TestGolden(t *testing.T) {
	for _, in := range inputs(t) {
		b := base(in)
		res, err := formattest.Fold(Format, nil, formattest.Input{Name: in, Data: read(t, in)})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if res.Malformed != 0 {
			t.Errorf("%s: %s", in, res.Warnings)
		}
		golden := filepath.Join(dir, "golden", b+".folded")
		if *update {
			os.MkdirAll(filepath.Dir(golden), 0o755)
			os.WriteFile(golden, []byte(res.Folded), 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if res.Folded != string(want) {
			t.Errorf("%s differs from its golden", in)
		}
		oracle := read(t, b+".oracle.folded")
		if why, ok := differs[b]; ok {
			if string(want) == string(oracle) {
				t.Errorf("golden %s equals the script's output, but is listed as differing (%s)", b, why)
			}
			continue
		}
		if string(want) != string(oracle) {
			t.Errorf("golden %s differs from stackcollapse-chrome-tracing.py's output", b)
		}
	}
}

// TestMisnested pins what pfold makes of the events the script gets
// wrong.
func TestMisnested(t *testing.T) {
	want := "a:b 2\n" +
		"a:b;- 1\n" +
		"a:b;line break 1\n" +
		"after the parent 2\n" +
		"parent 5\n" +
		"parent written second 5\n" +
		"parent written second;child written first 5\n" +
		"parent;child past the parent's end 5\n"
	if got := string(read(t, "golden/misnested.folded")); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestCases: the rules the fixtures do not show.
func TestCases(t *testing.T) {
	for _, c := range []struct {
		name      string
		in        []string
		want      string
		malformed int
	}{
		{"each input is a trace of its own",
			[]string{`{"traceEvents":[{"pid":1,"tid":1,"ts":0,"dur":10,"ph":"X","name":"a"}]}`,
				`{"traceEvents":[{"pid":1,"tid":1,"ts":5,"dur":2,"ph":"X","name":"b"}]}`},
			"a 10\nb 2\n", 0},
		{"array cut in an event",
			[]string{`[{"pid":1,"tid":1,"ts":0,"dur":10,"ph":"X","name":"a"},{"pid":1,"tid":1,"ts":`},
			"a 10\n", 1},
		{"array closed",
			[]string{`[{"pid":1,"tid":1,"ts":0,"dur":10,"ph":"X","name":"a"}]`},
			"a 10\n", 0},
		{"object cut short",
			[]string{`{"traceEvents":[{"pid":1,"tid":1,"ts":0,"dur":10,"ph":"X","name":"a"},`},
			"a 10\n", 1},
		{"no ph, no name, bad times",
			[]string{`{"traceEvents":[{"ts":0,"dur":1,"name":"x"},{"ph":"X","ts":0,"dur":1},{"ph":"X","name":"x","ts":"0","dur":1},` +
				`{"ph":"X","name":"x","ts":0,"dur":-1},{"ph":"X","name":"x","ts":0,"dur":null},{"ph":"X","name":7,"ts":0,"dur":1},3,` +
				`{"ph":"X","name":"ok","ts":0,"dur":1e999},{"ph":"X","name":"ok","ts":0,"dur":1}]}`},
			"ok 1\n", 8},
		{"no pid or tid is one more thread",
			[]string{`{"traceEvents":[{"ph":"X","name":"a","ts":0,"dur":4},{"ph":"X","name":"b","ts":1,"dur":1},{"pid":1,"tid":1,"ph":"X","name":"c","ts":1,"dur":1}]}`},
			"a 3\na;b 1\nc 1\n", 0},
		{"escaped keys and names",
			[]string{`{"traceEvents":[{"p\u0068":"\u0058","name":"\u0061\nb","ts":0,"dur":4}]}`},
			"a b 4\n", 0},
		{"duplicate keys: the last wins, as in Python",
			[]string{`{"traceEvents":[{"ph":"X","name":"a","name":"b","ts":0,"dur":1,"dur":2}]}`},
			"b 2\n", 0},
		{"byte order mark", []string{"\xef\xbb\xbf" + `{"traceEvents":[{"ph":"X","name":"a","ts":0,"dur":4}]}`}, "a 4\n", 0},
		{"large integers stay integers", []string{`{"traceEvents":[{"ph":"X","name":"a","ts":0,"dur":123456789012345678}]}`}, "a 123456789012345680\n", 0},
		{"traceEvents not an array", []string{`{"traceEvents":{"a":1},"x":[]}`}, "", 1},
		{"no traceEvents", []string{`{"nodes":[]}`}, "", 1},
		{"not json", []string{`hello`}, "", 1},
		{"a number", []string{`42`}, "", 1},
		{"empty", []string{``}, "", 1},
		{"empty trace", []string{`{"traceEvents":[]}`}, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in []formattest.Input
			for i, s := range c.in {
				in = append(in, formattest.Input{Name: string(rune('a' + i)), Data: []byte(s)})
			}
			res, err := formattest.Fold(Format, nil, in...)
			if err != nil {
				t.Fatal(err)
			}
			if want := sortLines(c.want); res.Folded != want {
				t.Errorf("got\n%s\nwant\n%s", res.Folded, want)
			}
			if res.Malformed != c.malformed {
				t.Errorf("%d malformed, want %d: %s", res.Malformed, c.malformed, res.Warnings)
			}
			if c.malformed > 0 {
				if _, err := formattest.FoldStrict(Format, nil, in...); err == nil {
					t.Error("strict: no error")
				}
			}
		})
	}
}

func sortLines(s string) string {
	l := strings.SplitAfter(s, "\n")
	slices.Sort(l)
	return strings.Join(l, "")
}

func TestStats(t *testing.T) {
	p, _ := Format.NewDocument(nil, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
	if err := p.Read("x", bytes.NewReader(read(t, "misnested.json"))); err != nil {
		t.Fatal(err)
	}
	if err := p.Read("y", bytes.NewReader(read(t, "fractional.json"))); err != nil {
		t.Fatal(err)
	}
	want := "22 complete events on 6 threads in 2 traces, 1 without a duration skipped, 1 cut at their parent's end"
	if got := p.(format.Stater).Stats(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSniff: every trace is recognised; V8 CPU profiles, stackprof JSON,
// other JSON and other formats are not.
func TestSniff(t *testing.T) {
	for _, in := range inputs(t) {
		if s := Format.Sniff(cut(read(t, in))); s != format.Sure {
			t.Errorf("%s: %v", in, s)
		}
	}
	var others []string
	for _, g := range []string{"cpuprofile/*.cpuprofile", "cpuprofile/*.heapprofile", "stackprof/*", "perf/recorded/*",
		"perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded", "igprof/*", "perfreport/*.txt"} {
		m, _ := filepath.Glob(filepath.Join(dir, "..", g))
		if len(m) == 0 {
			t.Errorf("no %s", g)
		}
		others = append(others, m...)
	}
	for _, f := range others {
		if fi, err := os.Stat(f); err != nil || fi.IsDir() {
			continue
		}
		rel, _ := filepath.Rel(dir, f)
		if s := Format.Sniff(cut(read(t, rel))); s == format.Sure {
			t.Errorf("%s taken for a Chrome trace", f)
		}
	}
	rnd := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(rnd)
	for _, c := range []string{
		string(rnd),
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey for root\nNov  2 10:00:02 host cron[9]: job\n",
		"a,b,c\n1,2,3\n",
		`{"version":1.2,"mode":"cpu","interval":1000,"samples":10,"frames":{}}`,
		`{"name":"pfold","version":"1.0.0","dependencies":{}}`,
		`{"traceEvents":"none"}`,
		`{"traceEvents":[1,2]}`,
		`{"traceEvents":[{"name":"x"}]}`,
		`[{"name":"x","ts":1}]`,
		`[{"ph":"X"}]`,
		`[]`,
		`[1,2,3]`,
		`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"traceEvents":[]}`,
		``,
	} {
		if s := Format.Sniff([]byte(c)); s == format.Sure {
			t.Errorf("%.60q taken for a Chrome trace", c)
		}
	}
	for _, c := range []string{
		`{"traceEvents":[]}`,
		`{"metadata":{"source":"DevTools"},"traceEvents":[{"args":{},"cat":"x","name":"y","ph":"M","pid":1,"tid":1,"ts":0}]}`,
		`[{"name":"x","ph":"X","ts":1,"dur":2},`,
	} {
		if s := Format.Sniff([]byte(c)); s != format.Sure {
			t.Errorf("%.60q: %v", c, s)
		}
	}
}

func cut(b []byte) []byte { return b[:min(len(b), format.SniffSize)] }

func FuzzChrome(f *testing.F) {
	for _, n := range []string{"fractional.json", "misnested.json", "array-format.json", "flamegraph-example.json"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkChrome folds the largest recording, chromium traced with the
// toplevel category (8 MB of JSON, 36 000 events).
func BenchmarkChrome(b *testing.B) {
	data := read(b, "chromium-toplevel.json.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer cpuRate(b, int64(len(data)))()
	for b.Loop() {
		if _, err := formattest.Fold(Format, nil, formattest.Input{Name: "x", Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}

// largeTrace is a long recording: chromium-toplevel's events again and
// again to 64 MB, each copy later in time and in processes of its own,
// as benchgen -format chrome writes it.
func largeTrace(b *testing.B) []byte {
	var doc struct{ TraceEvents []map[string]json.RawMessage }
	if err := json.Unmarshal(read(b, "chromium-toplevel.json.gz"), &doc); err != nil {
		b.Fatal(err)
	}
	var maxTS float64
	for _, e := range doc.TraceEvents {
		var ts, dur float64
		json.Unmarshal(e["ts"], &ts)
		json.Unmarshal(e["dur"], &dur)
		maxTS = max(maxTS, ts+dur)
	}
	var buf bytes.Buffer
	buf.WriteString(`{"traceEvents":[`)
	for k := 0; buf.Len() < 64<<20; k++ {
		for _, e := range doc.TraceEvents {
			if buf.Len() > len(`{"traceEvents":[`) {
				buf.WriteString(",\n")
			}
			c := maps.Clone(e)
			var ts float64
			if json.Unmarshal(c["ts"], &ts) == nil {
				c["ts"] = json.RawMessage(strconv.FormatFloat(ts+float64(k)*(maxTS+1), 'f', -1, 64))
			}
			var pid int64
			if json.Unmarshal(c["pid"], &pid) == nil {
				c["pid"] = json.RawMessage(strconv.FormatInt(pid+int64(k)*100000, 10))
			}
			j, _ := json.Marshal(c)
			buf.Write(j)
		}
	}
	buf.WriteString("]}\n")
	return buf.Bytes()
}

// BenchmarkParse is the parser alone on a 64 MB trace (largeTrace), the
// stacks going nowhere.
func BenchmarkParse(b *testing.B) {
	data := largeTrace(b)
	emit := func([]byte, fold.Count) error { return nil }
	p, _ := Format.NewDocument(format.MapOptions{}, emit, stream.NewDiag(io.Discard, false))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer cpuRate(b, int64(len(data)))()
	for b.Loop() {
		if err := p.Read("x", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseOracle is BenchmarkParse with the parser this one
// replaced (encoding/json), for the record.
func BenchmarkParseOracle(b *testing.B) {
	data := largeTrace(b)
	emit := func([]byte, fold.Count) error { return nil }
	p, _ := refFormat.NewDocument(format.MapOptions{}, emit, stream.NewDiag(io.Discard, false))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer cpuRate(b, int64(len(data)))()
	for b.Loop() {
		if err := p.Read("x", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuRate reports the throughput by the process's CPU time (user and
// system), which a machine shared with other jobs does not inflate as it
// does the wall time behind MB/s.
func cpuRate(b *testing.B, bytes int64) func() {
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	return func() {
		var after syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
		if cpu > 0 {
			b.ReportMetric(float64(bytes)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
		}
	}
}

// oracleRun folds data with f (Format or the oracle, refFormat) the way
// pfold does, each input read through wrap, and says what came out.
type oracleRun struct {
	folded, warnings, stats string
	malformed               int
	err                     error
}

func runFormat(f format.Format, data []byte, wrap func(io.Reader) io.Reader, strict bool) oracleRun {
	sums := map[string]fold.Count{}
	var warn bytes.Buffer
	diag := stream.NewDiag(&warn, strict)
	p, err := f.NewDocument(format.MapOptions{}, func(stack []byte, c fold.Count) error {
		s, err := sums[string(stack)].Add(c)
		sums[string(stack)] = s
		return err
	}, diag)
	if err != nil {
		return oracleRun{err: err}
	}
	err = p.Read("fuzz", wrap(bytes.NewReader(data)))
	diag.Flush()
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []byte
	for _, k := range keys {
		out = fold.AppendLine(out, []byte(k), sums[k])
	}
	return oracleRun{folded: string(out), warnings: warn.String(), malformed: diag.Count(), stats: p.(format.Stater).Stats(), err: err}
}

// FuzzOracle folds any input with the parser and with the one it
// replaced (encoding/json's Decoder, oracle_test.go): where the old one
// finds well-formed JSON, both give the same stacks, warnings, stats and
// errors, strict or not, whether the input comes whole or byte by byte.
func FuzzOracle(f *testing.F) {
	for _, n := range []string{"fractional.json", "misnested.json", "array-format.json", "flamegraph-example.json"} {
		f.Add(read(f, n))
	}
	f.Add([]byte(`{"traceEvents":[{"p\u0068":"X","name":"a;b\nc","ts":1,"dur":2,"pid":"7","tid":7.0},{"ph":"X","name":"d","ts":1,"dur":1,"pid":{"a":1},"tid":[1]},null,3,` +
		`{"ph":"X","name":"e","ts":"0","dur":1}],"traceEvents":{"x":1},"traceEvents":1e999}`))
	f.Add([]byte(`[{"ph":"X","name":"a","ts":0,"dur":5},{"ph":"X","name":"b","ts":1,"dur":1,"args":{"x":[1,{"y":"]}"}]}},`))
	f.Fuzz(func(t *testing.T, data []byte) {
		formattest.Fuzz(t, Format, data)
		wrap := func(r io.Reader) io.Reader { return r }
		if len(data)%2 == 1 {
			wrap = iotest.OneByteReader
		}
		for _, strict := range []bool{false, true} {
			got := runFormat(Format, data, wrap, strict)
			want := runFormat(refFormat, data, func(r io.Reader) io.Reader { return r }, strict)
			if strings.Contains(want.warnings, "not JSON") || strings.Contains(want.warnings, "the JSON ends before") ||
				want.err != nil && (strings.Contains(want.err.Error(), "not JSON") || strings.Contains(want.err.Error(), "the JSON ends before")) {
				continue // not well-formed: the old parser stopped where encoding/json did
			}
			if got.folded != want.folded || got.warnings != want.warnings || got.malformed != want.malformed || got.stats != want.stats ||
				(got.err == nil) != (want.err == nil) || got.err != nil && got.err.Error() != want.err.Error() {
				t.Fatalf("strict %v:\ngot  %q %q %d %q %v\nwant %q %q %d %q %v", strict,
					got.folded, got.warnings, got.malformed, got.stats, got.err,
					want.folded, want.warnings, want.malformed, want.stats, want.err)
			}
		}
	})
}

// TestLimit: an event longer than the scanner holds stops the reading
// with a message at its offset; the events before it are folded.
func TestLimit(t *testing.T) {
	var warn bytes.Buffer
	c := map[string]fold.Count{}
	q, _ := Format.NewDocument(nil, func(s []byte, n fold.Count) error { c[string(s)] = n; return nil }, stream.NewDiag(&warn, false))
	q.(*parser).limit = 1000
	doc := `{"traceEvents":[{"ph":"X","name":"a","ts":0,"dur":3},{"ph":"X","name":"` + strings.Repeat("b", 5000) + `","ts":5,"dur":1}]}`
	if err := q.Read("x", bytes.NewReader([]byte(doc))); err != nil {
		t.Fatal(err)
	}
	if len(c) != 1 || c["a"] != fold.Int(3) || !strings.Contains(warn.String(), "x:0: at byte 53: an event longer than 1000 bytes") {
		t.Errorf("%v %s", c, warn.String())
	}
}
