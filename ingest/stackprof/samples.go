package stackprof

import (
	"encoding/binary"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/internal/table"
)

// folder is what both readers fold into: the frame table (a name for
// each frame id) and the raw samples, taken as a stream of integers
//
//	N, id_1, …, id_N, COUNT, N, …
//
// as the reader meets them. Each sample is emitted when its count is
// read. When the raw samples come before the frames (stackprof writes
// the frames first, but a Hash keeps whatever order it was built in),
// they are held (hold), compactly, and folded (replay) once the frames
// are known.
type folder struct {
	emit  format.EmitFunc
	stats Stats

	// The frame table: ids maps a frame id to its index in names.
	ids   table.Ints
	names []nameRef
	arena []byte // the names, one after another

	// The sample being read.
	st    int   // what the next integer is: stN, stID or stCount
	left  int64 // ids of the sample still to come
	depth int   // ids of the sample read
	start int64 // raw index of the sample's N
	i     int64 // raw index of the next integer
	// The stack so far, and the previous sample's: prev[j] is the id of
	// frame j and ends[j] where its name ends in stack, so that a sample
	// sharing a prefix with the one before reuses it without looking its
	// ids up again.
	stack  []byte
	prev   []int64
	ends   []int
	nPrev  int  // frames of the previous sample still valid in prev
	shared bool // the sample so far is prev's prefix

	// Samples held until the frames are read: N and COUNT as uvarints,
	// each id as the uvarint of its index in heldIDs (ids in order of
	// first appearance, found by heldIdx): about a byte an element.
	held    []byte
	heldIDs []int64
	heldIdx table.Ints
	holding bool
	batch   []int64
}

const (
	stN = iota
	stID
	stCount
)

// nameRef locates a name in an arena.
type nameRef struct{ off, n int }

func (f *folder) reset(emit format.EmitFunc, enc string) {
	f.emit = emit
	f.stats = Stats{Encoding: enc}
	f.ids.Reset()
	f.names = f.names[:0]
	f.arena = f.arena[:0]
	f.st, f.left, f.depth, f.start, f.i = stN, 0, 0, 0, 0
	f.stack = f.stack[:0]
	f.nPrev, f.shared = 0, false
	f.held, f.heldIDs = f.held[:0], f.heldIDs[:0]
	f.heldIdx.Reset()
	f.holding = false
}

// setName gives frame id its name; a later call for the same id
// replaces it.
func (f *folder) setName(id int64, name []byte) {
	i, added := f.ids.Add(uint64(id))
	if added {
		f.names = append(f.names, nameRef{})
	}
	r := &f.names[i]
	r.off = len(f.arena)
	f.arena = appendFrameName(f.arena, name)
	r.n = len(f.arena) - r.off
}

// appendFrameName appends s made safe for a folded line: ';' separates
// frames and a newline ends the line, so they become ':' and ' ' (as
// the perf script parser does for ';'), and an empty name, which would
// make an empty frame, becomes "[unknown]".
func appendFrameName(b, s []byte) []byte {
	if len(s) == 0 {
		return append(b, "[unknown]"...)
	}
	n := len(b)
	b = append(b, s...)
	for i, c := range b[n:] {
		switch c {
		case fold.Sep:
			b[n+i] = ':'
		case '\n', '\r':
			b[n+i] = ' '
		}
	}
	return b
}

// rawError is a fault in the raw samples: the index of the integer
// and what is wrong.
type rawError struct {
	i   int64
	msg string
}

func (e *rawError) Error() string { return fmt.Sprintf("raw[%d]: %s", e.i, e.msg) }

// push folds the next integers of the raw samples (or holds them).
func (f *folder) push(vals []int64) error {
	if f.holding {
		return f.hold(vals)
	}
	for k := 0; k < len(vals); k++ {
		v := vals[k]
		switch f.st {
		case stN:
			if v < 0 {
				return &rawError{f.i, fmt.Sprintf("sample of %d frames", v)}
			}
			f.start, f.left, f.depth = f.i, v, 0
			f.shared = true
			f.st = stID
			if v == 0 {
				f.st = stCount
			}
			f.i++
		case stID:
			// The ids of the sample, in a loop of their own.
			for ; k < len(vals) && f.left > 0; k++ {
				if id, j := vals[k], f.depth; f.shared && j < f.nPrev && f.prev[j] == id {
					f.depth++ // as in the sample before
				} else if err := f.frame(id); err != nil {
					return err
				}
				f.left--
				f.i++
			}
			k--
			if f.left == 0 {
				f.st = stCount
			}
		case stCount:
			if v < 0 {
				return &rawError{f.i, fmt.Sprintf("negative sample count %d", v)}
			}
			f.i++
			f.st = stN
			if err := f.sample(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// frame adds frame id to the sample's stack.
func (f *folder) frame(id int64) error {
	j := f.depth
	if f.shared {
		if j < f.nPrev && f.prev[j] == id {
			f.depth++
			return nil
		}
		f.shared = false
		if j == 0 {
			f.stack = f.stack[:0]
		} else {
			f.stack = f.stack[:f.ends[j-1]]
		}
	}
	x := f.ids.Find(uint64(id))
	if x < 0 {
		return &rawError{f.i, fmt.Sprintf("frame id %d is not in frames", id)}
	}
	if j > 0 {
		f.stack = append(f.stack, fold.Sep)
	}
	r := f.names[x]
	f.stack = append(f.stack, f.arena[r.off:r.off+r.n]...)
	if j < len(f.prev) {
		f.prev[j] = id
		f.ends[j] = len(f.stack)
	} else {
		f.prev = append(f.prev, id)
		f.ends = append(f.ends, len(f.stack))
	}
	f.depth++
	return nil
}

// sample ends the sample with its count.
func (f *folder) sample(w int64) error {
	f.stats.Samples++
	n := f.depth
	if f.shared {
		if n == 0 {
			f.stack = f.stack[:0]
		} else {
			f.stack = f.stack[:f.ends[n-1]]
		}
	}
	f.nPrev = n
	if n == 0 {
		f.stats.Empty++
		return nil
	}
	return f.emit(f.stack, fold.Int(uint64(w)))
}

// end checks that the raw samples did not stop inside a sample.
func (f *folder) end() error {
	if f.holding || f.st == stN {
		return nil
	}
	left := f.left
	if f.st == stCount {
		left = 0
	}
	return &rawError{f.start, fmt.Sprintf("sample of %d frames overruns the end of raw (%d elements short)", f.depth+int(left), left+1)}
}

// hold keeps the next integers of the raw samples until the frames are
// known, checking what can be checked without them.
func (f *folder) hold(vals []int64) error {
	for _, v := range vals {
		switch f.st {
		case stN:
			if v < 0 {
				return &rawError{f.i, fmt.Sprintf("sample of %d frames", v)}
			}
			f.start, f.left = f.i, v
			f.st = stID
			if v == 0 {
				f.st = stCount
			}
			f.held = binary.AppendUvarint(f.held, uint64(v))
		case stID:
			x, added := f.heldIdx.Add(uint64(v))
			if added {
				f.heldIDs = append(f.heldIDs, v)
			}
			f.held = binary.AppendUvarint(f.held, uint64(x))
			if f.left--; f.left == 0 {
				f.st = stCount
			}
		case stCount:
			if v < 0 {
				return &rawError{f.i, fmt.Sprintf("negative sample count %d", v)}
			}
			f.held = binary.AppendUvarint(f.held, uint64(v))
			f.st = stN
		}
		f.i++
	}
	return nil
}

// replay folds the held samples, the frames being known.
func (f *folder) replay() error {
	f.holding = false
	f.st, f.left, f.start, f.i = stN, 0, 0, 0
	held := f.held
	if cap(f.batch) == 0 {
		f.batch = make([]int64, 0, 1024)
	}
	hst, hleft := stN, uint64(0)
	for len(held) > 0 {
		b := f.batch[:0]
		for len(held) > 0 && len(b) < cap(b) {
			v, n := binary.Uvarint(held)
			held = held[n:]
			switch hst {
			case stN:
				b = append(b, int64(v))
				hst, hleft = stID, v
				if v == 0 {
					hst = stCount
				}
			case stID:
				b = append(b, f.heldIDs[v])
				if hleft--; hleft == 0 {
					hst = stCount
				}
			case stCount:
				b = append(b, int64(v))
				hst = stN
			}
		}
		if err := f.push(b); err != nil {
			return err
		}
	}
	f.held, f.heldIDs = f.held[:0], f.heldIDs[:0]
	f.heldIdx.Reset()
	return f.end() // a sample cut short is where replaying left it
}
