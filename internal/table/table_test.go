package table

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// keys returns n distinct byte strings shaped to trip a table: the empty
// string, zero bytes, strings that are prefixes of others, and frame-like
// lines that share long prefixes.
func keys(n int) [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	var out [][]byte
	add := func(k []byte) {
		if !seen[string(k)] && len(out) < n {
			seen[string(k)] = true
			out = append(out, k)
		}
	}
	add([]byte{})
	add([]byte{0})
	add([]byte{0, 0})
	for len(out) < n {
		switch rng.IntN(3) {
		case 0:
			add(fmt.Appendf(nil, "%16x frame_%d (/usr/lib/libx.so)", rng.Uint64(), rng.IntN(n)))
		case 1:
			k := make([]byte, rng.IntN(12))
			for i := range k {
				k[i] = byte(rng.IntN(3)) // 0, 1, 2: many prefixes
			}
			add(k)
		default:
			add(fmt.Appendf(nil, "java;start_thread;JavaThread::run;f%d", len(out)))
		}
	}
	return out
}

// checkBytes adds ks (twice, interleaved) with hash h and checks the ids
// against a map.
func checkBytes(t *testing.T, ks [][]byte, h func([]byte) uint64) *Bytes {
	t.Helper()
	var tb Bytes
	want := map[string]int32{}
	for i, k := range ks {
		id, added := tb.AddHash(h(k), k)
		if !added || id != int32(i) {
			t.Fatalf("AddHash(%q) = %d, %v: want %d, true", k, id, added, i)
		}
		want[string(k)] = id
		if j := i / 2; i%2 == 1 {
			// An earlier key again, while the table grows.
			if id, added := tb.AddHash(h(ks[j]), ks[j]); added || id != int32(j) {
				t.Fatalf("AddHash(%q) again = %d, %v: want %d, false", ks[j], id, added, j)
			}
		}
	}
	if tb.Len() != len(ks) {
		t.Fatalf("Len = %d, want %d", tb.Len(), len(ks))
	}
	for k, id := range want {
		if got := tb.FindHash(h([]byte(k)), []byte(k)); got != id {
			t.Fatalf("FindHash(%q) = %d, want %d", k, got, id)
		}
		if got := string(tb.Key(id)); got != k {
			t.Fatalf("Key(%d) = %q, want %q", id, got, k)
		}
	}
	for _, k := range [][]byte{[]byte("absent"), {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, []byte("java;start_thread;JavaThread::run;")} {
		if want[string(k)] == 0 && tb.FindHash(h(k), k) != -1 {
			t.Fatalf("FindHash(%q) found a key never added", k)
		}
	}
	return &tb
}

func TestBytesManyKeys(t *testing.T) {
	ks := keys(200000) // grows from 1024 slots to 512Ki
	tb := checkBytes(t, ks, Hash)
	for _, k := range ks[:1000] {
		if tb.Find(k) != tb.FindHash(Hash(k), k) {
			t.Fatalf("Find and FindHash differ on %q", k)
		}
		if id, added := tb.Add(k); added || tb.Key(id) == nil {
			t.Fatalf("Add(%q) added a key already there", k)
		}
	}
}

// TestBytesBadHash: keys whose hashes collide are told apart by their
// bytes, whether the hashes are all equal, equal in the high half the
// slots keep, or equal only in the home slot.
func TestBytesBadHash(t *testing.T) {
	ks := keys(3000)
	for name, h := range map[string]func([]byte) uint64{
		"constant":       func([]byte) uint64 { return 42 << 32 },
		"zero":           func([]byte) uint64 { return 0 },
		"low half":       func(k []byte) uint64 { return xxhash.Sum64(k) & (1<<32 - 1) }, // one tag, one home
		"by length":      func(k []byte) uint64 { return uint64(len(k)) << 32 },
		"few homes":      func(k []byte) uint64 { return xxhash.Sum64(k) >> 11 }, // top 11 bits zero
		"7 tags, 1 home": func(k []byte) uint64 { return uint64(len(k)%7) << 32 },
	} {
		t.Run(name, func(t *testing.T) { checkBytes(t, ks, h) })
	}
}

// TestIndexNextReturnsCandidates: Next returns every id whose slot has
// the hash's high half, whatever the low half, and no other; Home the id
// in a hash's home slot, whatever its hash.
func TestIndexNextReturnsCandidates(t *testing.T) {
	var x Index
	const home5, home6 = 5 << 54, 6 << 54 // home slots 5 and 6 of 1024
	hs := []uint64{home5 | 1<<32 | 1, home5 | 1<<32 | 2, home5 | 2<<32 | 1, home5 | 1<<32 | 3, home6 | 1<<32 | 1}
	for id, h := range hs {
		i := x.Start(h)
		for id := int32(0); id >= 0; {
			id, i = x.Next(h, i)
		}
		x.Insert(h, i, int32(id))
	}
	h := uint64(home5 | 1<<32 | 99)
	var got []int32
	for id, i := x.Next(h, x.Start(h)); id >= 0; id, i = x.Next(h, i) {
		got = append(got, id)
	}
	if fmt.Sprint(got) != "[0 1 3]" {
		t.Errorf("candidates of %#x: %v, want [0 1 3]", h, got)
	}
	if id := x.Home(home5); id != 0 {
		t.Errorf("Home(home5) = %d, want 0", id)
	}
	if id := x.Home(home6); id != 1 { // taken by the second id of home 5
		t.Errorf("Home(home6) = %d, want 1", id)
	}
	var empty Index
	if empty.Home(home5) != -1 || empty.Len() != 0 || empty.Size() != 0 {
		t.Error("an empty Index is not empty")
	}
}

// TestIndexPut: Put inserts at the end of the probe, past every id
// already there, through growths, so a hash whose keys all collide
// keeps them all.
func TestIndexPut(t *testing.T) {
	var x Index
	const h = 3<<60 | 5<<32
	for id := range int32(2000) {
		x.Put(h, id)
		x.Put(xxhash.Sum64String(fmt.Sprint(id)), 100000+id) // others between them
	}
	var got []int32
	for id, i := x.Next(h, x.Start(h)); id >= 0; id, i = x.Next(h, i) {
		if id < 100000 {
			got = append(got, id)
		}
	}
	if len(got) != 2000 || got[0] != 0 || got[1999] != 1999 {
		t.Fatalf("%d ids of one hash found after 2000 Puts (first %v)", len(got), got[:min(5, len(got))])
	}
}

// TestGrowthCost: the bytes the Index, Bytes and Ints take grow by what
// GrowthCost said before each insertion, so a user holding its tables to
// a budget (stream's Aggregator) counts exactly.
func TestGrowthCost(t *testing.T) {
	var x Index
	grew := 0
	var inserted []uint64
	for id := range 100000 {
		h := xxhash.Sum64(binary.LittleEndian.AppendUint64(nil, uint64(id)))
		cost, before := x.GrowthCost(), x.Size()
		found, i := x.Next(h, x.Start(h))
		if found >= 0 {
			continue // same high half as an earlier hash: skip it
		}
		x.Insert(h, i, int32(id))
		inserted = append(inserted, h)
		if x.Size() != before && x.Size() != cost {
			t.Fatalf("insert %d: size %d → %d, growth cost %d", id, before, x.Size(), cost)
		}
		if x.Size() == before && cost != 0 {
			t.Fatalf("insert %d: size %d unchanged, growth cost %d", id, before, cost)
		}
		if x.Size() != before {
			grew++
		}
		if 4*x.Len() > 3*len(x.slots) {
			t.Fatalf("%d ids in %d slots", x.Len(), len(x.slots))
		}
	}
	if grew != 9 { // 1024 slots, then 2048, …, 256Ki
		t.Errorf("grew %d times for 100000 ids, want 9", grew)
	}
	for _, h := range inserted {
		if id, _ := x.Next(h, x.Start(h)); id < 0 {
			t.Fatalf("hash %#x lost", h)
		}
	}
}

func TestReset(t *testing.T) {
	ks := keys(5000)
	var tb Bytes
	var ti Ints
	for i, k := range ks {
		tb.Add(k)
		ti.Add(uint64(i) * 1000003)
	}
	bsize, isize := tb.Size(), ti.Size()
	tb.Reset()
	ti.Reset()
	if tb.Len() != 0 || ti.Len() != 0 || tb.Find(ks[1]) != -1 || ti.Find(1000003) != -1 {
		t.Fatal("Reset left keys")
	}
	if tb.Size() != bsize || ti.Size() != isize {
		t.Errorf("Reset dropped arrays: sizes %d, %d, were %d, %d", tb.Size(), ti.Size(), bsize, isize)
	}
	checkAgain := func() {
		for i, k := range ks[100:200] {
			if id, added := tb.Add(k); !added || id != int32(i) {
				t.Fatalf("after Reset, Add(%q) = %d, %v", k, id, added)
			}
			if id, added := ti.Add(uint64(i) + 7); !added || id != int32(i) {
				t.Fatalf("after Reset, Add(%d) = %d, %v", i+7, id, added)
			}
		}
	}
	checkAgain()
	if tb.Find(ks[0]) != -1 || tb.Find(ks[150]) != 50 || ti.Find(57) != 50 {
		t.Error("lookups after Reset and refill are wrong")
	}
}

func checkInts(t *testing.T, ks []uint64) {
	t.Helper()
	var ti Ints
	for i, k := range ks {
		if id, added := ti.Add(k); !added || id != int32(i) {
			t.Fatalf("Add(%#x) = %d, %v: want %d, true", k, id, added, i)
		}
	}
	for i, k := range ks {
		if id, added := ti.Add(k); added || id != int32(i) {
			t.Fatalf("Add(%#x) again = %d, %v: want %d, false", k, id, added, i)
		}
		if id := ti.Find(k); id != int32(i) {
			t.Fatalf("Find(%#x) = %d, want %d", k, id, i)
		}
	}
	if ti.Len() != len(ks) {
		t.Fatalf("Len = %d, want %d", ti.Len(), len(ks))
	}
}

func TestInts(t *testing.T) {
	t.Run("dense", func(t *testing.T) {
		var ks []uint64
		for k := range uint64(200000) {
			ks = append(ks, k)
		}
		checkInts(t, ks)
	})
	t.Run("pairs", func(t *testing.T) { // callgrind's and igprof's keys: a<<32 | b
		var ks []uint64
		for a := range uint64(300) {
			for b := range uint64(300) {
				ks = append(ks, a<<32|b)
			}
		}
		checkInts(t, ks)
	})
	t.Run("extremes", func(t *testing.T) {
		checkInts(t, []uint64{0, math.MaxUint64, 1 << 63, 1, math.MaxUint32, 1 << 32})
	})
	t.Run("random", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		seen := map[uint64]bool{}
		var ks []uint64
		for len(ks) < 100000 {
			if k := rng.Uint64(); !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
		checkInts(t, ks)
		var ti Ints
		for _, k := range ks[:50000] {
			ti.Add(k)
		}
		for _, k := range ks[50000:] {
			if ti.Find(k) != -1 {
				t.Fatalf("Find(%#x) found a key never added", k)
			}
		}
	})
	t.Run("one home", func(t *testing.T) {
		// Keys whose hashes share a home slot in every table up to
		// 64Ki slots: each probe walks the others.
		var ks []uint64
		for k := uint64(0); len(ks) < 300; k++ {
			if HashInt(k)>>48 == 5 {
				ks = append(ks, k)
			}
		}
		checkInts(t, ks)
	})
}

// TestHashIntSpreads: keys of the shapes tables are given (dense, pairs
// of ids, ids shifted high, with a few bits set, random) spread over a
// table's home slots about as random hashes would: 4096 keys over 8192
// slots take about 3200 homes (1-e^-½ of the slots); a hash that left
// some key bits out of the home (a bare multiply misses high bits) takes
// a few hundred.
func TestHashIntSpreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	families := map[string]func(i uint64) uint64{
		"dense":         func(i uint64) uint64 { return i },
		"pairs":         func(i uint64) uint64 { return (i/64)<<32 | i%64 },
		"pairs swapped": func(i uint64) uint64 { return (i%64)<<32 | i/64 },
		"shifted 40":    func(i uint64) uint64 { return i << 40 },
		"shifted 52":    func(i uint64) uint64 { return i << 52 },
		"strided":       func(i uint64) uint64 { return i * 8192 },
		"random":        func(uint64) uint64 { return rng.Uint64() },
	}
	for name, key := range families {
		homes := map[int]bool{}
		for i := range uint64(4096) {
			homes[int(HashInt(key(i))>>shift(8192))] = true
		}
		if len(homes) < 2900 {
			t.Errorf("%s: 4096 keys take %d of 8192 home slots, want about 3200", name, len(homes))
		}
	}
}
