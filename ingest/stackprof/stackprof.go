package stackprof

// Ruby stackprof dumps.
//
// StackProf.run returns a Hash that programs save with Marshal.dump (the
// .dump files stackprof's CLI reads) or JSON.generate. Its :frames maps a
// frame id (an object id: an Integer, often beyond 2^32) to a Hash with
// the frame's :name, and its :raw array, present only when profiled with
// raw: true, holds the samples as a flat sequence
//
//	N, id_1, …, id_N, COUNT
//
// with id_1 the outermost frame. The folded stack of a sample is the
// names of its ids joined by ';', which is what `stackprof
// --stackcollapse` prints.
//
// Both encodings are read as a stream (marshaldump.go, jsondump.go):
// what is held is the frame table and the sample being read, whatever
// the length of the dump. stackprof writes :frames before :raw; a dump
// whose raw samples come first has them held until the frames are read
// (folder.hold), as varints.

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/stackprof/marshal"
)

// ErrNoRaw is returned for a dump that has no raw samples.
var ErrNoRaw = errors.New("stackprof dump has no raw samples: it was profiled without raw: true " +
	"(use StackProf.run(raw: true, …)); only raw samples give whole stacks")

// Stats describes a folded dump.
type Stats struct {
	Encoding string // "marshal" or "json"
	Mode     string // cpu, wall, object or custom
	Frames   int    // frames in the frame table
	Samples  int    // raw sample records
	Empty    int    // records with no frames, skipped
}

// Fold folds a stackprof dump, Marshal or JSON (told apart by
// the Marshal magic bytes), passing each raw sample to emit in the order
// of the dump.
func Fold(data []byte, emit format.EmitFunc) (Stats, error) {
	return Read(bytes.NewReader(data), emit)
}

// Read folds the dump r yields, as Fold, reading it as a stream.
func Read(r io.Reader, emit format.EmitFunc) (Stats, error) {
	var rd reader
	return rd.read(r, emit)
}

// reader reads dumps one after another, keeping its buffers.
type reader struct {
	f folder
	m mreader
	j jreader
}

func (rd *reader) read(r io.Reader, emit format.EmitFunc) (Stats, error) {
	var head [2]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return Stats{}, err
	}
	r = io.MultiReader(bytes.NewReader(head[:n]), r)
	if n == 2 && bytes.Equal(head[:], marshal.Magic) {
		rd.f.reset(emit, "marshal")
		rd.m.reset(r, &rd.f)
		if err := rd.m.read(); err != nil {
			if errors.Is(err, ErrNoRaw) {
				return rd.f.stats, err
			}
			return rd.f.stats, fmt.Errorf("stackprof dump: %w", err)
		}
		return rd.f.stats, nil
	}
	rd.f.reset(emit, "json")
	rd.j.reset(r, &rd.f)
	if err := rd.j.read(); err != nil {
		if errors.Is(err, ErrNoRaw) {
			return rd.f.stats, err
		}
		return rd.f.stats, fmt.Errorf("stackprof JSON: %w", err)
	}
	return rd.f.stats, nil
}
