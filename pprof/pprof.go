package pprof

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/pfold/pfold/fold"
)

// Options describe the profile's values.
type Options struct {
	// SampleType and SampleUnit name the values: "samples" and "count"
	// when empty.
	SampleType, SampleUnit string
	// PeriodType and PeriodUnit name the period; the sample type when
	// empty.
	PeriodType, PeriodUnit string
	// Period is the sampling period, in PeriodUnit: informational, pprof
	// does not multiply the values by it.
	Period int64
	// Scale multiplies every count before it is rounded to an integer;
	// 0 means 1.
	Scale float64
}

// ParseValueType splits "NAME/UNIT", the form of --sample-type, into its
// two parts. Both must be non-empty.
func ParseValueType(s string) (typ, unit string, err error) {
	typ, unit, ok := strings.Cut(s, "/")
	if !ok || typ == "" || unit == "" || strings.Contains(unit, "/") {
		return "", "", fmt.Errorf("%q is not NAME/UNIT (such as samples/count or cpu/nanoseconds)", s)
	}
	return typ, unit, nil
}

// A Builder accumulates folded stacks into a profile.
type Builder struct {
	p     *profile.Profile
	scale float64
	locs  map[string]*profile.Location

	// Samples take their locations and values from shared chunks: one
	// allocation per few thousand samples instead of three per sample.
	locChunk   []*profile.Location
	valueChunk []int64
	sampChunk  []profile.Sample
	frames     []*profile.Location // scratch, root first

	total   fold.Count // the folded total, before scaling
	written int64      // the sum of the written values
	rounded bool
}

const chunk = 4096

// New returns an empty Builder.
func New(opt Options) *Builder {
	st := &profile.ValueType{Type: opt.SampleType, Unit: opt.SampleUnit}
	if st.Type == "" {
		st.Type = "samples"
	}
	if st.Unit == "" {
		st.Unit = "count"
	}
	pt := &profile.ValueType{Type: opt.PeriodType, Unit: opt.PeriodUnit}
	if pt.Type == "" {
		pt.Type = st.Type
	}
	if pt.Unit == "" {
		pt.Unit = st.Unit
	}
	scale := opt.Scale
	if scale == 0 {
		scale = 1
	}
	return &Builder{
		p: &profile.Profile{
			SampleType:        []*profile.ValueType{st},
			DefaultSampleType: st.Type,
			PeriodType:        pt,
			Period:            opt.Period,
		},
		scale: scale,
		locs:  make(map[string]*profile.Location),
	}
}

// ErrRange is returned for a count, or a total, outside the int64 range
// of pprof sample values.
var ErrRange = errors.New("count out of the int64 range of pprof values")

// Add adds one sample: the frames of stack (root first, separated by ';')
// with count c.
func (b *Builder) Add(stack []byte, c fold.Count) error {
	v, err := b.value(c)
	if err != nil {
		return err
	}
	sum, carry := bits.Add64(uint64(b.written), uint64(v), 0)
	if carry != 0 || sum > math.MaxInt64 {
		return fmt.Errorf("total: %w", ErrRange)
	}
	total, err := b.total.Add(c)
	if err != nil {
		return err
	}
	b.written, b.total = int64(sum), total

	b.frames = b.frames[:0]
	fold.Frames(stack, func(f []byte) bool {
		b.frames = append(b.frames, b.location(f))
		return true
	})
	n := len(b.frames)
	if len(b.locChunk) < n {
		b.locChunk = make([]*profile.Location, max(chunk, n))
	}
	locs := b.locChunk[:n:n]
	b.locChunk = b.locChunk[n:]
	for i, l := range b.frames {
		locs[n-1-i] = l // leaf first
	}
	if len(b.valueChunk) == 0 {
		b.valueChunk = make([]int64, chunk)
	}
	vals := b.valueChunk[:1:1]
	b.valueChunk = b.valueChunk[1:]
	vals[0] = v
	if len(b.sampChunk) == 0 {
		b.sampChunk = make([]profile.Sample, chunk)
	}
	s := &b.sampChunk[0]
	b.sampChunk = b.sampChunk[1:]
	s.Location, s.Value = locs, vals
	b.p.Sample = append(b.p.Sample, s)
	return nil
}

// value converts a count to a sample value: scaled, and rounded when it
// is not a whole number.
func (b *Builder) value(c fold.Count) (int64, error) {
	c = c.Scale(b.scale)
	if !c.Float {
		if c.N > math.MaxInt64 {
			return 0, ErrRange
		}
		return int64(c.N), nil
	}
	v := math.Round(c.F)
	if !(v >= 0 && v < math.MaxInt64) { // also false for NaN
		return 0, ErrRange
	}
	if v != c.F {
		b.rounded = true
	}
	return int64(v), nil
}

// location returns the location of frame name f, adding it and its
// function the first time f is seen.
func (b *Builder) location(f []byte) *profile.Location {
	if l, ok := b.locs[string(f)]; ok {
		return l
	}
	name := string(f)
	fn := &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Line: []profile.Line{{Function: fn}}}
	b.p.Function = append(b.p.Function, fn)
	b.p.Location = append(b.p.Location, l)
	b.locs[name] = l
	return l
}

// Profile returns the profile built so far. It shares memory with the
// Builder.
func (b *Builder) Profile() *profile.Profile { return b.p }

// WriteTo writes the profile, gzipped, to w.
func (b *Builder) WriteTo(w io.Writer) (int64, error) {
	if err := b.p.CheckValid(); err != nil {
		return 0, err
	}
	cw := &countingWriter{w: w}
	err := b.p.Write(cw)
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Samples returns the number of samples (folded lines) added.
func (b *Builder) Samples() int { return len(b.p.Sample) }

// Functions returns the number of distinct frame names.
func (b *Builder) Functions() int { return len(b.p.Function) }

// Total returns the sum of the counts added, before scaling and rounding.
func (b *Builder) Total() fold.Count { return b.total }

// Written returns the sum of the sample values: Total scaled, and rounded
// sample by sample.
func (b *Builder) Written() int64 { return b.written }

// Rounded reports whether some value was rounded to an integer.
func (b *Builder) Rounded() bool { return b.rounded }
