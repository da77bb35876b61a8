package stream

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/stacktest"
)

func aggregate(t testing.TB, opt Options, stacks []string, counts []fold.Count) (string, Stats) {
	t.Helper()
	a := NewAggregator(opt)
	for i, s := range stacks {
		if err := a.Add([]byte(s), counts[i]); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if _, err := a.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	st := a.Stats()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String(), st
}

// TestSpillEquivalence proves the output is byte-identical whether the
// table fits or spills many runs (and merges them in several passes).
func TestSpillEquivalence(t *testing.T) {
	for _, dec := range []bool{false, true} {
		stacks, counts := stacktest.Random(60000, 5000, dec)
		want, st := aggregate(t, Options{Mem: 1 << 30}, stacks, counts)
		if st.Runs != 0 || st.Unique != 5000 {
			t.Fatalf("unlimited run: %+v", st)
		}
		tmp := t.TempDir()
		got, st := aggregate(t, Options{Mem: 64 << 10, TmpDir: tmp}, stacks, counts)
		if st.Runs < 20 {
			t.Errorf("only %d runs spilled with a 64 KiB budget", st.Runs)
		}
		if got != want {
			t.Fatalf("dec=%v: output with spills differs from the unlimited run", dec)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("temporary files left behind: %v", left)
		}
		// The sum of counts is conserved and the output sorted.
		var sum fold.Count
		for _, c := range counts {
			sum, _ = sum.Add(c)
		}
		if st.Total.Float64() != sum.Float64() {
			t.Errorf("total %v, want %v", st.Total, sum)
		}
		lines := strings.Split(strings.TrimSpace(got), "\n")
		for i := 1; i < len(lines); i++ {
			a, _, _ := fold.ParseLine([]byte(lines[i-1]))
			b, _, _ := fold.ParseLine([]byte(lines[i]))
			if bytes.Compare(a, b) >= 0 {
				t.Fatalf("not sorted at line %d", i)
			}
		}
	}
}

func TestMergeAcrossAggregators(t *testing.T) {
	stacks, counts := stacktest.Random(20000, 3000, false)
	want, _ := aggregate(t, Options{}, stacks, counts)
	for _, mem := range []int64{1 << 30, 32 << 10} {
		var aggs []*Aggregator
		for w := 0; w < 3; w++ {
			aggs = append(aggs, NewAggregator(Options{Mem: mem, TmpDir: t.TempDir()}))
		}
		for i, s := range stacks {
			aggs[i%3].Add([]byte(s), counts[i])
		}
		var b bytes.Buffer
		err := EachMerged(aggs, func(s []byte, c fold.Count) error {
			b.Write(fold.AppendLine(nil, s, c))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range aggs {
			a.Close()
		}
		if b.String() != want {
			t.Fatalf("mem=%d: merged output differs", mem)
		}
	}
}

func TestAggregatorOverflow(t *testing.T) {
	a := NewAggregator(Options{})
	defer a.Close()
	a.Add([]byte("x"), fold.Int(math.MaxUint64))
	if err := a.Add([]byte("x"), fold.Int(1)); err == nil {
		t.Fatal("overflow not reported")
	}
}

func TestSpillDirMissing(t *testing.T) {
	stacks, counts := stacktest.Random(5000, 2000, false)
	a := NewAggregator(Options{Mem: 16 << 10, TmpDir: "/nonexistent/dir"})
	defer a.Close()
	var err error
	for i, s := range stacks {
		if err = a.Add([]byte(s), counts[i]); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "spill") {
		t.Fatalf("got %v, want a spill error", err)
	}
}

func BenchmarkAggregatorAdd(b *testing.B) {
	stacks, counts := stacktest.Random(100000, 20000, false)
	var size int64
	for _, s := range stacks {
		size += int64(len(s))
	}
	bs := make([][]byte, len(stacks))
	for i, s := range stacks {
		bs[i] = []byte(s)
	}
	a := NewAggregator(Options{})
	defer a.Close()
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, s := range bs {
			a.Add(s, counts[j])
		}
	}
}

func BenchmarkReader(b *testing.B) {
	data := bytes.Repeat([]byte("java;start_thread;java_start;JavaThread::run;thread_main_inner;Interpreter 12\n"), 200000)
	p := stacktest.WriteFile(b, "in.txt", data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := NewReader([]string{p})
		for r.Scan() {
		}
		r.Close()
	}
}

// TestMergeWhenFirstAggregatorIsEmpty: the merged runs of several
// aggregators go to a temporary directory even when the first one (whose
// directory they use) spilled nothing.
func TestMergeWhenFirstAggregatorIsEmpty(t *testing.T) {
	stacks, counts := stacktest.Random(20000, 5000, false)
	want, _ := aggregate(t, Options{}, stacks, counts)
	tmp := t.TempDir()
	cwd, _ := os.Getwd()
	before, _ := os.ReadDir(cwd)
	aggs := []*Aggregator{NewAggregator(Options{Mem: 16 << 10, TmpDir: tmp}), NewAggregator(Options{Mem: 16 << 10, TmpDir: tmp})}
	for i, s := range stacks {
		aggs[1].Add([]byte(s), counts[i])
	}
	var b bytes.Buffer
	if err := WriteMerged(&b, aggs); err != nil {
		t.Fatal(err)
	}
	for _, a := range aggs {
		a.Close()
	}
	if b.String() != want {
		t.Fatal("merged output differs")
	}
	if after, _ := os.ReadDir(cwd); len(after) != len(before) {
		t.Errorf("files appeared in the working directory: %d before, %d after", len(before), len(after))
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// BenchmarkSort is the sort that ends every fold: distinct stacks that
// share long prefixes, as real ones do.
func BenchmarkSort(b *testing.B) {
	stacks, counts := stacktest.Random(50000, 1<<30, false)
	prefix := strings.Repeat("start_thread;java_start;JavaThread::run;", 8)
	t := newTable(4 << 20)
	var size int64
	for i, s := range stacks {
		s = prefix + s
		size += int64(len(s))
		t.add(hash([]byte(s)), []byte(s), counts[i])
	}
	order := slices.Clone(t.entries)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copy(t.entries, order)
		t.sorted()
	}
}

// TestSortedIsBytewise: the table's radix-then-compare sort orders
// stacks as bytes.Compare does, on stacks made to trip it: zero bytes,
// stacks that are prefixes of others, equal 8-byte groups that end at
// different lengths, and long shared prefixes.
func TestSortedIsBytewise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0, 1, 'a', 'b', ';', 0xff}
	seen := map[string]bool{}
	tb := newTable(1 << 10)
	var want []string
	for len(want) < 20000 {
		var k []byte
		if rng.IntN(3) == 0 {
			// Some share over a kilobyte: sortFrom skips shared bytes
			// past what its 8-byte levels reach.
			k = append(k, strings.Repeat("java;start_thread;", rng.IntN(8)+70*rng.IntN(2))...)
		}
		for range rng.IntN(20) {
			k = append(k, alphabet[rng.IntN(len(alphabet))])
		}
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		want = append(want, string(k))
		tb.add(hash(k), k, fold.Int(1))
	}
	slices.Sort(want)
	for i, e := range tb.sorted() {
		if got := string(tb.key(&e)); got != want[i] {
			t.Fatalf("position %d: %q, want %q", i, got, want[i])
		}
	}
}

// TestCommonPrefix: CommonPrefix is the length of the longest common
// prefix, at every length and mismatch position around its 8- and
// 32-byte steps, for bytes of every bit pattern (a mismatch must show
// whatever the other words of its step hold).
func TestCommonPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for n := 0; n < 100; n++ {
		for _, fill := range []func(int) byte{
			func(int) byte { return 'x' },
			func(int) byte { return byte(rng.IntN(256)) },
		} {
			a := make([]byte, n)
			for i := range a {
				a[i] = fill(i)
			}
			for m := 0; m <= n+2; m++ {
				b := append(slices.Clone(a[:min(m, n)]), "yz"[:max(0, min(2, m-n))]...)
				for i := 0; i < len(b); i++ {
					c := slices.Clone(b)
					c[i] ^= byte(1 + rng.IntN(255))
					want := 0
					for want < min(len(a), len(c)) && a[want] == c[want] {
						want++
					}
					if got := CommonPrefix(a, c); got != want {
						t.Fatalf("CommonPrefix(%q, %q) = %d, want %d", a, c, got, want)
					}
				}
			}
		}
	}
}

// TestCommonPrefixRandom: CommonPrefix on random pairs of a three-byte
// alphabet, one often a prefix of the other (callgrind's sorted names).
func TestCommonPrefixRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		a := make([]byte, rng.IntN(100))
		for i := range a {
			a[i] = byte(rng.IntN(3))
		}
		b := append([]byte(nil), a[:rng.IntN(len(a)+1)]...)
		for range rng.IntN(50) {
			b = append(b, byte(rng.IntN(3)))
		}
		want := 0
		for want < len(a) && want < len(b) && a[want] == b[want] {
			want++
		}
		if got := CommonPrefix(a, b); got != want {
			t.Fatalf("CommonPrefix(%v, %v) = %d, want %d", a, b, got, want)
		}
	}
}

// TestTableStaysWithinMem: the table the Aggregator holds never takes
// more than Options.Mem, counting its index, entries and arena as size
// does.
func TestTableStaysWithinMem(t *testing.T) {
	stacks, counts := stacktest.Random(100000, 30000, false)
	bs := make([][]byte, len(stacks))
	for i, s := range stacks {
		bs[i] = []byte(s)
	}
	// Budgets 5% apart, so that one of them is reached as each array
	// grows (the index, the entries, the arena).
	for mem := int64(64 << 10); mem < 3<<20; mem += mem / 20 {
		a := NewAggregator(Options{Mem: mem, TmpDir: t.TempDir()})
		peak := int64(0)
		for i, s := range bs {
			if err := a.Add(s, counts[i]); err != nil {
				t.Fatal(err)
			}
			peak = max(peak, a.t.size())
			if a.t.size() > mem {
				t.Fatalf("--mem %d: the table holds %d bytes after %d stacks", mem, a.t.size(), i+1)
			}
			if a.Stats().Runs == 2 {
				break // it has filled up and emptied twice
			}
		}
		if a.Stats().Runs == 0 || peak < mem/2 {
			t.Errorf("--mem %d: %d runs, at most %d bytes held", mem, a.Stats().Runs, peak)
		}
		a.Close()
	}
}

// TestTableSizeIsHeld: what the table says it holds, for the memory
// budget, is what the heap grows by when it fills.
func TestTableSizeIsHeld(t *testing.T) {
	stacks, counts := stacktest.Random(100000, 30000, false)
	bs := make([][]byte, len(stacks))
	for i, s := range stacks {
		bs[i] = []byte(s)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tb := newTable(256 << 10)
	for i, s := range bs {
		tb.add(hash(s), s, counts[i])
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if d := held - tb.size(); d < -tb.size()/100 || d > tb.size()/100+16<<10 {
		t.Errorf("the table says it holds %d bytes; the heap grew by %d", tb.size(), held)
	}
	runtime.KeepAlive(tb)
	runtime.KeepAlive(bs)
	runtime.KeepAlive(stacks)
	runtime.KeepAlive(counts)
}

// TestEntrySize: entrySize, which the budget counts, is an entry's size.
func TestEntrySize(t *testing.T) {
	if s := unsafe.Sizeof(entry{}); s != entrySize {
		t.Errorf("an entry takes %d bytes; entrySize says %d", s, entrySize)
	}
}

// TestSortByDigit: the digit sort orders entries as slices.SortFunc
// does, on runs of equal digits, sorted and reversed input and few
// distinct values.
func TestSortByDigit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 17, 100, 5000} {
		for _, kinds := range []int{1, 2, 7, 1 << 30} {
			es := make([]entry, n)
			for i := range es {
				es[i] = entry{hash: uint64(rng.IntN(kinds)), off: uint32(i)}
			}
			for _, order := range []string{"random", "sorted", "reversed"} {
				switch order {
				case "sorted":
					slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.hash, b.hash) })
				case "reversed":
					slices.Reverse(es)
				}
				got := slices.Clone(es)
				sortByDigit(got, 2*bits.Len(uint(n)))
				if !slices.IsSortedFunc(got, func(a, b entry) int { return cmp.Compare(a.hash, b.hash) }) {
					t.Fatalf("n %d, %d kinds, %s: not sorted", n, kinds, order)
				}
				seen := make([]bool, n)
				for _, e := range got {
					seen[e.off] = true
				}
				if slices.Contains(seen, false) {
					t.Fatalf("n %d, %d kinds, %s: entries lost", n, kinds, order)
				}
			}
		}
	}
}

// TestEarlySpill: once a table has filled its budget, it spills as soon
// as it holds earlySpill while it mostly receives new stacks; stacks that
// fit in the budget never spill, however new they are. The output is the
// same either way.
func TestEarlySpill(t *testing.T) {
	dir := t.TempDir()
	const n = 600000 // about 52 MiB of table
	var want []string
	for _, mem := range []int64{1 << 30, 24 << 20} {
		a := NewAggregator(Options{Mem: mem, TmpDir: dir})
		defer a.Close()
		want = want[:0]
		for i := range n {
			s := fmt.Appendf(nil, "main;work;frame_%08d;leaf_%d", i, i%7)
			want = append(want, string(s)+" 1")
			if err := a.Add(s, fold.Int(1)); err != nil {
				t.Fatal(err)
			}
		}
		switch {
		case mem == 1<<30 && a.Stats().Runs != 0:
			t.Errorf("%d new stacks within the budget: %d runs spilled", n, a.Stats().Runs)
		case mem < 1<<30 && a.Stats().Runs < 4:
			// One run of 24 MiB, then runs of earlySpill (8 MiB), where
			// the budget alone would spill twice.
			t.Errorf("--mem %d: %d runs spilled; early spills would make more", mem, a.Stats().Runs)
		}
		var b bytes.Buffer
		if _, err := a.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		slices.Sort(want)
		if got := strings.TrimSuffix(b.String(), "\n"); got != strings.Join(want, "\n") {
			t.Errorf("--mem %d: output differs:\n%s", mem, stacktest.FirstDiff(got, strings.Join(want, "\n")))
		}
	}
}

// TestSortedInOrderAdds: stacks added already sorted are not sorted
// again, and one added out of order anywhere, first or last, makes the
// table sort; so does a stack added again after the table was reset.
func TestSortedInOrderAdds(t *testing.T) {
	keys := []string{"a", "a;b", "a;b;c", "a;c", "b", "b;a", "c"}
	for out := -1; out < len(keys); out++ {
		tb := newTable(1 << 10)
		for round := range 2 {
			var want []string
			for i, k := range keys {
				if i == out && round == 1 {
					continue // added last below, out of order
				}
				tb.add(hash([]byte(k)), []byte(k), fold.Int(1))
				want = append(want, k)
			}
			if out >= 0 && round == 1 {
				k := keys[out]
				tb.add(hash([]byte(k)), []byte(k), fold.Int(1))
				want = append(want, k)
				slices.Sort(want)
			}
			if got := tb.unordered; got != (out >= 0 && round == 1 && out != len(keys)-1) {
				t.Errorf("out %d round %d: unordered %v", out, round, got)
			}
			var got []string
			for _, e := range tb.sorted() {
				got = append(got, string(tb.key(&e)))
			}
			if !slices.Equal(got, want) {
				t.Errorf("out %d round %d: %q, want %q", out, round, got, want)
			}
			tb.reset()
		}
	}
}

// sliceRun is a SortedRun of stacks given in order.
type sliceRun struct {
	stacks []string
	counts []fold.Count
	i      int
}

func (r *sliceRun) Added() int64 { return int64(len(r.stacks)) }

func (r *sliceRun) Next() ([]byte, fold.Count, bool) {
	if r.i == len(r.stacks) {
		return nil, fold.Count{}, false
	}
	r.i++
	return []byte(r.stacks[r.i-1]), r.counts[r.i-1], true
}

// TestAddSorted proves runs given whole (AddSorted) are summed with the
// stacks added one by one and with the runs before them, spilled or not,
// as if every stack had been added one by one.
func TestAddSorted(t *testing.T) {
	stacks, counts := stacktest.Random(30000, 3000, false)
	// Three runs of distinct stacks, sorted, and the rest added.
	var runs []*sliceRun
	var restS []string
	var restC []fold.Count
	for i := 0; i < 3; i++ {
		seen := map[string]int{}
		r := &sliceRun{}
		for k := i * 6000; k < (i+1)*6000; k++ {
			if j, ok := seen[stacks[k]]; ok {
				r.counts[j], _ = r.counts[j].Add(counts[k])
				continue
			}
			seen[stacks[k]] = len(r.stacks)
			r.stacks, r.counts = append(r.stacks, stacks[k]), append(r.counts, counts[k])
		}
		idx := make([]int, len(r.stacks))
		for j := range idx {
			idx[j] = j
		}
		slices.SortFunc(idx, func(a, b int) int { return strings.Compare(r.stacks[a], r.stacks[b]) })
		sorted := &sliceRun{}
		for _, j := range idx {
			sorted.stacks, sorted.counts = append(sorted.stacks, r.stacks[j]), append(sorted.counts, r.counts[j])
		}
		runs = append(runs, sorted)
	}
	restS, restC = stacks[18000:], counts[18000:]
	want, wst := aggregate(t, Options{Mem: 1 << 30}, stacks, counts)
	for _, mem := range []int64{1 << 30, 64 << 10} {
		a := NewAggregator(Options{Mem: mem, TmpDir: t.TempDir()})
		for i, r := range runs {
			for k := i * 4000; k < (i+1)*4000; k++ {
				if err := a.Add([]byte(restS[k]), restC[k]); err != nil {
					t.Fatal(err)
				}
			}
			r.i = 0
			if i == 2 {
				if err := a.AddSorted(nil); err != nil { // lets the run before go
					t.Fatal(err)
				}
			}
			if err := a.AddSorted(r); err != nil {
				t.Fatal(err)
			}
		}
		var b bytes.Buffer
		if _, err := a.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		st := a.Stats()
		a.Close()
		if b.String() != want {
			t.Fatalf("--mem %d: output differs from the stacks added one by one", mem)
		}
		if st.Unique != wst.Unique || st.Total != wst.Total || mem < 1<<20 && st.Runs == 0 {
			t.Errorf("--mem %d: stats %+v, want %+v", mem, st, wst)
		}
		if st.Added != 12000+int64(len(runs[0].stacks)+len(runs[1].stacks)+len(runs[2].stacks)) {
			t.Errorf("--mem %d: %d added", mem, st.Added)
		}
	}
	// A run alone is yielded as it is.
	a := NewAggregator(Options{})
	r := &sliceRun{stacks: []string{"a;b", "a;c", "b"}, counts: []fold.Count{fold.Int(1), fold.Int(2), fold.Int(3)}}
	if err := a.AddSorted(r); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := a.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if got := b.String(); got != "a;b 1\na;c 2\nb 3\n" {
		t.Errorf("got %q", got)
	}
}

// TestAddHash: a stack added with its hash is the stack Add adds.
func TestAddHash(t *testing.T) {
	a := NewAggregator(Options{})
	defer a.Close()
	for _, s := range []string{"a;b", "a;c", "a;b"} {
		if err := a.Add([]byte(s), fold.Int(1)); err != nil {
			t.Fatal(err)
		}
		if err := a.AddHash(hash([]byte(s)), []byte(s), fold.Int(2)); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if _, err := a.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "a;b 6\na;c 3\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if n := a.Stats().Added; n != 6 {
		t.Errorf("Added %d, want 6", n)
	}
}

// TestAggregatedSpill: the table of an aggregated input spills runs of
// 16 MiB as soon as they are mostly new stacks, with room in the budget;
// where no run can be written it stays in memory, without an error. The
// output is the same each way.
func TestAggregatedSpill(t *testing.T) {
	const n = 600000 // about 50 MiB of table
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("main;work;frame_%08d;leaf_%d 1", i, i%7))
	}
	slices.Sort(want)
	for _, tc := range []struct {
		aggregated bool
		tmp        string
		runs       bool
	}{
		{false, t.TempDir(), false},
		{true, t.TempDir(), true},
		{true, filepath.Join(t.TempDir(), "missing"), false},
	} {
		a := NewAggregator(Options{Mem: 1 << 30, TmpDir: tc.tmp, Aggregated: tc.aggregated})
		defer a.Close()
		for i := range n {
			// Out of order, so that the table sorts when it spills.
			j := (i * 7919) % n
			if err := a.Add(fmt.Appendf(nil, "main;work;frame_%08d;leaf_%d", j, j%7), fold.Int(1)); err != nil {
				t.Fatal(err)
			}
		}
		if runs := a.Stats().Runs; (runs >= 2) != tc.runs {
			t.Errorf("aggregated %v, tmpdir %s: %d runs spilled", tc.aggregated, tc.tmp, runs)
		}
		var b bytes.Buffer
		if _, err := a.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSuffix(b.String(), "\n"); got != strings.Join(want, "\n") {
			t.Errorf("aggregated %v, tmpdir %s: output differs:\n%s", tc.aggregated, tc.tmp, stacktest.FirstDiff(got, strings.Join(want, "\n")))
		}
	}
}

// TestReindex: a table sorted for a run that could not be written takes
// more stacks, and finds those it had.
func TestReindex(t *testing.T) {
	tb := newTable(1 << 10)
	for _, k := range []string{"c", "a", "b"} {
		tb.add(hash([]byte(k)), []byte(k), fold.Int(1))
	}
	tb.sorted()
	if !tb.indexDead {
		t.Fatal("sorting out of order left the index as it was")
	}
	tb.reindex()
	for _, k := range []string{"b", "d", "a"} {
		tb.add(hash([]byte(k)), []byte(k), fold.Int(2))
	}
	var got []string
	for _, e := range tb.sorted() {
		got = append(got, fmt.Sprintf("%s %v", tb.key(&e), e.count()))
	}
	if want := "a 3,b 3,c 1,d 2"; strings.Join(got, ",") != want {
		t.Errorf("got %s, want %s", strings.Join(got, ","), want)
	}
}
