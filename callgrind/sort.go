package callgrind

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/pfold/pfold/stream"
)

// The sorts of WriteTo. Functions are sorted by their names a few bytes
// at a time, as integers: a radix sort of every function's first bytes,
// then, where several functions share them, of their next bytes, and so
// on. Frames and calls are then sorted by the ranks of their functions,
// integers below the number of functions, by counting.

// nameKey is a function being sorted by its file's rank and its name.
type nameKey struct {
	// pre holds 7 bytes of the name from the offset being sorted on,
	// then how many bytes are left there, 8 for more than 7: a name that
	// ends there sorts before the longer names it begins.
	pre  uint64
	id   int32
	file int32
}

const preBytes = 7

// namePrefix returns the pre of name s at offset off.
func namePrefix(s []byte, off int) uint64 {
	s = s[off:]
	if len(s) >= 8 {
		return binary.BigEndian.Uint64(s)&^0xFF | (preBytes + 1)
	}
	var v uint64
	for i, c := range s[:min(len(s), preBytes)] {
		v |= uint64(c) << (56 - 8*i)
	}
	return v | uint64(min(len(s), preBytes+1))
}

// sortNames sorts keys, whose pre holds their names' first bytes, by
// file and name; name returns the name of an id, tmp is scratch of
// keys' length, and files bounds the file ranks. A large sort is cut in
// two at a pivot, and the halves sorted on two goroutines.
func sortNames(keys, tmp []nameKey, files int, name func(id int32) []byte) {
	if len(keys) < 1<<16 {
		sortPart(keys, tmp, files, name)
		return
	}
	// The pivot is the median of a sample; keys that tie with it on
	// (file, pre) go after it with it, so no run of equal ones is cut.
	var sample [255]nameKey
	for i := range sample {
		sample[i] = keys[i*len(keys)/len(sample)]
	}
	less := func(a, b nameKey) bool { return a.file < b.file || a.file == b.file && a.pre < b.pre }
	slices.SortFunc(sample[:], func(a, b nameKey) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	pivot := sample[len(sample)/2]
	lo, hi := 0, len(keys)
	for _, k := range keys {
		if less(k, pivot) {
			tmp[lo] = k
			lo++
		} else {
			hi--
			tmp[hi] = k
		}
	}
	copy(keys, tmp)
	done := make(chan struct{})
	go func() {
		sortPart(keys[:lo], tmp[:lo], files, name)
		close(done)
	}()
	sortPart(keys[lo:], tmp[lo:], files, name)
	<-done
}

// sortPart is sortNames on one goroutine.
func sortPart(keys, tmp []nameKey, files int, name func(id int32) []byte) {
	radixSort(keys, tmp)
	if files > 1 {
		// Stable, so within a file the names stay sorted.
		count := make([]int, files+1)
		for _, k := range keys {
			count[k.file+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, k := range keys {
			tmp[count[k.file]] = k
			count[k.file]++
		}
		copy(keys, tmp)
	}
	refine(keys, tmp, 0, name)
}

// refine sorts the runs of keys, sorted on the bytes of their names
// before off+preBytes, whose names go on past there.
func refine(keys, tmp []nameKey, off int, name func(id int32) []byte) {
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].pre == keys[i].pre && keys[j].file == keys[i].file {
			j++
		}
		if j-i > 1 && byte(keys[i].pre) > preBytes {
			sortRun(keys[i:j], tmp, off+preBytes, name)
		}
		i = j
	}
}

// sortRun sorts keys, which agree on their names' bytes before off, on
// the rest of their names.
func sortRun(keys, tmp []nameKey, off int, name func(id int32) []byte) {
	// Names often share long beginnings (C++ and Java names, numbered
	// variants): skip the bytes all of them share at once, instead of
	// sorting on them 7 by 7.
	first := name(keys[0].id)
	lcp := len(first)
	for _, k := range keys[1:] {
		if lcp = off + stream.CommonPrefix(first[off:lcp], name(k.id)[off:]); lcp == off {
			break
		}
	}
	off = lcp
	for i := range keys {
		keys[i].pre = namePrefix(name(keys[i].id), off)
	}
	radixSort(keys, tmp[:len(keys)])
	refine(keys, tmp, off, name)
}

// radixSort sorts keys by pre, a byte at a time from the highest: keys
// are spread by the byte into 256 runs, and each run with more than a
// few keys sorted the same way on the next byte; tmp is scratch of
// keys' length. The keys go back and forth between keys and tmp, a level
// each way, and end in keys.
func radixSort(keys, tmp []nameKey) { radixSortInto(keys, tmp, keys, 56) }

// radixSortInto sorts src by the bytes of pre from shift down, leaving
// the keys sorted in dst, which is src or other; other is scratch.
func radixSortInto(src, other, dst []nameKey, shift uint) {
	if len(src) <= 32 {
		if &dst[0] != &src[0] {
			copy(dst, src)
		}
		insertionSort(dst)
		return
	}
	// Go straight to the highest byte where some keys differ.
	var diff uint64
	for _, k := range src {
		diff |= k.pre ^ src[0].pre
	}
	if diff &= ^uint64(0) >> (56 - shift); diff == 0 {
		if &dst[0] != &src[0] {
			copy(dst, src)
		}
		return
	}
	shift = uint(63-bits.LeadingZeros64(diff)) &^ 7
	var start [257]int
	lo, hi := 255, 0 // the bytes there, at least
	for _, k := range src {
		d := int(byte(k.pre >> shift))
		start[d+1]++
		lo, hi = min(lo, d), max(hi, d)
	}
	for i := lo + 1; i <= hi+1; i++ {
		start[i] += start[i-1]
	}
	next := start
	for _, k := range src {
		d := byte(k.pre >> shift)
		other[next[d]] = k
		next[d]++
	}
	// The runs are in other now; each is sorted into dst.
	for d := lo; d <= hi; d++ {
		i, j := start[d], start[d+1]
		switch {
		case j-i == 1:
			dst[i] = other[i]
		case j-i > 1 && shift > 0:
			radixSortInto(other[i:j], src[i:j], dst[i:j], shift-8)
		case j-i > 1:
			copy(dst[i:j], other[i:j])
		}
	}
}

func insertionSort(keys []nameKey) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j].pre < keys[j-1].pre; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}
