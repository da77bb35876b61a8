package callgrind

import (
	"bytes"
	"encoding/binary"
	"slices"
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
	var b [8]byte
	if off < len(s) {
		copy(b[:preBytes], s[off:])
	}
	b[preBytes] = byte(min(len(s)-off, preBytes+1))
	return binary.BigEndian.Uint64(b[:])
}

// sortNames sorts keys, whose pre holds their names' first bytes, by
// file and name; name returns the name of an id, tmp is scratch of
// keys' length, and files bounds the file ranks.
func sortNames(keys, tmp []nameKey, files int, name func(id int32) []byte) {
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
	if off >= 8*preBytes {
		// Long shared beginnings: compare what is left.
		slices.SortFunc(keys, func(a, b nameKey) int { return bytes.Compare(name(a.id)[off:], name(b.id)[off:]) })
		return
	}
	for i := range keys {
		keys[i].pre = namePrefix(name(keys[i].id), off)
	}
	if len(keys) < 256 {
		slices.SortFunc(keys, func(a, b nameKey) int {
			switch {
			case a.pre < b.pre:
				return -1
			case a.pre > b.pre:
				return 1
			}
			return 0
		})
	} else {
		radixSort(keys, tmp[:len(keys)])
	}
	refine(keys, tmp, off, name)
}

// radixSort sorts keys by pre, a byte at a time from the lowest,
// skipping the bytes all keys share; tmp is scratch of keys' length.
func radixSort(keys, tmp []nameKey) {
	if len(keys) < 2 {
		return
	}
	var count [8][256]int
	for _, k := range keys {
		for b := range 8 {
			count[b][byte(k.pre>>(8*b))]++
		}
	}
	src, dst := keys, tmp
	for b := range 8 {
		c := &count[b]
		if c[byte(src[0].pre>>(8*b))] == len(src) {
			continue
		}
		sum := 0
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		shift := 8 * b
		for _, k := range src {
			d := byte(k.pre >> shift)
			dst[c[d]] = k
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// byRank groups ids by their rank, given by rankOf, below n, keeping
// their order within a rank. It returns them in dst (of ids' length) and
// where each rank's group starts (start[r] to start[r+1]).
func byRank(dst, ids []int32, n int, rankOf func(id int32) int32) (start []int32) {
	start = make([]int32, n+1)
	for _, id := range ids {
		start[rankOf(id)+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	next := slices.Clone(start[:n])
	for _, id := range ids {
		r := rankOf(id)
		dst[next[r]] = id
		next[r]++
	}
	return start
}
