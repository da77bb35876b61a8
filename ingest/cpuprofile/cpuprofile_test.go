package cpuprofile

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/cpuprofile"

// recordings are the profiles made here with node and chromium.
var recordings = []string{"node-prog.cpuprofile", "node-prog-100us.cpuprofile", "chromium-page.cpuprofile"}

func fold1(t testing.TB, data []byte, weight string) formattest.Result {
	t.Helper()
	res, err := formattest.Fold(Format, format.MapOptions{"weight": weight}, formattest.Input{Name: "x", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGolden folds every input both ways; the goldens are checked
// against the profiles' own data by TestHitCounts and TestTimeTotal.
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.cpuprofile"}, Ext: ".cpuprofile", Min: len(recordings),
		Options: []formattest.Option{{Name: "time", Opts: format.MapOptions{"weight": "time"}}},
	}.Test(t)
}

// profile is the whole profile, decoded at once the plain way, for the
// checks.
type profile struct {
	Nodes []struct {
		ID        int64 `json:"id"`
		CallFrame struct {
			FunctionName string `json:"functionName"`
			URL          string `json:"url"`
			LineNumber   int64  `json:"lineNumber"`
			ColumnNumber int64  `json:"columnNumber"`
		} `json:"callFrame"`
		HitCount int64   `json:"hitCount"`
		Children []int64 `json:"children"`
	} `json:"nodes"`
	Samples    []int64 `json:"samples"`
	TimeDeltas []int64 `json:"timeDeltas"`
	StartTime  int64   `json:"startTime"`
	EndTime    int64   `json:"endTime"`
}

func decode(t *testing.T, name string) profile {
	var p profile
	if err := json.Unmarshal(dir.Read(t, name), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// hitCountExceptions lists, per recording, the nodes whose hitCount is
// not the number of samples naming them (samples minus hitCount). V8
// records a sample without counting a hit when profiling starts (the
// first sample, "(program)" here) and at a deoptimisation
// (ProfilerEventsProcessor::AddCurrentStack, AddDeoptStack), and counts
// a hit without recording a sample for ticks stamped before the
// profile's start time (CpuProfile::AddPath). So the profile's two
// records of the same ticks differ by a few, at these nodes only.
var hitCountExceptions = map[string]map[int64]int64{
	"node-prog.cpuprofile":       {2: +1, 53: +1},
	"node-prog-100us.cpuprofile": {2: -5, 692: +1},
	"chromium-page.cpuprofile":   {2: +1, 4: +1},
}

// TestHitCounts checks pfold's stacks, made from the samples, against
// the profile's other record of the same ticks: each node's hitCount,
// summed per stack (nodes are walked to the root here with a plain map),
// corrected by the exceptions above. The total is the number of samples.
func TestHitCounts(t *testing.T) {
	for _, name := range recordings {
		p := decode(t, name)
		parent := map[int64]int64{}
		byID := map[int64]int{}
		for i, n := range p.Nodes {
			byID[n.ID] = i
			for _, c := range n.Children {
				parent[c] = n.ID
			}
		}
		perNode := map[int64]int64{}
		for _, s := range p.Samples {
			perNode[s]++
		}
		want := map[string]int64{}
		var total int64
		for _, n := range p.Nodes {
			hits := n.HitCount + hitCountExceptions[name][n.ID]
			if hits != perNode[n.ID] {
				t.Errorf("%s: node %d (%s): hitCount %d, %d samples, not in the exceptions", name, n.ID, n.CallFrame.FunctionName, n.HitCount, perNode[n.ID])
			}
			if hits == 0 {
				continue
			}
			var frames []string
			for id, ok := n.ID, true; ok; id, ok = parent[id] {
				cf := p.Nodes[byID[id]].CallFrame
				if _, hasParent := parent[id]; !hasParent && cf.FunctionName == "(root)" && id != n.ID {
					break
				}
				frames = append(frames, frameName(cf.FunctionName, cf.URL, cf.LineNumber, cf.ColumnNumber))
			}
			slices.Reverse(frames)
			want[strings.Join(frames, ";")] += hits
			total += hits
		}
		if total != int64(len(p.Samples)) {
			t.Errorf("%s: hitCounts with the exceptions sum to %d, %d samples", name, total, len(p.Samples))
		}
		var wantText []byte
		keys := make([]string, 0, len(want))
		for k := range want {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			wantText = fold.AppendLine(wantText, []byte(k), fold.Int(uint64(want[k])))
		}
		res := fold1(t, dir.Read(t, name), "samples")
		if res.Folded != string(wantText) {
			t.Errorf("%s: the stacks from the samples differ from those from the hitCounts", name)
		}
		if got := sum(t, res.Folded); got != uint64(len(p.Samples)) {
			t.Errorf("%s: %d samples folded, the profile has %d", name, got, len(p.Samples))
		}
	}
}

// TestTimeTotal: with --weight time the stacks weigh endTime-startTime
// less the first delta (the time before the first sample), and name the
// same stacks as the sample counts.
func TestTimeTotal(t *testing.T) {
	for _, name := range recordings {
		p := decode(t, name)
		var deltas int64
		for _, d := range p.TimeDeltas {
			if d < 0 {
				t.Fatalf("%s: a negative delta; the total below does not hold", name)
			}
			deltas += d
		}
		if p.StartTime+deltas > p.EndTime {
			t.Fatalf("%s: the last sample is after endTime", name)
		}
		res := fold1(t, dir.Read(t, name), "time")
		want := uint64(p.EndTime - p.StartTime - p.TimeDeltas[0])
		if got := sum(t, res.Folded); got != want {
			t.Errorf("%s: weighs %d µs, want endTime-startTime-timeDeltas[0] = %d", name, got, want)
		}
		stacks := map[string]bool{}
		for _, l := range lines(fold1(t, dir.Read(t, name), "samples").Folded) {
			stacks[l.stack] = true
		}
		for _, l := range lines(res.Folded) {
			if !stacks[l.stack] {
				t.Errorf("%s: %q weighs time but has no sample", name, l.stack)
			}
		}
	}
}

type line struct {
	stack string
	c     fold.Count
}

func lines(folded string) []line {
	var out []line
	for l := range strings.Lines(folded) {
		s, c, err := fold.ParseLine([]byte(strings.TrimSuffix(l, "\n")))
		if err != nil {
			panic(err)
		}
		out = append(out, line{string(s), c})
	}
	return out
}

func sum(t *testing.T, folded string) uint64 {
	var n uint64
	for _, l := range lines(folded) {
		if l.c.Float {
			t.Fatalf("decimal count in %q", l.stack)
		}
		n += l.c.N
	}
	return n
}

// TestCases: hand-made profiles for the rules the recordings do not
// exercise.
func TestCases(t *testing.T) {
	cf := func(name, url string, line, col int) string {
		return fmt.Sprintf(`{"functionName":%q,"url":%q,"lineNumber":%d,"columnNumber":%d,"scriptId":"1"}`, name, url, line, col)
	}
	root := `{"id":1,"callFrame":` + cf("(root)", "", -1, -1) + `,"children":[2,3]}`
	a := `{"id":2,"callFrame":` + cf("a", "file:///x.js", 0, 4) + `,"children":[4]}`
	idle := `{"id":3,"callFrame":` + cf("(idle)", "", -1, -1) + `}`
	anon := `{"id":4,"callFrame":` + cf("", "file:///x.js", 9, 0) + `}`
	nodes := `"nodes":[` + root + `,` + a + `,` + idle + `,` + anon + `]`
	const (
		A    = "a (file:///x.js:1:5)"
		Anon = A + ";(anonymous) (file:///x.js:10:1)"
	)
	w := func(weight string) format.MapOptions { return format.MapOptions{"weight": weight} }
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "counts", In: `{` + nodes + `,"startTime":100,"endTime":200,"samples":[2,4,4,3],"timeDeltas":[10,20,30,5]}`, Opts: w("samples"),
			Want: "(idle) 1\n" + A + " 1\n" + Anon + " 2\n"},
		{Name: "time", In: `{` + nodes + `,"startTime":100,"endTime":200,"samples":[2,4,4,3],"timeDeltas":[10,20,30,5]}`, Opts: w("time"),
			// a: 30-10; anon: 60-30 + 65-60; idle: 200-165.
			Want: "(idle) 35\n" + A + " 20\n" + Anon + " 35\n"},
		{Name: "keys in another order", In: `{"timeDeltas":[10,20,30,5],"samples":[2,4,4,3],"endTime":200,` + nodes + `,"startTime":100}`, Opts: w("time"),
			Want: "(idle) 35\n" + A + " 20\n" + Anon + " 35\n"},
		{Name: "deltas before samples", In: `{` + nodes + `,"timeDeltas":[10,20,30,5],"samples":[2,4,4,3],"startTime":100,"endTime":200}`, Opts: w("time"),
			Want: "(idle) 35\n" + A + " 20\n" + Anon + " 35\n"},
		{Name: "samples before nodes", In: `{"samples":[2,4,4,3],` + nodes + `}`, Opts: w("samples"),
			Want: "(idle) 1\n" + A + " 1\n" + Anon + " 2\n"},
		{Name: "time going back is held", In: `{` + nodes + `,"startTime":100,"endTime":200,"samples":[2,4,3],"timeDeltas":[10,20,-5]}`, Opts: w("time"),
			// a: 30-10; anon: 30-30 (held), idle: 200-130.
			Want: "(idle) 70\n" + A + " 20\n"},
		{Name: "parent links", In: `{"nodes":[{"id":1,"callFrame":` + cf("(root)", "", -1, -1) + `},{"id":5,"parent":1,"callFrame":` + cf("f;g\nh", "", -1, -1) + `}],"samples":[5,5]}`, Opts: w("samples"),
			Want: "f:g h 2\n"},
		{Name: "root sampled", In: `{"nodes":[{"id":1,"callFrame":` + cf("(root)", "", -1, -1) + `}],"samples":[1]}`, Opts: w("samples"),
			Want: "(root) 1\n"},
		{Name: "unknown sample", In: `{` + nodes + `,"samples":[2,9,"x",4]}`, Opts: w("samples"),
			Want: A + " 1\n" + Anon + " 1\n", Malformed: 2},
		{Name: "unknown sample, time", In: `{` + nodes + `,"startTime":0,"endTime":100,"samples":[2,9,4],"timeDeltas":[1,2,3]}`, Opts: w("time"),
			// a: 3-1; the unknown sample's 6-3 is lost; anon: 100-6.
			Want: A + " 2\n" + Anon + " 94\n", Malformed: 1},
		{Name: "fewer deltas", In: `{` + nodes + `,"startTime":0,"endTime":100,"samples":[2,4,4],"timeDeltas":[1,2]}`, Opts: w("time"),
			Want: A + " 2\n", Malformed: 1},
		{Name: "no start", In: `{` + nodes + `,"samples":[2,4],"timeDeltas":[1,2]}`, Opts: w("time"),
			Want: A + " 2\n", Malformed: 1},
		{Name: "cycle", In: `{"nodes":[{"id":1,"callFrame":` + cf("p", "", -1, -1) + `,"children":[2]},{"id":2,"callFrame":` + cf("q", "", -1, -1) + `,"children":[1]}],"samples":[1,2]}`, Opts: w("samples"),
			Want: "q 1\nq;p 1\n", Malformed: 1},
		{Name: "two parents", In: `{"nodes":[{"id":1,"callFrame":` + cf("p", "", -1, -1) + `,"children":[3]},{"id":2,"callFrame":` + cf("q", "", -1, -1) + `,"children":[3]},{"id":3,"callFrame":` + cf("r", "", -1, -1) + `}],"samples":[3]}`, Opts: w("samples"),
			Want: "p;r 1\n", Malformed: 1},
		{Name: "duplicate id", In: `{"nodes":[{"id":1,"callFrame":` + cf("p", "", -1, -1) + `},{"id":1,"callFrame":` + cf("q", "", -1, -1) + `}],"samples":[1]}`, Opts: w("samples"),
			Want: "p 1\n", Malformed: 1},
		{Name: "bad node", In: `{"nodes":[{"id":"one","callFrame":` + cf("p", "", -1, -1) + `},{"id":2,"callFrame":` + cf("q", "", -1, -1) + `}],"samples":[2]}`, Opts: w("samples"),
			Want: "q 1\n", Malformed: 1},
		{Name: "escaped keys, null callFrame fields", In: `{"nodes":[{"\u0069d":7,"callFrame":{"function\u004eame":"f","url":null,"lineNumber":null}},{"id":8,"callFrame":null}],"samples":[7,8]}`, Opts: w("samples"),
			Want: "(anonymous) 1\nf 1\n"},
		{Name: "bad callFrame", In: `{"nodes":[{"id":7,"callFrame":{"functionName":"f","lineNumber":1.5}},{"id":8,"callFrame":[]},{"id":9,"children":{}},{"id":10,"callFrame":{"functionName":3}},{"id":11,"parent":"x"},12],"samples":[7]}`, Opts: w("samples"), Malformed: 7},
		{Name: "byte order mark", In: "\xef\xbb\xbf" + `{` + nodes + `,"samples":[2]}`, Opts: w("samples"),
			Want: A + " 1\n"},
		{Name: "cut short", In: `{` + nodes + `,"samples":[2,4,4,3`, Opts: w("samples"), Malformed: 1},
		{Name: "cut short after the samples", In: `{` + nodes + `,"samples":[2,4,4,3],"timeDeltas":[1,`, Opts: w("samples"),
			Want: "(idle) 1\n" + A + " 1\n" + Anon + " 2\n", Malformed: 1},
		{Name: "not json", In: `hello`, Opts: w("samples"), Malformed: 1},
		{Name: "an array", In: `[{"ph":"X"}]`, Opts: w("samples"), Malformed: 1},
		{Name: "no nodes", In: `{"samples":[1,2]}`, Opts: w("samples"), Malformed: 1},
		{Name: "empty object", In: `{}`, Opts: w("samples"), Malformed: 1},
		{Name: "empty profile", In: `{"nodes":[],"samples":[],"timeDeltas":[],"startTime":1,"endTime":1}`, Opts: w("time")},
		{Name: "null arrays", In: `{"nodes":[` + idle + `],"samples":null,"timeDeltas":null}`, Opts: w("time")},
	})
}

func TestWeightFlag(t *testing.T) {
	if _, err := formattest.Fold(Format, format.MapOptions{"weight": "bytes"}, formattest.Input{Name: "x", Data: []byte("{}")}); err == nil {
		t.Error("--weight bytes accepted")
	}
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "x", Data: dir.Read(t, recordings[0])})
	if err != nil || res.Folded != string(dir.Read(t, "golden/node-prog.folded")) {
		t.Errorf("the default weight is not samples: %v", err)
	}
}

func TestFrameName(t *testing.T) {
	for _, c := range []struct {
		fn, url   string
		line, col int64
		want      string
	}{
		{"fib", "file:///app/prog.js", 4, 12, "fib (file:///app/prog.js:5:13)"},
		{"", "node:internal/timers", 593, 16, "(anonymous) (node:internal/timers:594:17)"},
		{"listOnTimeout", "node:internal/timers", -1, -1, "listOnTimeout (node:internal/timers)"},
		{"(garbage collector)", "", -1, -1, "(garbage collector)"},
		{"", "", 0, 0, "(anonymous)"},
		{"setTimeout", "", -1, -1, "setTimeout"},
		{"x", "https://h/a.js?a=1;b=2", 0, -1, "x (https://h/a.js?a=1:b=2:1)"},
	} {
		if got := frameName(c.fn, c.url, c.line, c.col); got != c.want {
			t.Errorf("frameName(%q, %q, %d, %d) = %q, want %q", c.fn, c.url, c.line, c.col, got, c.want)
		}
	}
}

// TestSniff: every profile is recognised; nothing else in testdata (a
// heap profile, Chrome traces, stackprof dumps, other formats) nor other
// JSON is.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.cpuprofile"},
		SureText: []string{
			`{"samples":[1,2],"timeDeltas":[1,1],"nodes":[]}`,
			`{"startTime":1,"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""}}]}`,
		},
		NotSureText: []string{
			`{"version":1.2,"mode":"cpu","interval":1000,"samples":10,"frames":{}}`,
			`{"nodes":[1,2,3]}`,
			`{"nodes":[{"id":1,"name":"x"}],"links":[]}`,
			`{"name":"pfold","version":"1.0.0","dependencies":{}}`,
			`{"head":{"callFrame":{"functionName":"(root)"},"selfSize":0,"id":1,"children":[]},"samples":[]}`,
			`{"traceEvents":[{"ph":"P","name":"ProfileChunk","args":{"data":{"cpuProfile":{"nodes":[],"samples":[]},"timeDeltas":[]}}}]}`,
			`[{"nodes":[{"id":1,"callFrame":{"functionName":"a"}}]}]`,
		},
	}.Test(t)
}

func FuzzCPUProfile(f *testing.F) {
	for _, n := range []string{"chromium-page.cpuprofile"} {
		f.Add(dir.Read(f, n))
	}
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"parent":1,"callFrame":{"functionName":"a","url":"u","lineNumber":1}}],"samples":[2,2,1],"timeDeltas":[1,-2,3],"startTime":0,"endTime":9}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		formattest.Fuzz(t, Format, data)
		res, err := formattest.Fold(Format, format.MapOptions{"weight": "time"}, formattest.Input{Name: "fuzz", Data: data})
		if err == nil {
			for _, l := range strings.Split(strings.TrimSuffix(res.Folded, "\n"), "\n") {
				if l == "" {
					continue
				}
				if _, _, err := fold.ParseLine([]byte(l)); err != nil {
					t.Fatalf("time: emitted line %q does not parse back: %v", l, err)
				}
			}
		}
	})
}

// benchInput is a long profile: the 100 µs recording with its samples
// repeated to a few MB, as a profile of minutes would be.
func benchInput(b *testing.B) []byte {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(dir.Read(b, "node-prog-100us.cpuprofile"), &p); err != nil {
		b.Fatal(err)
	}
	var samples, deltas []int64
	json.Unmarshal(p["samples"], &samples)
	json.Unmarshal(p["timeDeltas"], &deltas)
	var s, d []int64
	for len(s) < 1_000_000 {
		s = append(s, samples...)
		d = append(d, deltas...)
	}
	p["samples"], _ = json.Marshal(s)
	p["timeDeltas"], _ = json.Marshal(d)
	var buf bytes.Buffer
	buf.WriteString(`{"nodes":`)
	buf.Write(p["nodes"])
	fmt.Fprintf(&buf, `,"startTime":%s,"endTime":%s,"samples":%s,"timeDeltas":%s}`, p["startTime"], p["endTime"], p["samples"], p["timeDeltas"])
	return buf.Bytes()
}

func BenchmarkCPUProfile(b *testing.B) {
	benchFold(b, Format)
}

// FuzzOracle folds any input with the parser and with the one it
// replaced (encoding/json's Decoder, oracle_test.go), by samples and by
// time: where the old one finds well-formed JSON, both give the same
// stacks, warnings, stats and errors, strict or not, whether the input
// comes whole or byte by byte.
func FuzzOracle(f *testing.F) {
	f.Add(dir.Read(f, "chromium-page.cpuprofile"))
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"parent":1,"callFrame":{"functionName":"a","url":"u","lineNumber":1}}],"samples":[2,2,1],"timeDeltas":[1,-2,3],"startTime":0,"endTime":9}`))
	f.Add([]byte(`{"samples":[2,9,"x",4,1.5,-0,[1]],"timeDeltas":[5,null,-3],"nodes":[{"\u0069d":2,"callFrame":null},{"id":4,"children":[2,2]},{"id":9,"callFrame":{"functionName":"f;g","url":"x","lineNumber":1,"columnNumber":null}}],"startTime":null,"endTime":"9"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		formattest.Fuzz(t, Format, data)
		for _, weight := range []string{"samples", "time"} {
			formattest.CompareOracle(t, Format, refFormat, format.MapOptions{"weight": weight}, data, "not JSON", "the JSON ends before")
		}
	})
}

// BenchmarkCPUProfileOracle is BenchmarkCPUProfile with the parser this
// one replaced (encoding/json), for the record.
func BenchmarkCPUProfileOracle(b *testing.B) {
	benchFold(b, refFormat)
}

// benchFold folds benchInput with f, by samples and by time, as pfold's
// tests fold (formattest.Fold: the stacks summed and sorted).
func benchFold(b *testing.B, f format.Format) {
	data := benchInput(b)
	for _, weight := range []string{"samples", "time"} {
		b.Run(weight, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			defer formattest.CPURate(b, int64(len(data)))()
			for b.Loop() {
				if _, err := formattest.Fold(f, format.MapOptions{"weight": weight}, formattest.Input{Name: "x", Data: data}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
