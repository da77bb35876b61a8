package chrome

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/chrome"

// TestGolden folds every input (recordings made here and hand-made ones,
// ORIGIN.md); the goldens equal stackcollapse-chrome-tracing.py's output
// (*.oracle.folded, made by running it here), but for misnested.
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.json", "*.json.gz"}, Ext: ".json", Min: 7,
		References: []formattest.Reference{{
			Tool: "stackcollapse-chrome-tracing.py",
			Differs: map[string]formattest.Diff{"misnested": {Why: "the script nests events that start together in file order (a parent gets -5), " +
				"lets an event that ends after its parent outlive it (the next events nest under a parent that has ended), " +
				"and prints names with ';' or a line break as they are (two frames, a broken line); " +
				"pfold nests the longer event outside, cuts an event at its parent's end, and writes ':' and a space"}},
		}},
	}.Test(t)
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
	if got := string(dir.Read(t, "golden/misnested.folded")); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestCases: the rules the fixtures do not show.
func TestCases(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "array cut in an event", In: `[{"pid":1,"tid":1,"ts":0,"dur":10,"ph":"X","name":"a"},{"pid":1,"tid":1,"ts":`, Want: "a 10\n", Malformed: 1},
		{Name: "array closed", In: `[{"pid":1,"tid":1,"ts":0,"dur":10,"ph":"X","name":"a"}]`, Want: "a 10\n"},
		{Name: "object cut short", In: `{"traceEvents":[{"pid":1,"tid":1,"ts":0,"dur":10,"ph":"X","name":"a"},`, Want: "a 10\n", Malformed: 1},
		{Name: "no ph, no name, bad times", In: `{"traceEvents":[{"ts":0,"dur":1,"name":"x"},{"ph":"X","ts":0,"dur":1},{"ph":"X","name":"x","ts":"0","dur":1},` +
			`{"ph":"X","name":"x","ts":0,"dur":-1},{"ph":"X","name":"x","ts":0,"dur":null},{"ph":"X","name":7,"ts":0,"dur":1},3,` +
			`{"ph":"X","name":"ok","ts":0,"dur":1e999},{"ph":"X","name":"ok","ts":0,"dur":1}]}`, Want: "ok 1\n", Malformed: 8},
		{Name: "no pid or tid is one more thread", In: `{"traceEvents":[{"ph":"X","name":"a","ts":0,"dur":4},{"ph":"X","name":"b","ts":1,"dur":1},{"pid":1,"tid":1,"ph":"X","name":"c","ts":1,"dur":1}]}`, Want: "a 3\na;b 1\nc 1\n"},
		{Name: "escaped keys and names", In: `{"traceEvents":[{"p\u0068":"\u0058","name":"\u0061\nb","ts":0,"dur":4}]}`, Want: "a b 4\n"},
		{Name: "duplicate keys: the last wins, as in Python", In: `{"traceEvents":[{"ph":"X","name":"a","name":"b","ts":0,"dur":1,"dur":2}]}`, Want: "b 2\n"},
		{Name: "byte order mark", In: "\xef\xbb\xbf" + `{"traceEvents":[{"ph":"X","name":"a","ts":0,"dur":4}]}`, Want: "a 4\n"},
		{Name: "large integers stay integers", In: `{"traceEvents":[{"ph":"X","name":"a","ts":0,"dur":123456789012345678}]}`, Want: "a 123456789012345680\n"},
		{Name: "traceEvents not an array", In: `{"traceEvents":{"a":1},"x":[]}`, Malformed: 1},
		{Name: "no traceEvents", In: `{"nodes":[]}`, Malformed: 1},
		{Name: "not json", In: `hello`, Malformed: 1},
		{Name: "a number", In: `42`, Malformed: 1},
		{Name: "empty", In: ``, Malformed: 1},
		{Name: "empty trace", In: `{"traceEvents":[]}`},
	})
	// Each input is a trace of its own.
	res := formattest.MustFold(t, Format, nil,
		formattest.Input{Name: "a", Data: []byte(`{"traceEvents":[{"pid":1,"tid":1,"ts":0,"dur":10,"ph":"X","name":"a"}]}`)},
		formattest.Input{Name: "b", Data: []byte(`{"traceEvents":[{"pid":1,"tid":1,"ts":5,"dur":2,"ph":"X","name":"b"}]}`)})
	if res.Folded != "a 10\nb 2\n" || res.Malformed != 0 {
		t.Errorf("two inputs: %s%s", res.Folded, res.Warnings)
	}
}

func TestStats(t *testing.T) {
	p, _ := Format.NewDocument(nil, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
	if err := p.Read("x", bytes.NewReader(dir.Read(t, "misnested.json"))); err != nil {
		t.Fatal(err)
	}
	if err := p.Read("y", bytes.NewReader(dir.Read(t, "fractional.json"))); err != nil {
		t.Fatal(err)
	}
	want := "22 complete events on 6 threads in 2 traces, 1 without a duration skipped, 1 cut at their parent's end"
	if got := p.(format.Stater).Stats(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSniff: every trace is recognised; nothing else in testdata (V8
// CPU profiles, stackprof JSON, other formats) nor other JSON is.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.json", "*.json.gz"},
		SureText: []string{
			`{"traceEvents":[]}`,
			`{"metadata":{"source":"DevTools"},"traceEvents":[{"args":{},"cat":"x","name":"y","ph":"M","pid":1,"tid":1,"ts":0}]}`,
			`[{"name":"x","ph":"X","ts":1,"dur":2},`,
		},
		NotSureText: []string{
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
		},
	}.Test(t)
}

// fuzzSeeds are the inputs the fuzz targets start from.
var fuzzSeeds = []string{"fractional.json", "misnested.json", "array-format.json", "flamegraph-example.json"}

func FuzzChrome(f *testing.F) { formattest.FuzzFormat(f, Format, dir.ReadEach(f, 0, fuzzSeeds...)...) }

// BenchmarkChrome folds the largest recording, chromium traced with the
// toplevel category (8 MB of JSON, 36 000 events).
func BenchmarkChrome(b *testing.B) {
	data := dir.Read(b, "chromium-toplevel.json.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer formattest.CPURate(b, int64(len(data)))()
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
	if err := json.Unmarshal(dir.Read(b, "chromium-toplevel.json.gz"), &doc); err != nil {
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
func BenchmarkParse(b *testing.B) { formattest.BenchmarkRead(b, Format, nil, largeTrace(b)) }

// BenchmarkParseOracle is BenchmarkParse with the parser this one
// replaced (encoding/json), for the record.
func BenchmarkParseOracle(b *testing.B) { formattest.BenchmarkRead(b, refFormat, nil, largeTrace(b)) }

// FuzzOracle folds any input with the parser and with the one it
// replaced (encoding/json's Decoder, oracle_test.go): where the old one
// finds well-formed JSON, both give the same stacks, warnings, stats and
// errors, strict or not, whether the input comes whole or byte by byte.
func FuzzOracle(f *testing.F) {
	for _, b := range dir.ReadEach(f, 0, fuzzSeeds...) {
		f.Add(b)
	}
	f.Add([]byte(`{"traceEvents":[{"p\u0068":"X","name":"a;b\nc","ts":1,"dur":2,"pid":"7","tid":7.0},{"ph":"X","name":"d","ts":1,"dur":1,"pid":{"a":1},"tid":[1]},null,3,` +
		`{"ph":"X","name":"e","ts":"0","dur":1}],"traceEvents":{"x":1},"traceEvents":1e999}`))
	f.Add([]byte(`[{"ph":"X","name":"a","ts":0,"dur":5},{"ph":"X","name":"b","ts":1,"dur":1,"args":{"x":[1,{"y":"]}"}]}},`))
	f.Fuzz(func(t *testing.T, data []byte) {
		formattest.Fuzz(t, Format, data)
		formattest.CompareOracle(t, Format, refFormat, nil, data, "not JSON", "the JSON ends before")
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
