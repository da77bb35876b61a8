package pprofproto

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/ingest/goraw"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/pprof"
	"github.com/pfold/pfold/stream"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

// dir holds the profiles (gzipped: Read un-gzips them as pfold's core
// does), go tool pprof -traces' stacks and the goldens.
const dir formattest.Dir = "../../testdata/pprofproto"

// collector sums emitted stacks, those counted 0 included, for the runs
// that reach into the parser (runPath) and to read folded stacks.
type collector map[string]fold.Count

func (c collector) emit(stack []byte, n fold.Count) error {
	s, err := c[string(stack)].Add(n)
	c[string(stack)] = s
	return err
}

func (c collector) String() string { return stacktest.Folded(c) }

// run folds one protobuf with --sample-index index ("" for none).
func run(t testing.TB, data []byte, index string) (string, error) {
	t.Helper()
	res, err := formattest.Fold(Format, format.MapOptions{"sample-index": index}, formattest.Input{Name: "in", Data: data})
	if err != nil {
		return "", err
	}
	if res.Warnings != "" {
		t.Errorf("warnings: %s", res.Warnings)
	}
	return res.Folded, nil
}

// runGo folds go tool pprof -raw text with the "go" format.
func runGo(t testing.TB, data []byte, index string) string {
	t.Helper()
	return formattest.FoldText(t, goraw.Format, format.MapOptions{"sample-index": index}, string(data))
}

// inputs lists the profiles, but diff.pb.gz (negative values, refused).
func inputs(t testing.TB) []string {
	files, _ := filepath.Glob(dir.Path("*.pb.gz"))
	var names []string
	for _, f := range files {
		if n := strings.TrimSuffix(filepath.Base(f), ".pb.gz"); n != "diff" {
			names = append(names, n)
		}
	}
	if len(names) < 12 {
		t.Fatalf("%d inputs", len(names))
	}
	return names
}

func sampleTypes(t testing.TB, data []byte) int {
	t.Helper()
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	return len(p.SampleType)
}

// TestGolden folds every profile, by default and for each sample type;
// the goldens equal go tool pprof -traces' stacks and values, but
// edge's.
func TestGolden(t *testing.T) {
	sampleIndexes := func(t testing.TB, data []byte) []formattest.Option {
		var opts []formattest.Option
		for i := range sampleTypes(t, data) {
			opts = append(opts, formattest.Option{Name: "sample-index-" + strconv.Itoa(i), Opts: format.MapOptions{"sample-index": strconv.Itoa(i)}})
		}
		return opts
	}
	edge := formattest.Diff{Why: "-traces names a location without function name by its binary ([app]) or <unknown>, pfold by its function's system name " +
		"or its address (as -raw prints them); " +
		"-traces leaves out the sample without locations, pfold counts it as [unknown]"}
	differs := map[string]formattest.Diff{"edge": edge}
	for _, o := range sampleIndexes(t, dir.Read(t, "edge.pb.gz")) {
		differs["edge."+o.Name] = edge
	}
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.pb.gz"}, Ext: ".pb", Min: 12,
		Skip:       map[string]string{"diff.pb.gz": "negative values (go tool pprof -diff_base), refused: TestNegative"},
		OptionsOf:  func(t testing.TB, _ string, data []byte) []formattest.Option { return sampleIndexes(t, data) },
		References: []formattest.Reference{{Tool: "go tool pprof -traces", Differs: differs}},
	}.Test(t)
}

// TestSameAsGo: the "pprof" format on a profile and the "go" format on
// go tool pprof -raw of it give the same stacks and counts, for every
// sample type.
func TestSameAsGo(t *testing.T) {
	for _, name := range inputs(t) {
		data := dir.Read(t, name+".pb.gz")
		raw, err := os.ReadFile(dir.Path("../goraw/" + name + ".txt"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range sampleTypes(t, data) {
			index := strconv.Itoa(i)
			got, err := run(t, data, index)
			if err != nil {
				t.Fatal(err)
			}
			if want := runGo(t, raw, index); got != want {
				t.Errorf("%s, sample index %d: pprof and go differ", name, i)
			}
		}
	}
}

// TestTotals: every sample lands in a stack; the counts of each golden
// add up to the sum of the profile's values of that type.
func TestTotals(t *testing.T) {
	for _, name := range inputs(t) {
		p, err := profile.ParseData(dir.Read(t, name+".pb.gz"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.SampleType {
			var want int64
			for _, s := range p.Sample {
				want += s.Value[i]
			}
			var got uint64
			golden := dir.Read(t, "golden/"+name+".sample-index-"+strconv.Itoa(i)+".folded")
			for line := range bytes.Lines(golden) {
				_, c, err := fold.ParseLine(bytes.TrimSuffix(line, []byte("\n")))
				if err != nil {
					t.Fatal(err)
				}
				got += c.N
			}
			if got != uint64(want) {
				t.Errorf("%s, sample type %d: folded %d, profile %d", name, i, got, want)
			}
		}
	}
}

// TestDefault: with no --sample-index, the type go tool pprof picks.
func TestDefault(t *testing.T) {
	for name, want := range map[string]int{
		"cpu":          1, // the last: cpu/nanoseconds
		"heap":         3, // inuse_space
		"allocs":       1, // alloc_space, the profile's default
		"mutex":        1, // delay
		"goroutine":    0,
		"edge":         1, // wall, the default, not the last
		"export-shape": 2,
	} {
		data := dir.Read(t, name+".pb.gz")
		got, _ := run(t, data, "")
		if w, _ := run(t, data, strconv.Itoa(want)); got != w {
			t.Errorf("%s: the default is not sample type %d", name, want)
		}
	}
	heap := dir.Read(t, "heap.pb.gz")
	byName, _ := run(t, heap, "inuse_space")
	if d, _ := run(t, heap, ""); d != byName {
		t.Errorf("heap: --sample-index inuse_space is not the default")
	}
	for _, bad := range []string{"4", "-1", "nope"} {
		if _, err := run(t, heap, bad); err == nil || !strings.Contains(err.Error(), "--sample-index") {
			t.Errorf("--sample-index %s: %v", bad, err)
		}
	}
}

// TestNegative: go tool pprof -diff_base output has negative values.
func TestNegative(t *testing.T) {
	for _, index := range []string{"", "0"} {
		if _, err := run(t, dir.Read(t, "diff.pb.gz"), index); !errors.Is(err, ErrNegative) {
			t.Errorf("--sample-index %q: err = %v, want ErrNegative", index, err)
		}
	}
}

// TestRoundTrip: folded stacks written as a profile by pfold's pprof
// package (ppprof) read back as the same stacks and counts. The goldens
// are pfold's output on each recorded profile, so this is
// `pfold x.pb.gz | ppprof | pfold` giving back every stack and count.
func TestRoundTrip(t *testing.T) {
	files, _ := filepath.Glob(dir.Path("golden/*.folded"))
	files = append(files, dir.Path("../pprof/cwork.folded"), dir.Path("../pprof/vertx.folded"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b := pprof.New(pprof.Options{SampleType: "cpu", SampleUnit: "nanoseconds"})
		for line := range bytes.Lines(data) {
			stack, c, err := fold.ParseLine(bytes.TrimSuffix(line, []byte("\n")))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if err := b.Add(stack, c); err != nil {
				t.Fatal(err)
			}
		}
		var buf bytes.Buffer
		if _, err := b.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		pb := stacktest.Gunzip(t, buf.Bytes())
		if Format.Sniff(pb[:min(len(pb), format.SniffSize)]) != format.Sure {
			t.Errorf("%s: ppprof's profile not recognised", f)
		}
		got, err := run(t, pb, "")
		if err != nil {
			t.Fatal(err)
		}
		if got != stacktest.Aggregate(t, data) {
			t.Errorf("%s: the round trip through ppprof changed the stacks", filepath.Base(f))
		}
	}
}

// TestStats says what --stats shows.
func TestStats(t *testing.T) {
	p, _ := Format.NewDocument(format.MapOptions{}, collector{}.emit, stream.NewDiag(io.Discard, false))
	for _, n := range []string{"cpu.pb.gz", "heap.pb.gz"} {
		if err := p.Read(n, bytes.NewReader(dir.Read(t, n))); err != nil {
			t.Fatal(err)
		}
	}
	s := p.(format.Stater).Stats()
	if !strings.HasPrefix(s, "2 profiles, ") || !strings.HasSuffix(s, "values of cpu/nanoseconds, inuse_space/bytes") {
		t.Errorf("Stats() = %q", s)
	}
}

// TestMalformed: what is not a profile is an error naming the input.
func TestMalformed(t *testing.T) {
	cpu := dir.Read(t, "cpu.pb.gz")
	for _, data := range [][]byte{cpu[:len(cpu)/2], []byte("hello"), {0x0a, 0xff}} {
		_, err := formattest.Fold(Format, nil, formattest.Input{Name: "bad.pb", Data: data})
		if err == nil || !strings.HasPrefix(err.Error(), "bad.pb: ") {
			t.Errorf("%q…: err = %v", data[:min(8, len(data))], err)
		}
	}
	// No bytes: nothing to fold.
	if res, err := formattest.Fold(Format, nil, formattest.Input{Name: "empty", Data: nil}); err != nil || res.Folded != "" {
		t.Errorf("empty input: %q, %v", res.Folded, err)
	}
}

// TestSniff: every profile is recognised, also cut at SniffSize; the
// other formats pfold reads and what is no profile are not taken for it.
func TestSniff(t *testing.T) {
	for _, name := range inputs(t) {
		if s := Format.Sniff(dir.Read(t, name+".pb.gz")); s != format.Sure {
			t.Errorf("%s: %v", name, s)
		}
	}
	if s := Format.Sniff(dir.Read(t, "diff.pb.gz")); s != format.Sure {
		t.Errorf("diff: %v", s)
	}
	// A profile larger than the prefix: the prefix alone is enough.
	b := pprof.New(pprof.Options{})
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		b.Add([]byte("main;f"+strconv.Itoa(rng.Intn(5000))+";g"+strconv.Itoa(i%300)), fold.Int(uint64(i)))
	}
	var buf bytes.Buffer
	b.WriteTo(&buf)
	big := stacktest.Gunzip(t, buf.Bytes())
	if len(big) <= format.SniffSize {
		t.Fatalf("profile of %d bytes", len(big))
	}
	for _, cut := range []int{format.SniffSize, format.SniffSize - 1} {
		if s := Format.Sniff(big[:cut]); (s == format.Sure) != (cut == format.SniffSize) {
			t.Errorf("cut at %d: %v", cut, s)
		}
	}
	var others []string
	for _, g := range []string{"perf/recorded/*", "perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded",
		"stackprof/*", "igprof/*", "perfreport/*.txt", "goraw/*.txt", "pprofproto/*.folded", "pprofproto/*.pb.gz"} {
		m, _ := filepath.Glob(dir.Path("../" + g))
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
		if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
			t.Errorf("%s taken for a pprof profile", f)
		}
	}
	for i := 0; i < 2000; i++ {
		junk := make([]byte, rng.Intn(200))
		rng.Read(junk)
		if Format.Sniff(junk) == format.Sure {
			t.Errorf("random bytes %x taken for a pprof profile", junk)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host kernel: [    0.000000] Linux version\nNov  2 10:00:02 host systemd[1]: Started\n",
		`{"samples": [1, 2]}`,
		"name,count\na,1\n",
		"8888", "HxHxHx", "2\x00",
		"\x0a\x04\x08\x01\x10\x02",          // a sample type, no string table
		"\x0a\x04\x08\x01\x10\x02\x32\x01a", // string_table[0] is not ""
		"\x22\x02\x10\x01\x32\x00",          // a location without id
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for a pprof profile", s)
		}
	}
	if Format.Sniff([]byte("\x0a\x04\x08\x01\x10\x02\x32\x00\x32\x01a")) != format.Sure {
		t.Errorf("a minimal profile not recognised")
	}
}

func FuzzPprof(f *testing.F) {
	for _, n := range []string{"edge.pb.gz", "goroutine.pb.gz", "block.pb.gz", "export-shape.pb.gz"} {
		f.Add(dir.Read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkPprof folds the go test -cpuprofile recording (its protobuf,
// un-gzipped as the core hands it over).
func BenchmarkPprof(b *testing.B) {
	formattest.BenchmarkRead(b, Format, nil, dir.Read(b, "gotest-stream.pb.gz"))
}

// largeProfile is a long recording: the profile in name (un-gzipped)
// again and again in one profile of about size bytes, as benchgen
// -format pprof writes it. With copies, each copy's locations and
// functions are renumbered (the names shared) and its samples point at
// them, as if many processes of one program were profiled into one
// profile: the bytes keep the recording's mix of samples, locations,
// functions and labels (tables as large as the samples, the hard case).
// Without, the samples are repeated over the one table, each copy with a
// numeric label of its own, as a longer recording with a label per
// request or span would have them (samples outweigh the tables, the
// usual case for large profiles). Either folds into the recording's
// stacks.
func largeProfile(tb testing.TB, name string, size int, copies bool) []byte {
	data := dir.Read(tb, name)
	p, err := profile.ParseData(data)
	if err != nil {
		tb.Fatal(err)
	}
	var maxF, maxL uint64
	for _, f := range p.Function {
		maxF = max(maxF, f.ID)
	}
	for _, l := range p.Location {
		maxL = max(maxL, l.ID)
	}
	big := p.Copy()
	big.Sample = nil
	if copies {
		big.Location, big.Function = nil, nil
	}
	perCopy := len(data)
	if !copies {
		perCopy = len(data) * len(p.Sample) / max(1, len(p.Sample)+len(p.Location)+len(p.Function))
	}
	for k := 0; k < max(1, size/perCopy); k++ {
		if !copies {
			for _, s := range p.Sample {
				ns := *s
				ns.NumLabel = maps.Clone(s.NumLabel)
				if ns.NumLabel == nil {
					ns.NumLabel = map[string][]int64{}
				}
				ns.NumLabel["request"] = []int64{int64(k)}
				ns.NumUnit = nil
				big.Sample = append(big.Sample, &ns)
			}
			continue
		}
		fs := map[*profile.Function]*profile.Function{}
		for _, f := range p.Function {
			nf := *f
			nf.ID += uint64(k) * maxF
			fs[f] = &nf
			big.Function = append(big.Function, &nf)
		}
		ls := map[*profile.Location]*profile.Location{}
		for _, l := range p.Location {
			nl := *l
			nl.ID += uint64(k) * maxL
			nl.Line = slices.Clone(l.Line)
			for i := range nl.Line {
				nl.Line[i].Function = fs[l.Line[i].Function]
			}
			ls[l] = &nl
			big.Location = append(big.Location, &nl)
		}
		for _, s := range p.Sample {
			ns := *s
			ns.Location = make([]*profile.Location, len(s.Location))
			for i, l := range s.Location {
				ns.Location[i] = ls[l]
			}
			big.Sample = append(big.Sample, &ns)
		}
	}
	var buf bytes.Buffer
	if err := big.WriteUncompressed(&buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkPprofLarge folds 64 MB profiles made of recordings
// (largeProfile, both shapes): a go test -cpuprofile, and the
// export-shaped one (three sample types, labels on every sample); the
// parser alone.
func BenchmarkPprofLarge(b *testing.B) { benchLarge(b, false) }

// BenchmarkPprofLargeSlow is BenchmarkPprofLarge by
// google/pprof/profile alone (the slow path), for the record.
func BenchmarkPprofLargeSlow(b *testing.B) { benchLarge(b, true) }

func benchLarge(b *testing.B, slowOnly bool) {
	f := Format
	f.NewDocument = func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		p, err := Format.NewDocument(opts, emit, diag)
		if err == nil {
			p.(*parser).slowOnly = slowOnly
		}
		return p, err
	}
	for _, name := range []string{"gotest-stream", "export-shape"} {
		for _, copies := range []bool{false, true} {
			shape := "samples"
			if copies {
				shape = "copies"
			}
			b.Run(name+"/"+shape, func(b *testing.B) {
				formattest.BenchmarkRead(b, f, nil, largeProfile(b, name+".pb.gz", 64<<20, copies))
			})
		}
	}
}

// runPath folds one protobuf as run does, by the fast path where it
// takes the profile (or by the slow path alone, google/pprof/profile),
// and says what came out, errors and warnings included, and whether the
// fast path took it.
func runPath(data []byte, index string, slowOnly bool) (folded, warnings, stats string, err error, fast bool) {
	c := collector{}
	var warn bytes.Buffer
	q, _ := Format.NewDocument(format.MapOptions{"sample-index": index}, c.emit, stream.NewDiag(&warn, false))
	p := q.(*parser)
	p.slowOnly = slowOnly
	if !slowOnly {
		done, _ := p.fast("in", data)
		p.fp.reset(nil)
		fast = done
		// Fold afresh, through Read.
		c = collector{}
		q, _ = Format.NewDocument(format.MapOptions{"sample-index": index}, c.emit, stream.NewDiag(&warn, false))
		p = q.(*parser)
	}
	err = p.Read("in", bytes.NewReader(data))
	return c.String(), warn.String(), p.Stats(), err, fast
}

// TestOdd: the fast path takes odd() and folds it as the slow path does.
func TestOdd(t *testing.T) {
	got, gw, gs, gerr, fast := runPath(odd(), "", false)
	want, ww, ws, werr, _ := runPath(odd(), "", true)
	if !fast || werr != nil || got != want || gw != ww || gs != ws || fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Errorf("fast %v:\n%s%s%s %v\nslow:\n%s%s%s %v", fast, got, gw, gs, gerr, want, ww, ws, werr)
	}
}

// TestFastPath: the recorded profiles are folded by the fast path, but
// edge (drop_frames: pruned by google/pprof/profile); what it folds is
// what the slow path folds.
func TestFastPath(t *testing.T) {
	files, _ := filepath.Glob(dir.Path("*.pb.gz"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pb.gz")
		data := dir.Read(t, name+".pb.gz")
		for _, index := range []string{"", "0", "1", "inuse_space", "nope"} {
			got, gw, gs, gerr, fast := runPath(data, index, false)
			want, ww, ws, werr, _ := runPath(data, index, true)
			if fast != (name != "edge") {
				t.Errorf("%s: fast path %v", name, fast)
			}
			if got != want || gw != ww || gs != ws || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("%s, --sample-index %q: fast and slow paths differ:\n%s%s%s %v\n%s%s%s %v", name, index, got, gw, gs, gerr, want, ww, ws, werr)
			}
		}
	}
}

// odd is a profile written the ways pprof's own writer does not: a
// sample's locations in two fields (packed and not), values one by one,
// labels of every kind, ids in any order, a location of two lines, a
// mapping, a second period type, comments.
func odd() []byte {
	var b []byte
	tag := func(num, typ int) { b = binary.AppendUvarint(b, uint64(num<<3|typ)) }
	varint := func(num int, v uint64) { tag(num, 0); b = binary.AppendUvarint(b, v) }
	msg := func(num int, body func()) {
		outer := b
		b = nil
		body()
		inner := b
		b = outer
		tag(num, 2)
		b = binary.AppendUvarint(b, uint64(len(inner)))
		b = append(b, inner...)
	}
	str := func(s string) { tag(6, 2); b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	msg(1, func() { varint(1, 1); varint(2, 2) }) // sample_type samples/count
	msg(1, func() { varint(1, 3); varint(2, 4) }) // cpu/nanoseconds
	msg(2, func() {                               // a sample
		msg(1, func() { b = append(b, 7, 0x80, 1) }) // packed: 7, 128
		varint(1, 9)
		varint(2, 1)
		varint(2, 10)
		msg(3, func() { varint(1, 5); varint(2, 6) })
		msg(3, func() { varint(1, 5); varint(3, 42); varint(4, 4) })
	})
	msg(2, func() { msg(1, func() { b = append(b, 9) }); msg(2, func() { b = append(b, 2, 20) }) })
	msg(2, func() { msg(2, func() { b = append(b, 0, 0) }) }) // no locations
	msg(3, func() { varint(1, 1); varint(5, 7) })
	msg(4, func() {
		varint(1, 9)
		varint(2, 1)
		varint(3, 0x1234)
		msg(4, func() { varint(1, 2) })
		msg(4, func() { varint(1, 1); varint(2, 7) })
	})
	msg(4, func() { varint(1, 7); varint(3, 0x99) })
	msg(4, func() { varint(1, 128); msg(4, func() { varint(1, 3) }) })
	msg(5, func() { varint(1, 1); varint(2, 8) })
	msg(5, func() { varint(1, 2); varint(3, 9) })
	msg(5, func() { varint(1, 3) })
	for _, s := range []string{"", "samples", "count", "cpu", "nanoseconds", "region", "us-east;1", "bin", "main.f\nx", "runtime.g"} {
		str(s)
	}
	msg(11, func() { varint(1, 3) })
	msg(11, func() { varint(1, 3); varint(2, 4) })
	varint(12, 10)
	varint(13, 5)
	msg(13, func() { b = append(b, 6, 7) })
	return b
}

// FuzzOracle folds any input by the fast path, where it takes it, and
// by google/pprof/profile alone (the slow path, the oracle): the same
// stacks and counts, warnings, stats and errors, for several sample
// indices.
func FuzzOracle(f *testing.F) {
	for _, n := range []string{"edge.pb.gz", "goroutine.pb.gz", "block.pb.gz", "export-shape.pb.gz", "diff.pb.gz", "heap.pb.gz"} {
		f.Add(dir.Read(f, n))
	}
	f.Add([]byte("\x0a\x04\x08\x01\x10\x02\x32\x00\x32\x01a"))
	f.Add(odd())
	f.Add(largeProfile(f, "export-shape.pb.gz", 30000, false))
	f.Add(largeProfile(f, "cpu.pb.gz", 15000, true))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, index := range []string{"", "0", "1", "a"} {
			got, gw, gs, gerr, _ := runPath(data, index, false)
			want, ww, ws, werr, _ := runPath(data, index, true)
			if got != want || gw != ww || gs != ws || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("--sample-index %q: fast and slow paths differ:\n%q %q %q %v\n%q %q %q %v", index, got, gw, gs, gerr, want, ww, ws, werr)
			}
		}
	})
}

// TestVarint: varintAt as google/pprof/profile's decodeVarint reads a
// varint (at most 10 bytes, bits past 64 dropped), whatever its length,
// the bytes after it and where b ends.
func TestVarint(t *testing.T) {
	ref := func(b []byte, i int) (uint64, int) {
		var u uint64
		for k := 0; k < 10 && i+k < len(b); k++ {
			u |= uint64(b[i+k]&0x7f) << uint(7*k)
			if b[i+k]&0x80 == 0 {
				return u, i + k + 1
			}
		}
		return 0, -1
	}
	r := rand.New(rand.NewSource(1))
	for n := 1; n <= 11; n++ {
		for range 200 {
			v := make([]byte, n)
			for k := range v {
				v[k] = byte(r.Intn(256)) | 0x80
			}
			v[n-1] &= byte(r.Intn(256)) // the last byte's high bit set or not
			for _, tail := range [][]byte{nil, {0}, {0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88}, {1, 2, 3, 4, 5, 6, 7, 8}} {
				for _, pre := range []int{0, 1, 3} {
					b := append(append(make([]byte, pre), v...), tail...)
					for _, end := range []int{len(b), pre + n} {
						u, next := varintAt(b[:end], pre)
						wu, wnext := ref(b[:end], pre)
						if u != wu || next != wnext {
							t.Fatalf("% x at %d: %d %d, want %d %d", b[:end], pre, u, next, wu, wnext)
						}
					}
				}
			}
		}
	}
}

// TestSeqIndex: sequences numbered in order of first appearance and
// found again, the empty one too, however many share a slot of the
// cache.
func TestSeqIndex(t *testing.T) {
	var x seqIndex
	for range 2 { // again after a reset
		x.reset()
		var keys [][]byte
		for n := range 3 * (1 << cacheBits) {
			keys = append(keys, binary.AppendUvarint(nil, uint64(n)))
			if n%7 == 0 {
				keys[n] = append(keys[n], bytes.Repeat([]byte{1}, n%40)...)
			}
		}
		keys[5] = []byte{}
		for round := range 3 {
			for n, k := range keys {
				e, ok := x.find(k)
				switch {
				case round == 0 && ok:
					t.Fatalf("%x found before it was added", k)
				case round == 0:
					if e := x.add(k); e != int32(n) {
						t.Fatalf("%x added as %d, want %d", k, e, n)
					}
				case !ok || e != int32(n):
					t.Fatalf("%x: %d %v, want %d", k, e, ok, n)
				}
			}
		}
	}
	if _, ok := (*seqIndex)(nil).find(nil); ok {
		t.Fatal("found in nil")
	}
}

// TestMappedFile: a profile read from a plain file (mapped, where the
// system maps files) folds as from its bytes: stacks, warnings, stats
// and errors; a file opened past its start too.
func TestMappedFile(t *testing.T) {
	files, _ := filepath.Glob(dir.Path("*.pb.gz"))
	datas := map[string][]byte{"odd": odd(), "cut": odd()[:40]}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pb.gz")
		raw := dir.Read(t, name+".pb.gz")
		datas[name+".gz"] = raw // the slow path un-gzips
		if z, err := gzip.NewReader(bytes.NewReader(raw)); err == nil {
			if raw, err = io.ReadAll(z); err != nil {
				t.Fatal(err)
			}
		}
		datas[name] = raw
	}
	readWith := func(r io.Reader) string {
		c := collector{}
		var warn bytes.Buffer
		p, _ := Format.NewDocument(format.MapOptions{}, c.emit, stream.NewDiag(&warn, false))
		err := p.Read("in", r)
		return fmt.Sprintf("%s%s%s %v", c, warn.String(), p.(*parser).Stats(), err)
	}
	for name, data := range datas {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, append([]byte("xyz"), data...), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Seek(3, io.SeekStart)
		got, want := readWith(f), readWith(bytes.NewReader(data))
		f.Close()
		if got != want {
			t.Errorf("%s: from the file:\n%s\nfrom its bytes:\n%s", name, got, want)
		}
	}
}

// TestQuick: where quick takes a sample, sample reads it alike (the
// sequence found in known, its value and how many values), whatever its
// fields, the varints' lengths and the bytes after it; quick takes the
// usual samples.
func TestQuick(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var fp fastProfile
	fp.reset(nil)
	for range 10 {
		fp.strs = append(fp.strs, [2]int{0, 0})
	}
	var known seqIndex
	known.reset()
	keys := [][]byte{{1}, {2, 3}, {0x80, 1, 4}, bytes.Repeat([]byte{5}, 40)}
	for _, k := range keys {
		known.add(k)
	}
	varint := func(b []byte) []byte {
		n := 1 + r.Intn(11)
		for k := range n {
			c := byte(r.Intn(256))
			if k < n-1 {
				c |= 0x80
			} else if r.Intn(8) != 0 {
				c &= 0x7f
			}
			b = append(b, c)
		}
		return b
	}
	taken := 0
	for range 200000 {
		var s []byte
		if r.Intn(20) != 0 {
			k := keys[r.Intn(len(keys))]
			if r.Intn(20) == 0 {
				k = []byte{9, 9}
			}
			s = append(append(s, 1<<3|wBytes, byte(len(k))), k...)
		}
		for range r.Intn(5) {
			switch r.Intn(12) {
			case 0:
				s = append(s, 3<<3|wBytes, 2, 1<<3|wVarint, byte(r.Intn(12))) // a label, its key in range or not
			case 1:
				s = append(s, 3<<3|wBytes, 0)
			case 2:
				var p []byte
				for range r.Intn(4) {
					p = varint(p)
				}
				s = append(append(s, 2<<3|wBytes, byte(len(p))), p...)
			case 3:
				s = append(s, byte(r.Intn(256)))
			case 4:
				s = append(s, 1<<3|wVarint, 5)
			default:
				s = varint(append(s, 2<<3|wVarint))
			}
		}
		tail := make([]byte, r.Intn(10))
		for k := range tail {
			tail[k] = byte(r.Intn(256))
		}
		data := append(append([]byte{7}, s...), tail...)
		for _, idx := range []int{0, 1, 2} {
			fp.goodLabel = nil
			e, v, nv, ok := fp.quick(data, 1, 1+len(s), idx, &known)
			if !ok {
				continue
			}
			taken++
			fp.goodLabel = nil
			wv, wnv, wok := fp.sample(data[1:1+len(s)], idx, true, &known)
			if !wok || !fp.raw || fp.hit != e || wv != v || wnv != nv {
				t.Fatalf("% x (then % x), value %d: quick %d %d %d, sample %v %v %d %d %d", s, tail, idx, e, v, nv, wok, fp.raw, fp.hit, wv, wnv)
			}
		}
	}
	if taken < 100000 {
		t.Errorf("quick took %d samples", taken)
	}
}
