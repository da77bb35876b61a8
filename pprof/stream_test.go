package pprof

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/stacktest"
)

// reference builds the profile as the pprof package's own types hold it
// (one Function and Location per distinct frame name, in order of
// appearance) and writes it with the pprof package: the bytes the
// Builder must write.
func reference(t testing.TB, opt Options, in []folded) []byte {
	t.Helper()
	b := New(opt) // for its option defaults and value rounding
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: b.typ, Unit: b.unit}},
		DefaultSampleType: b.typ,
		PeriodType:        &profile.ValueType{Type: b.ptTyp, Unit: b.ptUnit},
		Period:            opt.Period,
	}
	locs := map[string]*profile.Location{}
	for _, f := range in {
		v, err := b.value(f.count)
		if err != nil {
			t.Fatal(err)
		}
		var frames []*profile.Location
		fold.Frames([]byte(f.stack), func(name []byte) bool {
			l := locs[string(name)]
			if l == nil {
				fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: string(name), SystemName: string(name)}
				l = &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
				p.Function = append(p.Function, fn)
				p.Location = append(p.Location, l)
				locs[string(name)] = l
			}
			frames = append([]*profile.Location{l}, frames...)
			return true
		})
		p.Sample = append(p.Sample, &profile.Sample{Location: frames, Value: []int64{v}})
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return stacktest.Gunzip(t, buf.Bytes())
}

// TestBytesAsThePprofPackage: the Builder, buffered (New) or streaming
// (NewWriter), writes the bytes the pprof package writes for the same
// profile, uncompressed, whatever the frame names (some equal to the
// type or unit strings, or empty) and the options.
func TestBytesAsThePprofPackage(t *testing.T) {
	inputs := map[string][]folded{}
	files, _ := filepath.Glob("../testdata/pprof/*.folded")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = readFolded(t, data)
	}
	inputs["awkward names"] = readFolded(t, []byte("main;samples;count 3\ncpu;;x 2\nnanoseconds 1\nmain;count 2.5\na;b;c;d;e;cpu 7\n"))
	rng := rand.New(rand.NewPCG(1, 2))
	var big strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&big, "main;f%d;g%d;h%d %d\n", rng.IntN(5000), rng.IntN(300), i%7, rng.IntN(1000))
	}
	inputs["30000 stacks"] = readFolded(t, []byte(big.String()))
	opts := []Options{
		{},
		{SampleType: "cpu", SampleUnit: "nanoseconds", Period: 10000000},
		{SampleType: "cpu", SampleUnit: "cpu", PeriodType: "wall", PeriodUnit: "nanoseconds", Period: 1, Scale: 1000},
		{SampleType: "x", SampleUnit: "y", PeriodType: "samples", PeriodUnit: "nanoseconds"},
		{SampleType: "x", SampleUnit: "y", PeriodType: "new", PeriodUnit: "new"},
	}
	for name, in := range inputs {
		for i, opt := range opts {
			want := reference(t, opt, in)
			var got bytes.Buffer
			if _, err := build(t, opt, in).WriteTo(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(stacktest.Gunzip(t, got.Bytes()), want) {
				t.Errorf("%s, options %d: New's profile differs from the pprof package's", name, i)
			}
			got.Reset()
			w := NewWriter(&got, opt)
			for _, f := range in {
				if err := w.Add([]byte(f.stack), f.count); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(stacktest.Gunzip(t, got.Bytes()), want) || w.Bytes() != int64(got.Len()) {
				t.Errorf("%s, options %d: NewWriter's profile differs from the pprof package's", name, i)
			}
		}
	}
}

// TestNewWriterHoldsBack: nothing reaches the writer before samples do.
func TestNewWriterHoldsBack(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{})
	if err := w.Add([]byte("a;b"), fold.Int(1)); err != nil || out.Len() != 0 {
		t.Fatalf("%v, %d bytes written", err, out.Len())
	}
}
