package table

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// frameLines returns n distinct frame lines of perf script's shape.
func frameLines(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = fmt.Appendf(nil, "%16x frame_number_%d+0x%x (/usr/lib/x86_64-linux-gnu/libc.so.6)", 0x7f0000000000+i*64, i, i%4096)
	}
	return out
}

// BenchmarkBytes adds distinct keys to an empty table (Add), then looks
// them up in random order (Find); map is a Go map of the same keys, for
// scale. MB/s is of key bytes.
func BenchmarkBytes(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 17} {
		ks := frameLines(n)
		var size int64
		for _, k := range ks {
			size += int64(len(k))
		}
		order := rand.New(rand.NewPCG(1, 1)).Perm(n)
		b.Run(fmt.Sprintf("Add/%d", n), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				var t Bytes
				for _, k := range ks {
					t.Add(k)
				}
			}
		})
		var t Bytes
		m := map[string]int32{}
		for i, k := range ks {
			t.Add(k)
			m[string(k)] = int32(i)
		}
		b.Run(fmt.Sprintf("Find/%d", n), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, i := range order {
					if t.Find(ks[i]) != int32(i) {
						b.Fatal("not found")
					}
				}
			}
		})
		b.Run(fmt.Sprintf("map/%d", n), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, i := range order {
					if m[string(ks[i])] != int32(i) {
						b.Fatal("not found")
					}
				}
			}
		})
	}
}

// BenchmarkInts is BenchmarkBytes for integer keys shaped as callgrind's
// and igprof's: a parent or caller id in the high half, a child in the
// low.
func BenchmarkInts(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 17} {
		rng := rand.New(rand.NewPCG(2, 2))
		ks := make([]uint64, n)
		for i := range ks {
			ks[i] = uint64(i/8)<<32 | uint64(rng.IntN(n))
		}
		b.Run(fmt.Sprintf("Add/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var t Ints
				for _, k := range ks {
					t.Add(k)
				}
			}
		})
		var t Ints
		m := map[uint64]int32{}
		for _, k := range ks {
			id, _ := t.Add(k)
			m[k] = id
		}
		order := rng.Perm(n)
		b.Run(fmt.Sprintf("Find/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, i := range order {
					if t.Find(ks[i]) < 0 {
						b.Fatal("not found")
					}
				}
			}
		})
		b.Run(fmt.Sprintf("map/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, i := range order {
					if _, ok := m[ks[i]]; !ok {
						b.Fatal("not found")
					}
				}
			}
		})
	}
}
