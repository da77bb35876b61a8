package perfscript

import (
	"bytes"
	"os"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

func FuzzPerfScript(f *testing.F) {
	for _, p := range []string{
		"../../testdata/perf/inferno/single-line-stacks.txt",
		"../../testdata/perf/inferno/java-inline.txt",
		"../../testdata/perf/inferno/weird-stack-line.txt",
		"../../testdata/perf/layouts/srcline.txt",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 4096)], uint8(0))
	}
	f.Add([]byte(":-1    -1 [000]   821.755106:     250000 cpu-clock:\n\tffffffff81000001 a->b+0x1 ([kernel.kallsyms])\n"), uint8(0xff))
	f.Add([]byte("x 1 1.0: 1 e:\n\t1 std::function<int (int)>::operator()(int) (m)\n  f.c:1\n"), uint8(0x40))
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		opt := Options{
			PID: flags&1 != 0, TID: flags&2 != 0, Kernel: flags&4 != 0, JIT: flags&8 != 0,
			Addrs: flags&16 != 0, Srcline: flags&32 != 0,
		}
		if flags&64 != 0 {
			opt.SkipAfter = []string{"main"}
			opt.Range = &Range{Min: 0, Max: 0.5}
		}
		var samples int64
		serial := map[string]fold.Count{}
		emit := func(stack []byte, c fold.Count) error {
			if len(stack) == 0 || bytes.IndexByte(stack, '\n') >= 0 {
				t.Fatalf("bad stack %q", stack)
			}
			samples++
			serial[string(stack)], _ = serial[string(stack)].Add(c)
			return nil
		}
		p := New(opt, emit, stream.NewDiag(new(bytes.Buffer), false))
		r := stream.NewReaderStdin(nil, bytes.NewReader(data))
		if err := Fold(r, p); err != nil {
			t.Fatal(err)
		}
		if p.Counts().Samples != samples {
			t.Fatalf("stats say %d samples, emitted %d", p.Counts().Samples, samples)
		}

		// pfold's path: a chunk, batched, with a frame cache that empties
		// all the time when flags&128; the same stacks and counts.
		batched := map[string]fold.Count{}
		opt.Batch = 1 << 20
		if flags&128 != 0 {
			opt.FrameCache = 1
		}
		pb := New(opt, func(stack []byte, c fold.Count) error {
			batched[string(stack)], _ = batched[string(stack)].Add(c)
			return nil
		}, stream.NewDiag(new(bytes.Buffer), false))
		if err := foldChunk(pb, &stream.Chunk{Data: data, Name: "-", Line: 1}); err != nil {
			t.Fatal(err)
		}
		if err := pb.Flush(); err != nil {
			t.Fatal(err)
		}
		if len(batched) != len(serial) {
			t.Fatalf("batched fold has %d stacks, serial %d", len(batched), len(serial))
		}
		for s, c := range serial {
			if batched[s] != c {
				t.Fatalf("stack %q: batched count %v, serial %v", s, batched[s], c)
			}
		}
	})
}

func BenchmarkPerfScript(b *testing.B) {
	data, err := os.ReadFile("../../testdata/perf/layouts/default.txt")
	if err != nil {
		b.Fatal(err)
	}
	data = bytes.Repeat(data, 20)
	var n int64
	p := New(Options{}, func(s []byte, c fold.Count) error { n += int64(len(s)); return nil }, stream.NewDiag(new(bytes.Buffer), false))
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, l := range lines {
			p.Line("bench", j+1, l)
		}
		p.End()
	}
}

// BenchmarkFold is parse + aggregate, pfold's serial hot path.
func BenchmarkFold(b *testing.B) {
	data, err := os.ReadFile("../../testdata/perf/flamegraph/perf-vertx-stacks-01.txt")
	if err != nil {
		b.Fatal(err)
	}
	data = bytes.Repeat(data, 10)
	agg := stream.NewAggregator(stream.Options{})
	defer agg.Close()
	p := New(Options{TID: true}, agg.Add, stream.NewDiag(new(bytes.Buffer), false))
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, l := range lines {
			p.Line("bench", j+1, l)
		}
		p.End()
	}
}

// BenchmarkFoldChunks is pfold's whole path on a real Go-build recording:
// chunking, parsing, batching and aggregation with one worker.
func BenchmarkFoldChunks(b *testing.B) {
	r := stream.NewReader([]string{"../../testdata/perf/recorded/gobuild.txt.gz"})
	var data []byte
	for r.Scan() {
		data = append(append(data, r.Bytes()...), '\n')
	}
	path := b.TempDir() + "/gobuild.txt"
	os.WriteFile(path, bytes.Repeat(data, 4), 0o644)
	b.SetBytes(int64(4 * len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		agg := stream.NewAggregator(stream.Options{})
		ch := stream.NewChunker([]string{path}, nil, 4<<20, 4)
		if _, err := FoldChunks(ch, Options{Batch: 32 << 20}, stream.NewDiag(new(bytes.Buffer), false), []*stream.Aggregator{agg}); err != nil {
			b.Fatal(err)
		}
		agg.Close()
	}
}

// TestFoldAllocatesNothingPerLine: once its buffers, frame cache and the
// tables have grown, folding a chunk allocates nothing, with batching
// (as pfold folds) or without, and with a time range.
func TestFoldAllocatesNothingPerLine(t *testing.T) {
	data, err := os.ReadFile("../../testdata/perf/layouts/default.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{{Kernel: true}, {Kernel: true, Batch: 32 << 20}, {Batch: 32 << 20, Range: &Range{Min: 0.1, Max: 0.3}}} {
		agg := stream.NewAggregator(stream.Options{})
		defer agg.Close()
		p := New(opt, agg.Add, stream.NewDiag(new(bytes.Buffer), false))
		chunk := &stream.Chunk{Data: data, Name: "default.txt", Line: 1}
		foldChunk(p, chunk) // warm up
		lines := bytes.Count(data, []byte{'\n'})
		allocs := testing.AllocsPerRun(20, func() {
			if err := foldChunk(p, chunk); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%+v: %.1f allocations per fold of %d lines, want 0", opt, allocs, lines)
		}
	}
}
