package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/stream"
)

// sumStacks is the oracle of a merge, computed without stream: the
// folded text of stacks summed and sorted bytewise, with the number of
// distinct stacks and their total.
func sumStacks(t testing.TB, stacks []string, counts []fold.Count) (text string, unique int64, total fold.Count) {
	t.Helper()
	sums := map[string]fold.Count{}
	for i, s := range stacks {
		sum, err := sums[s].Add(counts[i])
		if err != nil {
			t.Fatal(err)
		}
		sums[s] = sum
		if total, err = total.Add(counts[i]); err != nil {
			t.Fatal(err)
		}
	}
	var b []byte
	for _, s := range slices.Sorted(maps.Keys(sums)) {
		b = fold.AppendLine(b, []byte(s), sums[s])
	}
	return string(b), int64(len(sums)), total
}

// sortedFolded writes the aggregate of stacks as a sorted folded file.
func sortedFolded(t testing.TB, name string, stacks []string, counts []fold.Count) string {
	t.Helper()
	text, _, _ := sumStacks(t, stacks, counts)
	return stacktest.WriteFile(t, name, []byte(text))
}

func mergeFiles(t testing.TB, names []string, opt MergeOptions) (string, MergeStats, error) {
	t.Helper()
	if opt.Diag == nil {
		opt.Diag = stream.NewDiag(io.Discard, false)
	}
	var b bytes.Buffer
	st, err := MergeFiles(names, opt, func(stack []byte, c fold.Count) error {
		b.Write(fold.AppendLine(nil, stack, c))
		return nil
	})
	return b.String(), st, err
}

func TestMergeFiles(t *testing.T) {
	var names []string
	var all []string
	var allCounts []fold.Count
	for i := range 3 {
		stacks, counts := stacktest.Random(3000*(i+1), 1000, i == 2)
		names = append(names, sortedFolded(t, fmt.Sprintf("in%d.folded", i), stacks, counts))
		all = append(all, stacks...)
		allCounts = append(allCounts, counts...)
	}
	want, wantUnique, wantTotal := sumStacks(t, all, allCounts)

	// Mapped in one window or many, or read when compressed.
	gz := filepath.Join(t.TempDir(), "in0.folded.gz")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(read(t, names[0])))
	zw.Close()
	os.WriteFile(gz, zb.Bytes(), 0o644)
	defer func(w int) { stream.MapWindow = w }(stream.MapWindow)
	for _, window := range []int{16 << 20, os.Getpagesize()} {
		stream.MapWindow = window
		for _, ns := range [][]string{names, append([]string{gz}, names[1:]...), names[:2]} {
			w := want
			if len(ns) == 2 {
				w, _, _ = mergeFiles(t, ns, MergeOptions{Agg: stream.Options{Mem: 1}}) // aggregated: one reader does not fit
			}
			got, st, err := mergeFiles(t, ns, MergeOptions{})
			if err != nil || got != w || !st.Streamed {
				t.Fatalf("sorted inputs %v, window %d: streamed %v (%s), err %v, equal %v", ns, window, st.Streamed, st.Why, err, got == w)
			}
			if len(ns) == 3 && (st.In != wantTotal || st.Out != wantTotal || st.Unique != wantUnique) {
				t.Errorf("stats %+v, want total %v unique %d", st, wantTotal, wantUnique)
			}
		}
	}

	// The same stacks unsorted, from stdin, or past the reader budget go
	// through the aggregator, and give the same bytes.
	lines := strings.SplitAfter(read(t, names[1]), "\n")
	slices.Reverse(lines)
	unsorted := stacktest.WriteFile(t, "unsorted.folded", []byte(strings.Join(lines, "")))
	stdinText := read(t, names[2])
	for _, tc := range []struct {
		name  string
		names []string
		opt   MergeOptions
		why   string
	}{
		{"unsorted", []string{names[0], unsorted, names[2]}, MergeOptions{}, "unsorted.folded:2 is not sorted"},
		{"stdin", []string{names[0], names[1], "-"}, MergeOptions{Stdin: strings.NewReader(stdinText)}, "- is not a regular file"},
		{"budget", names, MergeOptions{Agg: stream.Options{Mem: 4 << 20, TmpDir: t.TempDir()}}, "3 readers do not fit"},
		{"spilled", []string{names[0], unsorted, names[2]}, MergeOptions{Agg: stream.Options{Mem: 64 << 10, TmpDir: t.TempDir()}}, "readers do not fit"},
	} {
		got, st, err := mergeFiles(t, tc.names, tc.opt)
		if err != nil || st.Streamed || !strings.Contains(st.Why, tc.why) {
			t.Errorf("%s: streamed %v why %q err %v", tc.name, st.Streamed, st.Why, err)
		}
		if got != want {
			t.Errorf("%s: output differs from the streamed merge", tc.name)
		}
		if tc.name == "spilled" && st.Runs == 0 {
			t.Errorf("%s: nothing spilled", tc.name)
		}
	}
}

func TestMergeFilesWeights(t *testing.T) {
	a := stacktest.WriteFile(t, "a", []byte("x 2\ny 3\n"))
	b := stacktest.WriteFile(t, "b", []byte("x 4\nz 1\n"))
	for _, sorted := range []bool{true, false} {
		names := []string{a, b}
		opt := MergeOptions{Weights: []float64{3, 0.5}}
		if !sorted {
			names[1] = "-"
			opt.Stdin = strings.NewReader("x 4\nz 1\n")
		}
		got, st, err := mergeFiles(t, names, opt)
		if err != nil || got != "x 8\ny 9\nz 0.5\n" || st.In.String() != "17.5" || st.Out.String() != "17.5" {
			t.Errorf("sorted %v: %q %+v %v", sorted, got, st, err)
		}
	}
	if _, _, err := mergeFiles(t, []string{a, b}, MergeOptions{Weights: []float64{1}}); err == nil {
		t.Error("1 weight for 2 inputs accepted")
	}
}

func TestMergeFilesErrors(t *testing.T) {
	a := stacktest.WriteFile(t, "a", []byte("x 18446744073709551615\n"))
	b := stacktest.WriteFile(t, "b", []byte("x 1\n"))
	if _, _, err := mergeFiles(t, []string{a, b}, MergeOptions{}); !errors.Is(err, fold.ErrOverflow) {
		t.Errorf("overflow: %v", err)
	}
	bad := stacktest.WriteFile(t, "bad", []byte("x 1\nbroken\n"))
	if _, _, err := mergeFiles(t, []string{b, bad}, MergeOptions{Diag: stream.NewDiag(io.Discard, true)}); err == nil {
		t.Error("strict: malformed line accepted")
	}
	if _, _, err := mergeFiles(t, []string{filepath.Join(t.TempDir(), "missing")}, MergeOptions{}); err == nil {
		t.Error("missing input: no error")
	}
}

// TestMergeFilesMemoryFlat checks that merging sorted inputs takes the
// same live heap whether they are small or 8 times larger, while the
// aggregation of the same inputs grows with them (so the measure can
// tell).
func TestMergeFilesMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes ~30 MB of input")
	}
	peak := func(names []string, opt MergeOptions) uint64 {
		var max uint64
		var ms runtime.MemStats
		n := 0
		_, err := MergeFiles(names, opt, func([]byte, fold.Count) error {
			if n++; n%8192 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				max = maxOf(max, ms.HeapAlloc)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return max
	}
	inputs := func(lines int) []string {
		names, _ := stacktest.Files(t, 4, func(i int, b *bytes.Buffer) {
			for j := range lines {
				fmt.Fprintf(b, "proc;main;server_loop;handle_request_%08d;parse;input%d 7\n", j, i)
			}
		})
		return names
	}
	small, large := inputs(12500), inputs(100000)
	opt := MergeOptions{Diag: stream.NewDiag(io.Discard, false)}
	ps, pl := peak(small, opt), peak(large, opt)
	t.Logf("streamed merge: live heap %d KiB for 4×12.5k lines, %d KiB for 4×100k", ps>>10, pl>>10)
	if pl > ps+1<<20 {
		t.Errorf("streamed merge heap grew from %d to %d bytes with 8× the input", ps, pl)
	}

	// Through the aggregator (the unsorted fallback) the heap grows.
	agg := func(names []string) []string { return append(slices.Clone(names[:3]), "-") }
	opt.Stdin = strings.NewReader(read(t, small[3]))
	as := peak(agg(small), opt)
	opt.Stdin = strings.NewReader(read(t, large[3]))
	al := peak(agg(large), opt)
	t.Logf("aggregated: live heap %d KiB, then %d KiB", as>>10, al>>10)
	if al < as+8<<20 {
		t.Errorf("the aggregated merge did not grow (%d → %d bytes): the measure cannot tell", as, al)
	}
}

func maxOf(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

func BenchmarkMergeFiles(b *testing.B) {
	names, size := stacktest.Files(b, 4, func(i int, buf *bytes.Buffer) {
		for j := range 50000 {
			fmt.Fprintf(buf, "proc;main;server_loop;handle_request_%08d;parse;input%d %d\n", j*(i+1), i, 1+j%9)
		}
	})
	for _, n := range []int{2, 4} { // two inputs are merged side by side, more through a heap
		// Counted: the readers count what they read for a progress line.
		for _, counted := range []bool{false, true} {
			opt := MergeOptions{Diag: stream.NewDiag(io.Discard, false)}
			name := fmt.Sprintf("%d inputs", n)
			if counted {
				opt.Progress = func(string) *stream.Progress { return new(stream.Progress) }
				name += ", counted"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(size * int64(n) / 4)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := MergeFiles(names[:n], opt, func([]byte, fold.Count) error { return nil }); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
