package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/igprof"
	"github.com/pfold/pfold/ingest/perfscript"
	"github.com/pfold/pfold/stream"
)

// The tests run in scripts/benchgen; the templates are named from the
// repository root.
func templates(t testing.TB, maxStack int) []*source {
	t.Helper()
	var names []string
	for _, n := range defaultTemplates {
		names = append(names, filepath.Join("..", "..", n))
	}
	srcs, err := loadSources(names, maxStack)
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

var (
	loadOnce sync.Once
	loaded   []*source
)

func defaultSources(t testing.TB) []*source {
	loadOnce.Do(func() { loaded = templates(t, 0) })
	return loaded
}

func generate(t testing.TB, srcs []*source, cfg Config) ([]byte, Stats) {
	t.Helper()
	var b bytes.Buffer
	st, err := newGenerator(srcs, cfg).Generate(&b)
	if err != nil {
		t.Fatal(err)
	}
	if int64(b.Len()) != st.Bytes {
		t.Fatalf("stats say %d bytes, wrote %d", st.Bytes, b.Len())
	}
	return b.Bytes(), st
}

func TestTemplatesLoad(t *testing.T) {
	srcs := defaultSources(t)
	if len(srcs) != 13 {
		t.Errorf("%d sources, want the 7 recordings and 6 fixtures", len(srcs))
	}
	for _, s := range srcs {
		sites := 0
		for _, smp := range s.samples {
			sites += len(smp.sites)
		}
		// A source whose frames can never be renamed could not add
		// distinct stacks: gcc's stripped cc1plus comes closest.
		if sites == 0 {
			t.Errorf("%s: %d samples, no frame to rename", s.name, len(s.samples))
		}
	}
}

func TestDeterministic(t *testing.T) {
	srcs := defaultSources(t)
	cfg := Config{Size: 1 << 20, Seed: 7, Unique: 3000}
	a, _ := generate(t, srcs, cfg)
	b, _ := generate(t, templates(t, 0), cfg) // loaded afresh
	if !bytes.Equal(a, b) {
		t.Fatal("same seed and size, different dumps")
	}
	cfg.Seed = 8
	if c, _ := generate(t, srcs, cfg); bytes.Equal(a, c) {
		t.Fatal("another seed made the same dump")
	}
	if len(a) < 1<<20 || len(a) > 1<<20+64<<10 {
		t.Errorf("asked 1 MiB, got %d bytes", len(a))
	}
}

// foldDump folds a dump as pfold does (file input, default options).
func foldDump(t *testing.T, dump []byte) (samples int64, malformed int, agg *stream.Aggregator, warn string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dump.txt")
	if err := os.WriteFile(path, dump, 0o644); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	agg = stream.NewAggregator(stream.Options{TmpDir: t.TempDir()})
	t.Cleanup(func() { agg.Close() })
	diag := stream.NewDiag(&w, false)
	p := perfscript.New(perfscript.Options{Warn: &w}, agg.Add, diag)
	r := stream.NewReader([]string{path})
	defer r.Close()
	if err := perfscript.Fold(r, p); err != nil {
		t.Fatal(err)
	}
	return p.Counts().Samples, diag.Count(), agg, w.String()
}

func TestFoldsCleanly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxStack int
		cfg      Config
	}{
		{"recorded stacks only", 0, Config{Size: 2 << 20, Seed: 1}},
		{"3000 distinct", 0, Config{Size: 8 << 20, Seed: 2, Unique: 3000}},
		{"max-stack 4, all distinct", 4, Config{Size: 2 << 20, Seed: 3, Unique: 1 << 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srcs := defaultSources(t)
			if tc.maxStack > 0 {
				srcs = templates(t, tc.maxStack)
			}
			dump, st := generate(t, srcs, tc.cfg)
			samples, malformed, agg, warn := foldDump(t, dump)
			if malformed > 0 || warn != "" {
				t.Errorf("%d malformed lines: %s", malformed, warn)
			}
			if samples != st.Samples {
				t.Errorf("pfold folded %d samples, the generator wrote %d", samples, st.Samples)
			}
			maxDepth := 0
			if err := agg.Each(func(stack []byte, c fold.Count) error {
				maxDepth = max(maxDepth, bytes.Count(stack, []byte{';'}))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			got := agg.Stats().Unique
			// The generator counts the stacks it makes: pfold must agree.
			if got != st.Distinct {
				t.Errorf("pfold folded %d distinct stacks, the generator counted %d", got, st.Distinct)
			}
			if tc.cfg.Unique > 0 && tc.cfg.Unique < st.Samples && (got < tc.cfg.Unique*98/100 || got > tc.cfg.Unique*102/100) {
				t.Errorf("%d distinct stacks, asked %d", got, tc.cfg.Unique)
			}
			if tc.cfg.Unique > st.Samples && got < st.Samples*8/10 {
				t.Errorf("%d distinct stacks of %d samples, asked all distinct", got, st.Samples)
			}
			// Inlined frames split into several, the comm adds one.
			if tc.maxStack > 0 && maxDepth > 2*tc.maxStack {
				t.Errorf("a stack of %d frames with -max-stack %d", maxDepth+1, tc.maxStack)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	for _, tc := range []struct {
		in, pid, time, head string
	}{
		{"dd 25438  1074.159291:    1001001 cpu-clock: ", "25438", "1074.159291", "dd 25438  1074.159291:    1001001 cpu-clock: "},
		{"iperf 27409/28744 [000] 441995.133575: cpu-clock: ", "27409/28744", "441995.133575", "iperf 27409/28744 [000] 441995.133575: cpu-clock: "},
		{"emulator  4152 75695.008865:          1 cycles:u: ", "4152", "75695.008865", "emulator  4152 75695.008865:          1 cpu-clock: "},
		{"java  3245 cpu-clock: ", "3245", "", "java  3245 cpu-clock: "},
		{"spin worker 1234/1240 [001] 12.000000001: 1 cycles:", "1234/1240", "12.000000001", "spin worker 1234/1240 [001] 12.000000001: 1 cpu-clock: "},
	} {
		var s sample
		head := s.parseHeader([]byte(tc.in))
		if string(head) != tc.head {
			t.Errorf("%q: header %q, want %q", tc.in, head, tc.head)
		}
		pid, tm := "", ""
		if s.pidAt >= 0 {
			pid = string(head[s.pidAt:s.pidEnd])
		}
		if s.timeAt >= 0 {
			tm = string(head[s.timeAt:s.timeEnd])
		}
		if pid != tc.pid || tm != tc.time {
			t.Errorf("%q: pid %q time %q, want %q %q", tc.in, pid, tm, tc.pid, tc.time)
		}
	}
}

func foldIgProf(t *testing.T, path string) map[string]uint64 {
	t.Helper()
	got := map[string]uint64{}
	f := igprof.NewFolder(igprof.Options{}, func(stack []byte, c fold.Count) error {
		got[string(stack)] += c.N
		return nil
	})
	defer f.Close()
	diag := stream.NewDiag(os.Stderr, true)
	r := stream.NewReader([]string{path})
	defer r.Close()
	if err := igprof.Fold(r, f, diag); err != nil {
		t.Fatal(err)
	}
	return got
}

// A repeated IgProf dump folds into the stacks of the original with
// counts multiplied by the number of copies.
func TestIgProf(t *testing.T) {
	for _, name := range []string{"igprof.pp.ls.gz", "igprof.mp.ls.gz"} {
		t.Run(name, func(t *testing.T) {
			orig := filepath.Join("..", "..", "testdata", "igprof", name)
			var b bytes.Buffer
			if _, err := writeIgProf(&b, orig, 100<<10); err != nil {
				t.Fatal(err)
			}
			dump := b.String()
			copies := uint64(strings.Count(dump, "\nC1 ")) // the first tree follows the header
			path := filepath.Join(t.TempDir(), "dump.txt")
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			want, got := foldIgProf(t, orig), foldIgProf(t, path)
			trees := uint64(0)
			if r, err := stream.Open(orig); err == nil {
				var ob bytes.Buffer
				ob.ReadFrom(r)
				r.Close()
				trees = uint64(strings.Count(ob.String(), "\nC1 "))
			}
			if trees == 0 || copies%trees != 0 {
				t.Fatalf("%d call trees in %d copies", copies, trees)
			}
			k := copies / trees
			if k < 10 {
				t.Fatalf("only %d copies in 100 KiB", k)
			}
			if len(got) != len(want) {
				t.Errorf("%d stacks, the original has %d", len(got), len(want))
			}
			for s, c := range want {
				if got[s] != k*c {
					t.Errorf("%s: %d, want %d × %d", s, got[s], k, c)
				}
			}
		})
	}
}

func BenchmarkGenerate(b *testing.B) {
	srcs := defaultSources(b)
	g := newGenerator(srcs, Config{Size: 1 << 62, Seed: 1, Unique: 50000})
	var buf []byte
	b.ReportAllocs()
	b.ResetTimer()
	var n int64
	for range b.N {
		src := g.rng.IntN(len(srcs))
		s := &srcs[src].samples[g.rng.IntN(len(srcs[src].samples))]
		buf = g.appendSample(buf[:0], src, s)
		n += int64(len(buf))
		g.stats.Bytes += int64(len(buf))
	}
	b.SetBytes(n / int64(b.N))
}

// TestFolded: -folded writes what pfold makes of the dump, also when the
// stacks spill.
func TestFolded(t *testing.T) {
	srcs := templates(t, 3)
	cfg := Config{Size: 4 << 20, Seed: 5, Unique: 20000}
	dump, _ := generate(t, srcs, cfg)
	_, _, agg, _ := foldDump(t, dump)
	var want bytes.Buffer
	if _, err := agg.WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	for _, mem := range []int64{0, 256 << 10} {
		var got bytes.Buffer
		st, err := writeFolded(&got, newGenerator(srcs, cfg), mem, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if st.Bytes != int64(len(dump)) {
			t.Errorf("mem %d: generated %d bytes, the dump has %d", mem, st.Bytes, len(dump))
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("mem %d: %d bytes of folded stacks differ from pfold's %d", mem, got.Len(), want.Len())
		}
	}
}
