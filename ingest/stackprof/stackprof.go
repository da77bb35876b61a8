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

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"

	"github.com/pfold/pfold/fold"
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
	var p *dump
	var err error
	if bytes.HasPrefix(data, marshal.Magic) {
		p, err = decodeStackprofMarshal(data)
	} else {
		p, err = decodeStackprofJSON(data)
	}
	if err != nil {
		return Stats{}, err
	}
	return p.fold(emit)
}

// Read reads all of r and folds it with Fold. A dump
// is one Ruby value, so it is read whole.
func Read(r io.Reader, emit format.EmitFunc) (Stats, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Stats{}, err
	}
	return Fold(data, emit)
}

// dump is what folding needs of a dump.
type dump struct {
	stats Stats
	names map[int64][]byte
	raw   []int64
}

func (p *dump) fold(emit format.EmitFunc) (Stats, error) {
	raw := p.raw
	var stack []byte
	for i := 0; i < len(raw); {
		n := raw[i]
		if n < 0 || n > int64(len(raw)-i-2) {
			return p.stats, fmt.Errorf("stackprof raw[%d]: sample of %d frames overruns the %d elements left", i, n, len(raw)-i-1)
		}
		ids := raw[i+1 : i+1+int(n)]
		w := raw[i+1+int(n)]
		if w < 0 {
			return p.stats, fmt.Errorf("stackprof raw[%d]: negative sample count %d", i+1+int(n), w)
		}
		p.stats.Samples++
		stack = stack[:0]
		for j, id := range ids {
			name, ok := p.names[id]
			if !ok {
				return p.stats, fmt.Errorf("stackprof raw[%d]: frame id %d is not in frames", i+1+j, id)
			}
			if j > 0 {
				stack = append(stack, fold.Sep)
			}
			stack = append(stack, name...)
		}
		i += int(n) + 2
		if n == 0 {
			p.stats.Empty++
			continue
		}
		if err := emit(stack, fold.Int(uint64(w))); err != nil {
			return p.stats, err
		}
	}
	return p.stats, nil
}

// frameName makes a frame name safe for a folded line: ';' separates
// frames and a newline ends the line, so they become ':' and ' ' (as
// the perf script parser does for ';'), and an empty name, which would
// make an empty frame, becomes "[unknown]".
func frameName(s string) []byte {
	if s == "" {
		return []byte("[unknown]")
	}
	b := []byte(s)
	for i, c := range b {
		switch c {
		case fold.Sep:
			b[i] = ':'
		case '\n', '\r':
			b[i] = ' '
		}
	}
	return b
}

func decodeStackprofMarshal(data []byte) (*dump, error) {
	v, n, err := marshal.UnmarshalPrefix(data)
	if err != nil {
		return nil, fmt.Errorf("stackprof dump: %w", err)
	}
	// stackprof --dump ends the Marshal data with a newline; anything
	// else after it is a second value, or garbage.
	if rest := bytes.TrimRight(data[n:], "\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("stackprof dump: at byte %d: %d bytes after the dump", n, len(data)-n)
	}
	top, ok := v.(*marshal.Hash)
	if !ok {
		return nil, fmt.Errorf("stackprof dump: top value is %s, not a Hash", rubyType(v))
	}
	p := &dump{stats: Stats{Encoding: "marshal"}}
	if m, ok := top.Get(marshal.Symbol("mode")); ok {
		switch m := m.(type) {
		case marshal.Symbol:
			p.stats.Mode = string(m)
		case string:
			p.stats.Mode = m
		}
	}
	fv, ok := top.Get(marshal.Symbol("frames"))
	frames, isHash := fv.(*marshal.Hash)
	if !ok || !isHash {
		return nil, errors.New("stackprof dump: no :frames Hash (is this a StackProf result?)")
	}
	p.names = make(map[int64][]byte, frames.Len())
	for i, k := range frames.Keys {
		id, err := marshalInt(k)
		if err != nil {
			return nil, fmt.Errorf("stackprof dump: frame id: %w", err)
		}
		info, ok := frames.Values[i].(*marshal.Hash)
		if !ok {
			return nil, fmt.Errorf("stackprof dump: frame %d is %s, not a Hash", id, rubyType(frames.Values[i]))
		}
		name, _ := info.Get(marshal.Symbol("name"))
		s, ok := name.(string)
		if !ok {
			return nil, fmt.Errorf("stackprof dump: frame %d has no :name String", id)
		}
		p.names[id] = frameName(s)
	}
	p.stats.Frames = len(p.names)
	rv, ok := top.Get(marshal.Symbol("raw"))
	if !ok || rv == nil {
		return nil, ErrNoRaw
	}
	switch raw := rv.(type) {
	case []int64:
		p.raw = raw
	case []any:
		p.raw = make([]int64, len(raw))
		for i, x := range raw {
			if p.raw[i], err = marshalInt(x); err != nil {
				return nil, fmt.Errorf("stackprof dump: raw[%d]: %w", i, err)
			}
		}
	default:
		return nil, fmt.Errorf("stackprof dump: :raw is %s, not an Array", rubyType(rv))
	}
	return p, nil
}

func marshalInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case *big.Int:
		return 0, fmt.Errorf("integer %s does not fit in 64 bits", x)
	}
	return 0, fmt.Errorf("%s where an Integer was expected", rubyType(v))
}

func rubyType(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case bool:
		return "a boolean"
	case int64, *big.Int:
		return "an Integer"
	case float64:
		return "a Float"
	case string:
		return "a String"
	case marshal.Symbol:
		return "a Symbol"
	case []int64, []any:
		return "an Array"
	case *marshal.Hash:
		return "a Hash"
	}
	return fmt.Sprintf("a %T", v)
}

// stackprofJSON is the part of a JSON dump folding reads. Ids and counts
// are decoded straight into int64 (encoding/json parses the literal
// with strconv.ParseInt), so no id passes through a float64.
type stackprofJSON struct {
	Mode   string `json:"mode"`
	Frames map[string]struct {
		Name *string `json:"name"`
	} `json:"frames"`
	Raw *[]int64 `json:"raw"`
}

func decodeStackprofJSON(data []byte) (*dump, error) {
	var doc stackprofJSON
	if err := json.Unmarshal(data, &doc); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("stackprof JSON: at byte %d: %w", se.Offset, err)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("stackprof JSON: at byte %d: %s is a JSON %s, not an integer id or count", te.Offset, te.Field, te.Value)
		}
		return nil, fmt.Errorf("stackprof JSON: %w", err)
	}
	if doc.Frames == nil {
		return nil, errors.New("stackprof JSON: no \"frames\" object (is this a StackProf result?)")
	}
	p := &dump{stats: Stats{Encoding: "json", Mode: doc.Mode}}
	p.names = make(map[int64][]byte, len(doc.Frames))
	for k, f := range doc.Frames {
		id, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("stackprof JSON: frame id %q is not an integer", k)
		}
		if f.Name == nil {
			return nil, fmt.Errorf("stackprof JSON: frame %s has no name", k)
		}
		p.names[id] = frameName(*f.Name)
	}
	p.stats.Frames = len(p.names)
	if doc.Raw == nil {
		return nil, ErrNoRaw
	}
	p.raw = *doc.Raw
	return p, nil
}
