package perfdata

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/internal/testenv"
)

// TestCompareSeqs: comparing stacks by their tokens orders them as
// comparing their texts does, where one token starts another (followed
// by bytes on either side of ';') and where a token holds a ';'.
func TestCompareSeqs(t *testing.T) {
	f := &folder{tokOf: map[string]int32{}}
	words := []string{"a", "ab", "a(", "a:", "a;b", "a;", "b", "", "a~", "ab;c", "zz", ";"}
	var toks []int32
	for _, w := range words {
		toks = append(toks, f.intern([]byte(w)))
	}
	r := rand.New(rand.NewPCG(1, 2))
	seq := func() []int32 {
		s := make([]int32, r.IntN(4))
		for i := range s {
			s[i] = toks[r.IntN(len(toks))]
		}
		// As flush makes them: no leading empty token.
		for len(s) > 0 && len(f.token(s[0])) == 0 {
			s = s[1:]
		}
		return s
	}
	sign := func(c int) int { return min(max(c, -1), 1) }
	for i := 0; i < 200000; i++ {
		a, b := seq(), seq()
		want := bytes.Compare(f.join(nil, a), f.join(nil, b))
		var scratch [2][]byte
		if got := f.compareSeqs(a, b, &scratch); sign(got) != want {
			t.Fatalf("%q vs %q: %d, want %d", f.join(nil, a), f.join(nil, b), got, want)
		}
	}
}

// TestSortStacks: sorting stacks gives the order of their texts: by
// tokens at each depth when no token holds a ';' (tokens that start
// others, followed by bytes on either side of ';', and an empty one),
// by comparing texts on two goroutines and merging otherwise.
func TestSortStacks(t *testing.T) {
	for _, words := range [][]string{
		{"main", "main.f", "a;b", "x(", "", "zz", "runtime.g", "_start"},
		{"main", "main.f", "main(", "main~", "x(", "", "zz", "runtime.g", "_start", "m", "ma", "main.", "main.f("},
	} {
		f := &folder{tokOf: map[string]int32{}, jobs: 2}
		var toks []int32
		for _, w := range words {
			toks = append(toks, f.intern([]byte(w)))
		}
		r := rand.New(rand.NewPCG(3, 4))
		var seq []int32
		var offs []uint32
		var order []int32
		for i := 0; i < 10000; i++ {
			offs = append(offs, uint32(len(seq)))
			for n := r.IntN(9); n > 0; n-- {
				tok := toks[r.IntN(len(toks))]
				if i%3 == 0 { // long shared prefixes
					tok = toks[min(n, 2)]
				}
				if len(seq) > int(offs[i]) || len(f.token(tok)) > 0 {
					seq = append(seq, tok)
				}
			}
			order = append(order, int32(i))
		}
		offs = append(offs, uint32(len(seq)))
		got := f.sortStacks(order, seq, offs)
		seen := make([]bool, 10000)
		for _, j := range got {
			seen[j] = true
		}
		if len(got) != 10000 || slices.Contains(seen, false) {
			t.Fatalf("%d stacks, not each of the 10000 once", len(got))
		}
		for i := 1; i < len(got); i++ {
			a := f.join(nil, seq[offs[got[i-1]]:offs[got[i-1]+1]])
			b := f.join(nil, seq[offs[got[i]]:offs[got[i]+1]])
			if bytes.Compare(a, b) > 0 {
				t.Fatalf("words %q, at %d: %q before %q", words, i, a, b)
			}
		}
	}
}

// TestSortSyms: the radix sort of symbols orders them by start and
// keeps the order of equal starts, as a stable sort does.
func TestSortSyms(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 100, 5000} {
		for _, spread := range []uint64{4, 1 << 20, 1 << 40, ^uint64(0)} {
			s := make([]symbol, n)
			for i := range s {
				s[i] = symbol{start: 0xffffffff81000000 + r.Uint64()%spread, end: uint64(i)} // end: the original place
			}
			want := slices.Clone(s)
			slices.SortStableFunc(want, func(a, b symbol) int { return cmp.Compare(a.start, b.start) })
			if got := sortSyms(s); !slices.Equal(got, want) {
				t.Fatalf("%d symbols, spread %#x: not sorted stably", n, spread)
			}
		}
	}
}

// TestSortQueue: the ordering queue, sorted by merging its runs, is in
// time order with ties in arrival order, as perf's ordered_events
// delivers; with many runs, and with one.
func TestSortQueue(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, runs := range []int{1, 2, 3, 8, 40} {
		rp := &replay{}
		seq := uint32(0)
		for k := 0; k < runs; k++ {
			tm := uint64(r.IntN(50))
			for n := r.IntN(300); n > 0; n-- {
				tm += uint64(r.IntN(3)) // ties within and across runs
				seq++
				rp.queue = append(rp.queue, queued{time: tm, seq: seq, start: seq})
			}
		}
		want := slices.Clone(rp.queue)
		slices.SortStableFunc(want, func(a, b queued) int { return cmp.Compare(a.time, b.time) })
		rp.sortQueue()
		if !slices.Equal(rp.queue, want) {
			t.Errorf("%d runs: not in time and arrival order", runs)
		}
	}
}

// TestDemangle: C++ names as perf 6.1 shows them (GNU's demangler
// without parameters, c++filt -p -i), where Go's demangler differs: the
// address of a function in a template argument, empty argument packs.
func TestDemangle(t *testing.T) {
	for mangled, want := range map[string]string{
		"_ZN10hash_tableI22indirect_string_hasherLb0E11xcallocatorE8traverseI10dwarf_formXadL_Z22output_indirect_stringPP20indirect_string_nodeS4_EEEEvT_": "hash_table<indirect_string_hasher, false, xcallocator>::traverse<dwarf_form, &(output_indirect_string(indirect_string_node**, dwarf_form))>",
		"_Z1fIXadL_Z1gvEEEvv":                "f<&(g())>",
		"_Z1fIXadL_ZN2ns1gEiEEEvv":           "f<&ns::g>",
		"_Z1fIXadL_Z1gIiEviEEEvv":            "f<&(void g<int>(int))>",
		"_Z1fIXadL_Z1giEEEvv":                "f<&(g(int))>",
		"_ZNSt6vectorIiSaIiEE9push_backERKi": "std::vector<int, std::allocator<int> >::push_back",
		"main":                               "main",
		// Empty argument packs (see emptyPacks).
		"_Z1fIJEiEvv":       "f<, int>",
		"_Z1fI1AIiEJEiEvv":  "f<A<int>, , int>",
		"_Z1fI1AIiEJEJEEvv": "f<A<int>>",
		"_Z1fIJE1AIiEEvv":   "f<, A<int> >",
		"_Z1fIJEJEEvv":      "f<>",
	} {
		if got := demangleName(mangled); got != want {
			t.Errorf("%s: %q, want %q", mangled, got, want)
		}
	}
}

// TestDemangleAsGNU demangles 500 names of node's symbol table (half of
// them with empty argument packs, in V8's templates) and compares them
// with GNU's demangler, c++filt -p -i (the flags perf script demangles
// with).
func TestDemangleAsGNU(t *testing.T) {
	cxxfilt := testenv.NeedTool(t, "Debian package binutils", "c++filt")
	var names []string
	for _, f := range []string{"names.txt", "cxx-qualified-args.txt", "rust.txt", "rust-fuzz.txt"} {
		names = append(names, strings.Fields(stacktest.ReadFile(t, "../../testdata/perfdata/demangle/"+f))...)
	}
	cmd := exec.Command(cxxfilt, "-p", "-i")
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(want) != len(names) {
		t.Fatalf("c++filt printed %d lines for %d names", len(want), len(names))
	}
	bad := 0
	for i, m := range names {
		if got := demangleName(m); got != want[i] {
			if bad++; bad <= 5 {
				t.Errorf("%s:\n got %s\nwant %s", m, got, want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d names differ from c++filt's", bad, len(names))
	}
}
