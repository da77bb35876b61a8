package formattest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// Case is a small input and what it folds to.
type Case struct {
	Name string
	In   string
	Opts format.MapOptions
	Want string // the folded stacks
	// Malformed is how many lines are reported as malformed; with any,
	// a strict fold must fail.
	Malformed int
	// Warn are what the warnings must say ("in:7:"; the input is called
	// "in"); a strict fold's error must say the first.
	Warn []string
	// Err, when set, is what the fold's error says: the fold must fail
	// (options that contradict each other).
	Err string
}

// Cases folds each case's input, called "in", with f.
func Cases(t *testing.T, f format.Format, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Helper()
			in := Input{Name: "in", Data: []byte(c.In)}
			res, err := Fold(f, c.Opts, in)
			if c.Err != "" {
				if err == nil || !strings.Contains(err.Error(), c.Err) {
					t.Errorf("error %v, want one saying %q", err, c.Err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Folded != c.Want {
				t.Errorf("got\n%s\nwant\n%s", res.Folded, c.Want)
			}
			if res.Malformed != c.Malformed {
				t.Errorf("%d malformed lines, want %d:\n%s", res.Malformed, c.Malformed, res.Warnings)
			}
			for _, w := range c.Warn {
				if !strings.Contains(res.Warnings, w) {
					t.Errorf("the warnings do not say %q:\n%s", w, res.Warnings)
				}
			}
			if c.Malformed == 0 {
				return
			}
			_, err = FoldStrict(f, c.Opts, in)
			switch {
			case err == nil:
				t.Error("strict: no error")
			case len(c.Warn) > 0 && !strings.Contains(err.Error(), c.Warn[0]):
				t.Errorf("strict: %v, not at %s", err, c.Warn[0])
			}
		})
	}
}

// FuzzFormat is the fuzz target of f, seeded: any input folds without a
// panic, into valid folded lines.
func FuzzFormat(t *testing.F, f format.Format, seeds ...[]byte) {
	t.Helper()
	for _, s := range seeds {
		t.Add(s)
	}
	t.Fuzz(func(t *testing.T, data []byte) { Fuzz(t, f, data) })
}

// Repeat returns head followed by body as many times as it takes to
// make size bytes or more: benchmark input.
func Repeat(head, body []byte, size int) []byte {
	data := append([]byte(nil), head...)
	for len(data) < size {
		data = append(data, body...)
	}
	return data
}

// Benchmark times f's parser on the inputs, each handed over as pfold
// hands it over (line by line, or whole to a document parser), into an
// emit that keeps nothing: the lines are cut before the clock starts, so
// that the parser alone is timed. It reports bytes and allocations. A
// malformed line fails it: the benchmark would time something else.
func Benchmark(b *testing.B, f format.Format, opts format.Options, inputs ...[]byte) {
	b.Helper()
	if opts == nil {
		opts = format.MapOptions{}
	}
	size := 0
	ins := make([]Input, len(inputs))
	for i, in := range inputs {
		size += len(in)
		ins[i] = Input{Name: "bench", Data: in}
	}
	lines := splitLines(f, ins)
	var warn bytes.Buffer
	diag := stream.NewDiag(&warn, false)
	emit := func([]byte, fold.Count) error { return nil }
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if err := feedLines(f, opts, emit, diag, ins, lines); err != nil {
			b.Fatal(err)
		}
	}
	if diag.Flush(); diag.Count() != 0 {
		b.Fatalf("%d malformed lines:\n%.2000s", diag.Count(), warn.String())
	}
}
