package callgrind

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/pfold/pfold/fold"
)

// TestSortNames: names sharing long beginnings, of any length, in
// several files, come out as a comparison sort orders them, on one
// goroutine and on two.
func TestSortNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	stems := []string{"", "a", "std::vector<std::basic_string<char>>::", "native_write_msr_safe_", "x\x00", "\xff\xfe"}
	for _, n := range []int{1, 2, 33, 300, 1 << 17} {
		seen := map[string]bool{}
		var names [][]byte
		var files []int32
		for len(names) < n {
			s := stems[rng.IntN(len(stems))]
			for range rng.IntN(4) {
				s += stems[rng.IntN(len(stems))]
			}
			num := strconv.Itoa(rng.IntN(n))
			s += num[:min(len(num), rng.IntN(8))]
			f := int32(rng.IntN(3))
			if k := strconv.Itoa(int(f)) + "/" + s; !seen[k] {
				seen[k] = true
				names = append(names, []byte(s))
				files = append(files, f)
			}
		}
		keys := make([]nameKey, n)
		for i := range keys {
			keys[i] = nameKey{pre: namePrefix(names[i], 0), id: int32(i), file: files[i]}
		}
		sortNames(keys, make([]nameKey, n), 3, func(id int32) []byte { return names[id] })
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortFunc(want, func(a, b int32) int {
			if files[a] != files[b] {
				return int(files[a] - files[b])
			}
			return bytes.Compare(names[a], names[b])
		})
		for i, k := range keys {
			if k.id != want[i] {
				t.Fatalf("%d names: place %d holds %q (file %d), want %q (file %d)", n, i, names[k.id], files[k.id], names[want[i]], files[want[i]])
			}
		}
	}
}

// TestSharedFrames: a batch cuts each stack into the frames fold.Frames
// gives, and tells how many it shares with the stack before, as
// sharedFrames does.
func TestSharedFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	alpha := []byte(";;ab:")
	gen := func() []byte {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		return b
	}
	for range 20000 {
		var b Batch
		var prev []byte
		for range 8 {
			a := gen()
			if prev != nil {
				a = append(append([]byte(nil), prev[:rng.IntN(len(prev)+1)]...), a...)
			}
			if len(a) == 0 {
				a = []byte("x")
			}
			b.Append(a, fold.Int(1))
			st := b.stacks[len(b.stacks)-1]
			want := fold.SplitFrames(nil, a)
			if prev != nil {
				d, _ := sharedFrames(a, prev)
				if st.shared != d {
					t.Fatalf("%q after %q: %d frames shared, want %d", a, prev, st.shared, d)
				}
				want = want[d:]
			}
			var got [][]byte
			for _, f := range b.frames[st.frames[0]:st.frames[1]] {
				got = append(got, b.data[f.start:f.end])
			}
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("%q after %q: new frames %q, want %q", a, prev, got, want)
			}
			prev = a
		}
	}
}
