package formattest

import (
	"bytes"
	"io"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/stream"
)

// Result is what a fold produced.
type Result struct {
	Folded    string // "stack COUNT\n" lines, summed by stack, sorted by stack, zero counts kept as pfold keeps them
	Malformed int    // lines the parser reported to the Diag
	Warnings  string // what the Diag printed
}

// Fold runs f's parser with opts over each input (name and content), in
// order, splitting lines as stream.Reader does (at '\n' only) or handing
// each input whole to a document parser, and returns the summed, sorted
// folded stacks. An error from the parser is returned as is.
func Fold(f format.Format, opts format.Options, inputs ...Input) (Result, error) {
	var warn bytes.Buffer
	diag := stream.NewDiag(&warn, false)
	return fold1(f, opts, diag, &warn, inputs)
}

// FoldStrict is Fold with a strict Diag: the first malformed line is an error.
func FoldStrict(f format.Format, opts format.Options, inputs ...Input) (Result, error) {
	var warn bytes.Buffer
	diag := stream.NewDiag(&warn, true)
	return fold1(f, opts, diag, &warn, inputs)
}

// MustFold is Fold, failing the test on an error.
func MustFold(t testing.TB, f format.Format, opts format.Options, inputs ...Input) Result {
	t.Helper()
	res, err := Fold(f, opts, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// FoldText folds in, an input called "in", strictly: a malformed line
// fails the test, as an error does.
func FoldText(t testing.TB, f format.Format, opts format.Options, in string) string {
	t.Helper()
	res, err := FoldStrict(f, opts, Input{Name: "in", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Folded
}

// Input is one named input.
type Input struct {
	Name string
	Data []byte
}

func fold1(f format.Format, opts format.Options, diag *stream.Diag, warn *bytes.Buffer, inputs []Input) (Result, error) {
	if opts == nil {
		opts = format.MapOptions{}
	}
	sums := map[string]fold.Count{}
	emit := func(stack []byte, c fold.Count) error {
		s, err := sums[string(stack)].Add(c)
		if err != nil {
			return err
		}
		sums[string(stack)] = s
		return nil
	}
	if err := feed(f, opts, emit, diag, inputs); err != nil {
		return Result{}, err
	}
	diag.Flush()
	return Result{Folded: stacktest.Folded(sums), Malformed: diag.Count(), Warnings: warn.String()}, nil
}

// feed runs f's parser over the inputs: line by line as stream.Reader
// splits them (at '\n' only), or whole for document formats.
func feed(f format.Format, opts format.Options, emit format.EmitFunc, diag *stream.Diag, inputs []Input) error {
	return feedLines(f, opts, emit, diag, inputs, splitLines(f, inputs))
}

// splitLines cuts each input into its lines, for a line parser.
func splitLines(f format.Format, inputs []Input) [][][]byte {
	if f.NewDocument != nil {
		return nil
	}
	lines := make([][][]byte, len(inputs))
	for i, in := range inputs {
		for data := in.Data; len(data) > 0; {
			line := data
			if j := bytes.IndexByte(data, '\n'); j >= 0 {
				line, data = data[:j], data[j+1:]
			} else {
				data = nil
			}
			lines[i] = append(lines[i], line)
		}
	}
	return lines
}

// feedLines runs a new parser of f over the inputs, cut into lines by
// splitLines, then asks it to finish.
func feedLines(f format.Format, opts format.Options, emit format.EmitFunc, diag *stream.Diag, inputs []Input, lines [][][]byte) error {
	var last any
	if f.NewDocument != nil {
		p, err := f.NewDocument(opts, emit, diag)
		if err != nil {
			return err
		}
		for _, in := range inputs {
			if err := p.Read(in.Name, bytes.NewReader(in.Data)); err != nil {
				return err
			}
		}
		last = p
	} else {
		p, err := f.New(opts, emit, diag)
		if err != nil {
			return err
		}
		for i, in := range inputs {
			for n, line := range lines[i] {
				if err := p.Line(in.Name, n+1, line); err != nil {
					return err
				}
			}
			if err := p.End(); err != nil {
				return err
			}
		}
		last = p
	}
	if fin, ok := last.(format.Finisher); ok {
		return fin.Finish()
	}
	return nil
}

// Fuzz is the body of a fuzz target for f: any input folds without a
// panic, and every stack emitted is a valid folded line.
func Fuzz(t *testing.T, f format.Format, data []byte) {
	t.Helper()
	_ = f.Sniff(data[:min(len(data), format.SniffSize)])
	res, err := Fold(f, nil, Input{"fuzz", data})
	if err != nil {
		return
	}
	for _, l := range bytes.SplitAfter([]byte(res.Folded), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if _, _, err := fold.ParseLine(bytes.TrimSuffix(l, []byte("\n"))); err != nil {
			t.Fatalf("emitted line %q does not parse back: %v", l, err)
		}
	}
}

// BenchmarkRead times one document parser of f reading data again and
// again, its buffers kept from one input to the next as pfold's are, the
// stacks going nowhere. It reports bytes, allocations and the throughput
// by CPU time (CPURate).
func BenchmarkRead(b *testing.B, f format.Format, opts format.Options, data []byte) {
	b.Helper()
	if opts == nil {
		opts = format.MapOptions{}
	}
	p, err := f.NewDocument(opts, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer CPURate(b, int64(len(data)))()
	for b.Loop() {
		if err := p.Read("x", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
