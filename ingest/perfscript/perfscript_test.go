package perfscript

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/stream"
)

// foldPerf folds the named inputs through the shared core, as pfold does:
// serially through stream.Reader, and in parallel through stream.Chunker
// with 1 and 3 workers and small chunks (many boundaries). Every fixture
// thus also checks that -j N gives the same output as -j 1.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func foldPerf(t testing.TB, opt Options, names ...string) (out, warnings string) {
	t.Helper()
	var warn bytes.Buffer
	agg := stream.NewAggregator(stream.Options{Mem: 64 << 20, TmpDir: t.TempDir()})
	defer agg.Close()
	diag := stream.NewDiag(&warn, false)
	serialOpt := opt
	serialOpt.Warn = &warn
	p := New(serialOpt, agg.Add, diag)
	defer p.Close()
	r := stream.NewReader(names)
	defer r.Close()
	if err := Fold(r, p); err != nil {
		t.Fatal(err)
	}
	p.Close() // what addr2line said (--inline) is in warn then
	diag.Flush()
	var b bytes.Buffer
	if _, err := agg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	// Batching as pfold does it, and with a batch and frame cache so
	// small that they are flushed and emptied all the time.
	batched, tiny := opt, opt
	batched.Batch = 32 << 20
	tiny.Batch, tiny.FrameCache = 1, 1
	for _, run := range []struct {
		jobs int
		opt  Options
		what string
	}{{1, opt, ""}, {3, opt, ""}, {1, batched, " batched"}, {3, batched, " batched"}, {2, tiny, " with a tiny batch and frame cache"}} {
		if par := foldParallel(t, run.opt, run.jobs, names); par != b.String() {
			t.Fatalf("-j %d%s: output differs from the serial fold:\n%s", run.jobs, run.what, stacktest.FirstDiff(par, b.String()))
		}
	}
	return b.String(), warn.String()
}

func foldParallel(t testing.TB, opt Options, jobs int, names []string) string {
	t.Helper()
	aggs := make([]*stream.Aggregator, jobs)
	for i := range aggs {
		aggs[i] = stream.NewAggregator(stream.Options{Mem: 64 << 20, TmpDir: t.TempDir()})
		defer aggs[i].Close()
	}
	ch := stream.NewChunker(names, nil, 4<<10, 2*jobs+2)
	defer ch.Close()
	if _, err := FoldChunks(ch, opt, stream.NewDiag(io.Discard, false), aggs); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := stream.WriteMerged(&b, aggs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// foldText folds perf script text given inline.
func foldText(t testing.TB, opt Options, text string) (out, warnings string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return foldPerf(t, opt, path)
}

func optionsNamed(name string) Options {
	var o Options
	switch name {
	case "pid":
		o.PID = true
	case "tid":
		o.TID = true
	case "kernel":
		o.Kernel = true
	case "jit":
		o.JIT = true
	case "all":
		o.Kernel, o.JIT = true, true
	case "addrs":
		o.Addrs = true
	}
	return o
}

func stripQuotes(s string) string {
	return strings.NewReplacer(`"`, "", `'`, "").Replace(s)
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFlameGraphParity checks the FlameGraph test suite: 13 real dumps ×
// 6 options, expected files made by stackcollapse-perf.pl. The Perl
// deletes quotes and pfold keeps them, so both sides lose them before the
// comparison. The Rust dump is compared with inferno's expected files,
// which demangle legacy Rust symbols as pfold does.
func TestFlameGraphParity(t *testing.T) {
	dumps, _ := filepath.Glob("../../testdata/perf/flamegraph/perf-*.txt")
	if len(dumps) != 13 {
		t.Fatalf("found %d FlameGraph dumps, want 13", len(dumps))
	}
	for _, dump := range dumps {
		base := strings.TrimSuffix(filepath.Base(dump), ".txt")
		for _, o := range []string{"pid", "tid", "kernel", "jit", "all", "addrs"} {
			t.Run(base+"/"+o, func(t *testing.T) {
				got, _ := foldPerf(t, optionsNamed(o), dump)
				want := ""
				if base == "perf-rust-Yamakaky-dcpu" {
					want = readFile(t, "../../testdata/perf/inferno/results/"+base+"-collapsed-"+o+".txt")
				} else {
					got = stripQuotes(got)
					want = stripQuotes(readFile(t, "../../testdata/perf/flamegraph/results/"+base+"-collapsed-"+o+".txt"))
				}
				if got != want {
					t.Errorf("output differs from the expected file:\n%s", stacktest.FirstDiff(got, want))
				}
			})
		}
	}
}

// TestInfernoParity checks inferno's own perf fixtures and expected files.
func TestInfernoParity(t *testing.T) {
	results, _ := filepath.Glob("../../testdata/perf/inferno/results/*-collapsed*.txt")
	n := 0
	for _, res := range results {
		name := strings.TrimSuffix(filepath.Base(res), ".txt")
		stem, opt, _ := strings.Cut(name, "-collapsed")
		opt = strings.TrimPrefix(opt, "-")
		input := "../../testdata/perf/inferno/" + stem + ".txt"
		if stem == "example-perf-stacks" {
			input += ".gz"
		}
		if strings.HasPrefix(stem, "perf-rust") {
			continue // checked with the FlameGraph dumps
		}
		n++
		t.Run(name, func(t *testing.T) {
			got, _ := foldPerf(t, optionsNamed(opt), input)
			if want := readFile(t, res); got != want {
				t.Errorf("output differs from inferno's:\n%s", stacktest.FirstDiff(got, want))
			}
		})
	}
	if n < 9 {
		t.Fatalf("only %d inferno fixtures found", n)
	}
}

// TestRecordedParity checks dumps recorded on this machine class against
// what stackcollapse-perf.pl printed for them.
func TestRecordedParity(t *testing.T) {
	for _, tc := range []struct{ input, want string }{
		{"cwork.perf-script.txt", "cwork.stackcollapse-perf.folded"},
		{"cwork.perf-script.with-header.txt", "cwork.stackcollapse-perf.folded"},
		{"cwork.perf-script.noperiod.txt", "cwork.noperiod.stackcollapse-perf.folded"},
		{"threadname.perf-script.txt", "threadname.stackcollapse-perf.folded"},
	} {
		t.Run(tc.input, func(t *testing.T) {
			got, warn := foldPerf(t, Options{}, "../../testdata/perf/recorded/"+tc.input)
			if warn != "" {
				t.Errorf("warnings: %s", warn)
			}
			if want := readFile(t, "../../testdata/perf/recorded/"+tc.want); got != want {
				t.Errorf("differs from stackcollapse-perf.pl:\n%s", stacktest.FirstDiff(got, want))
			}
		})
	}
}

func itoa(i int) string { return fold.Int(uint64(i)).String() }

// TestBatchStopsWhenSamplesDiffer: once a batch fills up with samples
// that seldom repeat, the parser stops batching; the output stays the
// serial fold's, before and after.
func TestBatchStopsWhenSamplesDiffer(t *testing.T) {
	var in strings.Builder
	for i := range 20000 {
		in.WriteString("app 1 1.000001: cpu-clock:\n")
		in.WriteString("\t" + itoa(0x1000+i) + " leaf_" + itoa(i%9000) + " (/bin/app)\n")
		in.WriteString("\t400000 main (/bin/app)\n\n")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(name, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want, _ := foldPerf(t, Options{}, name)

	var got []string
	p := New(Options{Batch: 64 << 10}, func(s []byte, c fold.Count) error {
		got = append(got, string(s)+" "+c.String())
		return nil
	}, stream.NewDiag(io.Discard, false))
	ch := stream.NewChunker([]string{name}, nil, 64<<10, 4)
	defer ch.Close()
	for {
		c, err := ch.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if err := foldChunk(p, c); err != nil {
			t.Fatal(err)
		}
		ch.Release(c)
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	if !p.noBatch {
		t.Error("batching went on although samples seldom repeat")
	}
	agg := stream.NewAggregator(stream.Options{TmpDir: dir})
	defer agg.Close()
	for _, l := range got {
		s, c, err := fold.ParseLine([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		agg.Add(s, c)
	}
	var b bytes.Buffer
	agg.WriteTo(&b)
	if b.String() != want {
		t.Fatalf("batched fold differs:\n%s", stacktest.FirstDiff(b.String(), want))
	}
}

// TestSamplePathTakesSamples: on a real recording, folding chunks takes
// the sample path (fast.go) for nearly every sample, and the output is
// the serial fold's (foldPerf checks that for every fixture).
func TestSamplePathTakesSamples(t *testing.T) {
	for _, batch := range []int64{0, 32 << 20} {
		p := New(Options{Batch: batch}, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
		r := stream.NewReader([]string{"../../testdata/perf/recorded/gobuild.txt.gz"})
		var data []byte
		for r.Scan() {
			data = append(append(data, r.Bytes()...), '\n')
		}
		r.Close()
		if err := foldChunk(p, &stream.Chunk{Data: data, Name: "gobuild.txt", Line: 1}); err != nil {
			t.Fatal(err)
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		if n := p.Counts().Samples; p.fastHits < n*9/10 {
			t.Errorf("batch %d: %d of %d samples took the sample path", batch, p.fastHits, n)
		}
	}
}

// TestWorkersShareNoStack: at the end of a parallel fold with batching,
// each stack of the batches is in one worker's aggregator, not in each
// that saw it, and the output is the serial fold's.
func TestWorkersShareNoStack(t *testing.T) {
	names := []string{"../../testdata/perf/flamegraph/perf-vertx-stacks-01.txt"}
	aggs := []*stream.Aggregator{stream.NewAggregator(stream.Options{}), stream.NewAggregator(stream.Options{})}
	ch := stream.NewChunker(names, nil, 4<<10, 6)
	defer ch.Close()
	if _, err := FoldChunks(ch, Options{Batch: 32 << 20}, stream.NewDiag(io.Discard, false), aggs); err != nil {
		t.Fatal(err)
	}
	in := map[string]int{}
	for i, agg := range aggs {
		n := 0
		if err := agg.Each(func(stack []byte, c fold.Count) error {
			if j, ok := in[string(stack)]; ok {
				t.Fatalf("stack %q is in aggregators %d and %d", stack, j, i)
			}
			in[string(stack)] = i
			n++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("aggregator %d holds no stack", i)
		}
	}
	want, _ := foldPerf(t, Options{}, names[0])
	if got := foldParallel(t, Options{Batch: 32 << 20}, 2, names); got != want {
		t.Errorf("output differs from the serial fold:\n%s", stacktest.FirstDiff(got, want))
	}
}
