package stackprof

// The reader as it was before it read as a stream: the whole dump in
// memory, decoded into Go values (marshal.UnmarshalPrefix, or
// encoding/json's Unmarshal into a struct), then folded. FuzzOracle*
// fold every input with it and with Fold, and compare. Generated from
// the old stackprof.go by renaming its top-level names with the prefix
// "ref" (ErrNoRaw and Stats are the package's).

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

// refFold folds a stackprof dump, Marshal or JSON (told apart by
// the Marshal magic bytes), passing each raw sample to emit in the order
// of the dump.
func refFold(data []byte, emit format.EmitFunc) (Stats, error) {
	var p *refDump
	var err error
	if bytes.HasPrefix(data, marshal.Magic) {
		p, err = refDecodeMarshal(data)
	} else {
		p, err = refDecodeJSON(data)
	}
	if err != nil {
		return Stats{}, err
	}
	return p.fold(emit)
}

// refRead reads all of r and folds it with refFold. A dump
// is one Ruby value, so it is read whole.
func refRead(r io.Reader, emit format.EmitFunc) (Stats, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Stats{}, err
	}
	return refFold(data, emit)
}

// refDump is what folding needs of a dump.
type refDump struct {
	stats Stats
	names map[int64][]byte
	raw   []int64
}

func (p *refDump) fold(emit format.EmitFunc) (Stats, error) {
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

// refFrameName makes a frame name safe for a folded line: ';' separates
// frames and a newline ends the line, so they become ':' and ' ' (as
// the perf script parser does for ';'), and an empty name, which would
// make an empty frame, becomes "[unknown]".
func refFrameName(s string) []byte {
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

func refDecodeMarshal(data []byte) (*refDump, error) {
	v, n, err := marshal.UnmarshalPrefix(data)
	if err != nil {
		return nil, fmt.Errorf("stackprof dump: %w", err)
	}
	// stackprof --refDump ends the Marshal data with a newline; anything
	// else after it is a second value, or garbage.
	if rest := bytes.TrimRight(data[n:], "\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("stackprof dump: at byte %d: %d bytes after the dump", n, len(data)-n)
	}
	top, ok := v.(*marshal.Hash)
	if !ok {
		return nil, fmt.Errorf("stackprof dump: top value is %s, not a Hash", refRubyType(v))
	}
	p := &refDump{stats: Stats{Encoding: "marshal"}}
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
		id, err := refMarshalInt(k)
		if err != nil {
			return nil, fmt.Errorf("stackprof dump: frame id: %w", err)
		}
		info, ok := frames.Values[i].(*marshal.Hash)
		if !ok {
			return nil, fmt.Errorf("stackprof dump: frame %d is %s, not a Hash", id, refRubyType(frames.Values[i]))
		}
		name, _ := info.Get(marshal.Symbol("name"))
		s, ok := name.(string)
		if !ok {
			return nil, fmt.Errorf("stackprof dump: frame %d has no :name String", id)
		}
		p.names[id] = refFrameName(s)
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
			if p.raw[i], err = refMarshalInt(x); err != nil {
				return nil, fmt.Errorf("stackprof dump: raw[%d]: %w", i, err)
			}
		}
	default:
		return nil, fmt.Errorf("stackprof dump: :raw is %s, not an Array", refRubyType(rv))
	}
	return p, nil
}

func refMarshalInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case *big.Int:
		return 0, fmt.Errorf("integer %s does not fit in 64 bits", x)
	}
	return 0, fmt.Errorf("%s where an Integer was expected", refRubyType(v))
}

func refRubyType(v any) string {
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

// refStackprofJSON is the part of a JSON refDump folding reads. Ids and counts
// are decoded straight into int64 (encoding/json parses the literal
// with strconv.ParseInt), so no id passes through a float64.
type refStackprofJSON struct {
	Mode   string `json:"mode"`
	Frames map[string]struct {
		Name *string `json:"name"`
	} `json:"frames"`
	Raw *[]int64 `json:"raw"`
}

func refDecodeJSON(data []byte) (*refDump, error) {
	var doc refStackprofJSON
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
	p := &refDump{stats: Stats{Encoding: "json", Mode: doc.Mode}}
	p.names = make(map[int64][]byte, len(doc.Frames))
	for k, f := range doc.Frames {
		id, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("stackprof JSON: frame id %q is not an integer", k)
		}
		if f.Name == nil {
			return nil, fmt.Errorf("stackprof JSON: frame %s has no name", k)
		}
		p.names[id] = refFrameName(*f.Name)
	}
	p.stats.Frames = len(p.names)
	if doc.Raw == nil {
		return nil, ErrNoRaw
	}
	p.raw = *doc.Raw
	return p, nil
}
