package pprof

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/klauspost/compress/gzip"
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/table"
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

// A Builder encodes folded stacks as a profile.proto message, one sample
// per stack as it is added. profile.proto's repeated fields may come in
// any order, and go tool pprof's own encoder writes every sample before
// the locations, functions and strings: so the samples are encoded as
// they come (and, from NewWriter, compressed and written at once), and
// the Builder keeps only the distinct frame names, each numbered by its
// first appearance. Uncompressed, the bytes are those
// github.com/google/pprof/profile writes for the same profile; they are
// compressed by klauspost/compress's gzip, which takes a third of the
// time of the standard library's that pprof uses.
type Builder struct {
	typ, unit     string // the sample type
	ptTyp, ptUnit string // the period type
	period        int64
	scale         float64
	names         *table.Bytes

	buf  []byte // encoded and not yet written: the whole profile's samples for New
	body []byte // scratch: one sample
	ids  []uint64

	zw      *gzip.Writer // NewWriter's output, nil for New
	out     *countingWriter
	samples int

	total   fold.Count // the folded total, before scaling
	written int64      // the sum of the written values
	rounded bool
}

// flushSize is how much encoded profile NewWriter's Builder holds before
// compressing it.
const flushSize = 64 << 10

// New returns an empty Builder that holds the encoded samples (a few
// bytes per frame of each stack) until WriteTo.
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
	b := &Builder{typ: st.Type, unit: st.Unit, ptTyp: pt.Type, ptUnit: pt.Unit, period: opt.Period, scale: scale, names: new(table.Bytes)}
	// sample_type = 1: the strings "" (0), the type (1) and the unit.
	b.buf = appendTag(b.buf, 1, 2)
	b.buf = appendVarint(b.buf, uint64(varintLen(1)+1+varintLen(uint64(b.unitX()))+1))
	b.buf = appendTag(b.buf, 1, 0)
	b.buf = appendVarint(b.buf, 1)
	b.buf = appendTag(b.buf, 2, 0)
	b.buf = appendVarint(b.buf, uint64(b.unitX()))
	return b
}

// NewWriter returns an empty Builder that writes the profile, gzipped, to
// w as it is built: Close writes the rest. Nothing is written to w
// before the first sample's bytes are compressed, and only what is
// needed is held: the distinct frame names.
func NewWriter(w io.Writer, opt Options) *Builder {
	b := New(opt)
	b.out = &countingWriter{w: w}
	b.zw = gzip.NewWriter(b.out)
	return b
}

// unitX is the string index of the sample unit: 1 when it is the type.
func (b *Builder) unitX() int {
	if b.unit == b.typ {
		return 1
	}
	return 2
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

	b.ids = b.ids[:0]
	fold.Frames(stack, func(f []byte) bool {
		id, _ := b.names.Add(f)
		b.ids = append(b.ids, uint64(id)+1)
		return true
	})
	// Sample: location_id = 1, leaf first, packed when more than two
	// (as the pprof package writes them); value = 2.
	body := b.body[:0]
	if n := len(b.ids); n > 2 {
		size := 0
		for _, id := range b.ids {
			size += varintLen(id)
		}
		body = appendTag(body, 1, 2)
		body = appendVarint(body, uint64(size))
		for i := n - 1; i >= 0; i-- {
			body = appendVarint(body, b.ids[i])
		}
	} else {
		for i := n - 1; i >= 0; i-- {
			body = appendTag(body, 1, 0)
			body = appendVarint(body, b.ids[i])
		}
	}
	body = appendTag(body, 2, 0)
	body = appendVarint(body, uint64(v))
	b.body = body
	b.buf = appendTag(b.buf, 2, 2)
	b.buf = appendVarint(b.buf, uint64(len(body)))
	b.buf = append(b.buf, body...)
	b.samples++
	if b.zw != nil && len(b.buf) >= flushSize {
		_, err := b.zw.Write(b.buf)
		b.buf = b.buf[:0]
		return err
	}
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

// WriteTo writes the profile of a Builder made by New, gzipped, to w.
func (b *Builder) WriteTo(w io.Writer) (int64, error) {
	if b.zw != nil {
		return 0, errors.New("pprof: WriteTo on a Builder made by NewWriter: Close it")
	}
	cw := &countingWriter{w: w}
	zw := gzip.NewWriter(cw)
	_, err := zw.Write(b.buf)
	if err == nil {
		err = b.writeTail(zw, nil)
	}
	if e := zw.Close(); err == nil {
		err = e
	}
	return cw.n, err
}

// Close writes the rest of the profile of a Builder made by NewWriter: the
// locations, functions and strings.
func (b *Builder) Close() error {
	if b.zw == nil {
		return errors.New("pprof: Close on a Builder made by New: use WriteTo")
	}
	err := b.writeTail(b.zw, b.buf)
	b.buf = nil
	if e := b.zw.Close(); err == nil {
		err = e
	}
	return err
}

// Bytes returns the bytes of gzipped profile written so far (NewWriter).
func (b *Builder) Bytes() int64 {
	if b.out == nil {
		return 0
	}
	return b.out.n
}

// writeTail writes what follows the samples, after buf: a location and
// a function per frame name (ids from 1, in order of appearance), the
// string table, the period and the default sample type, each encoded as
// the pprof package encodes them.
func (b *Builder) writeTail(w io.Writer, buf []byte) error {
	flush := func() error {
		if len(buf) < flushSize {
			return nil
		}
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	n := b.names.Len()
	// The string table is "", the sample type and unit, then each new
	// string in the order the pprof package adds them: function names
	// (a function's system name is its name), then the period type.
	base := 1 + b.unitX()
	known := func(s []byte) int {
		switch string(s) {
		case "":
			return 0
		case b.typ:
			return 1
		case b.unit:
			return b.unitX()
		}
		return -1
	}
	var special []int // ids of the names among the known strings
	for _, s := range []string{"", b.typ, b.unit} {
		if id := int(b.names.Find([]byte(s))); id >= 0 && !slices.Contains(special, id) {
			special = append(special, id)
		}
	}
	slices.Sort(special)
	// nameX returns the string index of name id.
	nameX := func(id int) int {
		if k := known(b.names.Key(int32(id))); k >= 0 {
			return k
		}
		before := 0
		for _, s := range special {
			if s < id {
				before++
			}
		}
		return base + id - before
	}
	for id := 1; id <= n; id++ { // location = 4, with one line = 4
		line := 1 + varintLen(uint64(id))
		buf = appendTag(buf, 4, 2)
		buf = appendVarint(buf, uint64(1+varintLen(uint64(id))+1+varintLen(uint64(line))+line))
		buf = appendTag(buf, 1, 0)
		buf = appendVarint(buf, uint64(id))
		buf = appendTag(buf, 4, 2)
		buf = appendVarint(buf, uint64(line))
		buf = appendTag(buf, 1, 0)
		buf = appendVarint(buf, uint64(id))
		if err := flush(); err != nil {
			return err
		}
	}
	next := base                 // the next new string's index
	for id := 1; id <= n; id++ { // function = 5: id, name, system name
		x := known(b.names.Key(int32(id - 1)))
		if x < 0 {
			x = next
			next++
		}
		size := 1 + varintLen(uint64(id))
		if x != 0 {
			size += 2 * (1 + varintLen(uint64(x)))
		}
		buf = appendTag(buf, 5, 2)
		buf = appendVarint(buf, uint64(size))
		buf = appendTag(buf, 1, 0)
		buf = appendVarint(buf, uint64(id))
		if x != 0 {
			buf = appendTag(buf, 2, 0)
			buf = appendVarint(buf, uint64(x))
			buf = appendTag(buf, 3, 0)
			buf = appendVarint(buf, uint64(x))
		}
		if err := flush(); err != nil {
			return err
		}
	}
	// The period type's strings: known ones, frame names, or new.
	var extra []string
	stringX := func(s string) int {
		if k := known([]byte(s)); k >= 0 {
			return k
		}
		if id := int(b.names.Find([]byte(s))); id >= 0 {
			return nameX(id)
		}
		if i := slices.Index(extra, s); i >= 0 {
			return next + i
		}
		extra = append(extra, s)
		return next + len(extra) - 1
	}
	ptTypX, ptUnitX := stringX(b.ptTyp), stringX(b.ptUnit)

	str := func(s []byte) { // string_table = 6
		buf = appendTag(buf, 6, 2)
		buf = appendVarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	str(nil)
	str([]byte(b.typ))
	if b.unitX() == 2 {
		str([]byte(b.unit))
	}
	for id := range n {
		if s := b.names.Key(int32(id)); known(s) < 0 {
			str(s)
			if err := flush(); err != nil {
				return err
			}
		}
	}
	for _, s := range extra {
		str([]byte(s))
	}
	if ptTypX != 0 || ptUnitX != 0 { // period_type = 11
		size := 0
		if ptTypX != 0 {
			size += 1 + varintLen(uint64(ptTypX))
		}
		if ptUnitX != 0 {
			size += 1 + varintLen(uint64(ptUnitX))
		}
		buf = appendTag(buf, 11, 2)
		buf = appendVarint(buf, uint64(size))
		if ptTypX != 0 {
			buf = appendTag(buf, 1, 0)
			buf = appendVarint(buf, uint64(ptTypX))
		}
		if ptUnitX != 0 {
			buf = appendTag(buf, 2, 0)
			buf = appendVarint(buf, uint64(ptUnitX))
		}
	}
	if b.period != 0 { // period = 12
		buf = appendTag(buf, 12, 0)
		buf = appendVarint(buf, uint64(b.period))
	}
	buf = appendTag(buf, 14, 0) // default_sample_type = 14: the type
	buf = appendVarint(buf, 1)
	_, err := w.Write(buf)
	return err
}

func appendTag(b []byte, field, wire int) []byte {
	return appendVarint(b, uint64(field)<<3|uint64(wire))
}

func appendVarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

func varintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
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
func (b *Builder) Samples() int { return b.samples }

// Functions returns the number of distinct frame names.
func (b *Builder) Functions() int { return b.names.Len() }

// Total returns the sum of the counts added, before scaling and rounding.
func (b *Builder) Total() fold.Count { return b.total }

// Written returns the sum of the sample values: Total scaled, and rounded
// sample by sample.
func (b *Builder) Written() int64 { return b.written }

// Rounded reports whether some value was rounded to an integer.
func (b *Builder) Rounded() bool { return b.rounded }
