package cpuprofile

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
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

const dir = "../../testdata/cpuprofile"

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
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.cpuprofile"))
	if len(inputs) < len(recordings) {
		t.Fatalf("%d inputs", len(inputs))
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(filepath.Base(in), ".cpuprofile")
		for _, weight := range []string{"samples", "time"} {
			name := base + ".folded"
			if weight == "time" {
				name = base + ".time.folded"
			}
			res := fold1(t, read(t, filepath.Base(in)), weight)
			if res.Malformed != 0 {
				t.Errorf("%s: %s", name, res.Warnings)
			}
			golden := filepath.Join(dir, "golden", name)
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				os.WriteFile(golden, []byte(res.Folded), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if res.Folded != string(want) {
				t.Errorf("%s differs from its golden", name)
			}
		}
	}
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
	if err := json.Unmarshal(read(t, name), &p); err != nil {
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
		res := fold1(t, read(t, name), "samples")
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
		res := fold1(t, read(t, name), "time")
		want := uint64(p.EndTime - p.StartTime - p.TimeDeltas[0])
		if got := sum(t, res.Folded); got != want {
			t.Errorf("%s: weighs %d µs, want endTime-startTime-timeDeltas[0] = %d", name, got, want)
		}
		stacks := map[string]bool{}
		for _, l := range lines(fold1(t, read(t, name), "samples").Folded) {
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
	for _, c := range []struct {
		name, in, weight, want string
		malformed              int
	}{
		{"counts", `{` + nodes + `,"startTime":100,"endTime":200,"samples":[2,4,4,3],"timeDeltas":[10,20,30,5]}`, "samples",
			"(idle) 1\n" + A + " 1\n" + Anon + " 2\n", 0},
		{"time", `{` + nodes + `,"startTime":100,"endTime":200,"samples":[2,4,4,3],"timeDeltas":[10,20,30,5]}`, "time",
			// a: 30-10; anon: 60-30 + 65-60; idle: 200-165.
			"(idle) 35\n" + A + " 20\n" + Anon + " 35\n", 0},
		{"keys in another order", `{"timeDeltas":[10,20,30,5],"samples":[2,4,4,3],"endTime":200,` + nodes + `,"startTime":100}`, "time",
			"(idle) 35\n" + A + " 20\n" + Anon + " 35\n", 0},
		{"deltas before samples", `{` + nodes + `,"timeDeltas":[10,20,30,5],"samples":[2,4,4,3],"startTime":100,"endTime":200}`, "time",
			"(idle) 35\n" + A + " 20\n" + Anon + " 35\n", 0},
		{"samples before nodes", `{"samples":[2,4,4,3],` + nodes + `}`, "samples",
			"(idle) 1\n" + A + " 1\n" + Anon + " 2\n", 0},
		{"time going back is held", `{` + nodes + `,"startTime":100,"endTime":200,"samples":[2,4,3],"timeDeltas":[10,20,-5]}`, "time",
			// a: 30-10; anon: 30-30 (held), idle: 200-130.
			"(idle) 70\n" + A + " 20\n", 0},
		{"parent links", `{"nodes":[{"id":1,"callFrame":` + cf("(root)", "", -1, -1) + `},{"id":5,"parent":1,"callFrame":` + cf("f;g\nh", "", -1, -1) + `}],"samples":[5,5]}`, "samples",
			"f:g h 2\n", 0},
		{"root sampled", `{"nodes":[{"id":1,"callFrame":` + cf("(root)", "", -1, -1) + `}],"samples":[1]}`, "samples",
			"(root) 1\n", 0},
		{"unknown sample", `{` + nodes + `,"samples":[2,9,"x",4]}`, "samples",
			A + " 1\n" + Anon + " 1\n", 2},
		{"unknown sample, time", `{` + nodes + `,"startTime":0,"endTime":100,"samples":[2,9,4],"timeDeltas":[1,2,3]}`, "time",
			// a: 3-1; the unknown sample's 6-3 is lost; anon: 100-6.
			A + " 2\n" + Anon + " 94\n", 1},
		{"fewer deltas", `{` + nodes + `,"startTime":0,"endTime":100,"samples":[2,4,4],"timeDeltas":[1,2]}`, "time",
			A + " 2\n", 1},
		{"no start", `{` + nodes + `,"samples":[2,4],"timeDeltas":[1,2]}`, "time",
			A + " 2\n", 1},
		{"cycle", `{"nodes":[{"id":1,"callFrame":` + cf("p", "", -1, -1) + `,"children":[2]},{"id":2,"callFrame":` + cf("q", "", -1, -1) + `,"children":[1]}],"samples":[1,2]}`, "samples",
			"q 1\nq;p 1\n", 1},
		{"two parents", `{"nodes":[{"id":1,"callFrame":` + cf("p", "", -1, -1) + `,"children":[3]},{"id":2,"callFrame":` + cf("q", "", -1, -1) + `,"children":[3]},{"id":3,"callFrame":` + cf("r", "", -1, -1) + `}],"samples":[3]}`, "samples",
			"p;r 1\n", 1},
		{"duplicate id", `{"nodes":[{"id":1,"callFrame":` + cf("p", "", -1, -1) + `},{"id":1,"callFrame":` + cf("q", "", -1, -1) + `}],"samples":[1]}`, "samples",
			"p 1\n", 1},
		{"bad node", `{"nodes":[{"id":"one","callFrame":` + cf("p", "", -1, -1) + `},{"id":2,"callFrame":` + cf("q", "", -1, -1) + `}],"samples":[2]}`, "samples",
			"q 1\n", 1},
		{"escaped keys, null callFrame fields", `{"nodes":[{"\u0069d":7,"callFrame":{"function\u004eame":"f","url":null,"lineNumber":null}},{"id":8,"callFrame":null}],"samples":[7,8]}`, "samples",
			"f 1\n(anonymous) 1\n", 0},
		{"bad callFrame", `{"nodes":[{"id":7,"callFrame":{"functionName":"f","lineNumber":1.5}},{"id":8,"callFrame":[]},{"id":9,"children":{}},{"id":10,"callFrame":{"functionName":3}},{"id":11,"parent":"x"},12],"samples":[7]}`, "samples",
			"", 7},
		{"byte order mark", "\xef\xbb\xbf" + `{` + nodes + `,"samples":[2]}`, "samples", A + " 1\n", 0},
		{"cut short", `{` + nodes + `,"samples":[2,4,4,3`, "samples", "", 1},
		{"cut short after the samples", `{` + nodes + `,"samples":[2,4,4,3],"timeDeltas":[1,`, "samples", A + " 1\n" + Anon + " 2\n(idle) 1\n", 1},
		{"not json", `hello`, "samples", "", 1},
		{"an array", `[{"ph":"X"}]`, "samples", "", 1},
		{"no nodes", `{"samples":[1,2]}`, "samples", "", 1},
		{"empty object", `{}`, "samples", "", 1},
		{"empty profile", `{"nodes":[],"samples":[],"timeDeltas":[],"startTime":1,"endTime":1}`, "time", "", 0},
		{"null arrays", `{"nodes":[` + idle + `],"samples":null,"timeDeltas":null}`, "time", "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := fold1(t, []byte(c.in), c.weight)
			if want := sortLines(c.want); res.Folded != want {
				t.Errorf("got\n%s\nwant\n%s", res.Folded, want)
			}
			if res.Malformed != c.malformed {
				t.Errorf("%d malformed, want %d: %s", res.Malformed, c.malformed, res.Warnings)
			}
			if c.malformed > 0 {
				if _, err := formattest.FoldStrict(Format, format.MapOptions{"weight": c.weight}, formattest.Input{Name: "x", Data: []byte(c.in)}); err == nil {
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

func TestWeightFlag(t *testing.T) {
	if _, err := formattest.Fold(Format, format.MapOptions{"weight": "bytes"}, formattest.Input{Name: "x", Data: []byte("{}")}); err == nil {
		t.Error("--weight bytes accepted")
	}
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "x", Data: read(t, recordings[0])})
	if err != nil || res.Folded != string(read(t, "golden/node-prog.folded")) {
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

// TestSniff: every profile is recognised; other JSON (a heap profile,
// Chrome traces, stackprof dumps) and other formats are not.
func TestSniff(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.cpuprofile"))
	for _, in := range inputs {
		if s := Format.Sniff(cut(read(t, filepath.Base(in)))); s != format.Sure {
			t.Errorf("%s: %v", in, s)
		}
	}
	for _, c := range []string{
		`{"samples":[1,2],"timeDeltas":[1,1],"nodes":[]}`,
		`{"startTime":1,"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""}}]}`,
	} {
		if s := Format.Sniff([]byte(c)); s != format.Sure {
			t.Errorf("%s: %v", c, s)
		}
	}
	var others []string
	for _, g := range []string{"cpuprofile/*.heapprofile", "chrome/*.json", "chrome/*.json.gz", "stackprof/*", "perf/recorded/*",
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
		if s := Format.Sniff(cut(read(t, filepath.Join("..", strings.TrimPrefix(f, filepath.Join(dir, "..")))))); s == format.Sure {
			t.Errorf("%s taken for a cpuprofile", f)
		}
	}
	rnd := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(rnd)
	for _, c := range []string{
		string(rnd),
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey for root\nNov  2 10:00:02 host cron[9]: job\n",
		"a,b,c\n1,2,3\n",
		`{"version":1.2,"mode":"cpu","interval":1000,"samples":10,"frames":{}}`,
		`{"nodes":[1,2,3]}`,
		`{"nodes":[{"id":1,"name":"x"}],"links":[]}`,
		`{"name":"pfold","version":"1.0.0","dependencies":{}}`,
		`{"head":{"callFrame":{"functionName":"(root)"},"selfSize":0,"id":1,"children":[]},"samples":[]}`,
		`{"traceEvents":[{"ph":"P","name":"ProfileChunk","args":{"data":{"cpuProfile":{"nodes":[],"samples":[]},"timeDeltas":[]}}}]}`,
		`[{"nodes":[{"id":1,"callFrame":{"functionName":"a"}}]}]`,
		``,
	} {
		if s := Format.Sniff([]byte(c)); s == format.Sure {
			t.Errorf("%.60q taken for a cpuprofile", c)
		}
	}
}

func cut(b []byte) []byte { return b[:min(len(b), format.SniffSize)] }

func FuzzCPUProfile(f *testing.F) {
	for _, n := range []string{"chromium-page.cpuprofile"} {
		f.Add(read(f, n))
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
	if err := json.Unmarshal(read(b, "node-prog-100us.cpuprofile"), &p); err != nil {
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
	data := benchInput(b)
	for _, weight := range []string{"samples", "time"} {
		b.Run(weight, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			defer cpuRate(b, int64(len(data)))()
			for b.Loop() {
				if _, err := formattest.Fold(Format, format.MapOptions{"weight": weight}, formattest.Input{Name: "x", Data: data}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type oracleRun struct {
	folded, warnings, stats string
	malformed               int
	err                     error
}

// runFormat folds data with f (Format or the oracle, refFormat) the way
// pfold does, the input read through wrap, and says what came out.
func runFormat(f format.Format, opts format.Options, data []byte, wrap func(io.Reader) io.Reader, strict bool) oracleRun {
	sums := map[string]fold.Count{}
	var warn bytes.Buffer
	diag := stream.NewDiag(&warn, strict)
	p, err := f.NewDocument(opts, func(stack []byte, c fold.Count) error {
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
// replaced (encoding/json's Decoder, oracle_test.go), by samples and by
// time: where the old one finds well-formed JSON, both give the same
// stacks, warnings, stats and errors, strict or not, whether the input
// comes whole or byte by byte.
func FuzzOracle(f *testing.F) {
	f.Add(read(f, "chromium-page.cpuprofile"))
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"parent":1,"callFrame":{"functionName":"a","url":"u","lineNumber":1}}],"samples":[2,2,1],"timeDeltas":[1,-2,3],"startTime":0,"endTime":9}`))
	f.Add([]byte(`{"samples":[2,9,"x",4,1.5,-0,[1]],"timeDeltas":[5,null,-3],"nodes":[{"\u0069d":2,"callFrame":null},{"id":4,"children":[2,2]},{"id":9,"callFrame":{"functionName":"f;g","url":"x","lineNumber":1,"columnNumber":null}}],"startTime":null,"endTime":"9"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		formattest.Fuzz(t, Format, data)
		wrap := func(r io.Reader) io.Reader { return r }
		if len(data)%2 == 1 {
			wrap = iotest.OneByteReader
		}
		for _, weight := range []string{"samples", "time"} {
			opts := format.MapOptions{"weight": weight}
			for _, strict := range []bool{false, true} {
				got := runFormat(Format, opts, data, wrap, strict)
				want := runFormat(refFormat, opts, data, func(r io.Reader) io.Reader { return r }, strict)
				if strings.Contains(want.warnings, "not JSON") || strings.Contains(want.warnings, "the JSON ends before") ||
					want.err != nil && (strings.Contains(want.err.Error(), "not JSON") || strings.Contains(want.err.Error(), "the JSON ends before")) {
					continue // not well-formed: the old parser stopped where encoding/json did
				}
				if got.folded != want.folded || got.warnings != want.warnings || got.malformed != want.malformed || got.stats != want.stats ||
					(got.err == nil) != (want.err == nil) || got.err != nil && got.err.Error() != want.err.Error() {
					t.Fatalf("%s, strict %v:\ngot  %q %q %d %q %v\nwant %q %q %d %q %v", weight, strict,
						got.folded, got.warnings, got.malformed, got.stats, got.err,
						want.folded, want.warnings, want.malformed, want.stats, want.err)
				}
			}
		}
	})
}

// BenchmarkCPUProfileOracle is BenchmarkCPUProfile with the parser this
// one replaced (encoding/json), for the record.
func BenchmarkCPUProfileOracle(b *testing.B) {
	data := benchInput(b)
	for _, weight := range []string{"samples", "time"} {
		b.Run(weight, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			defer cpuRate(b, int64(len(data)))()
			for b.Loop() {
				if _, err := formattest.Fold(refFormat, format.MapOptions{"weight": weight}, formattest.Input{Name: "x", Data: data}); err != nil {
					b.Fatal(err)
				}
			}
		})
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
