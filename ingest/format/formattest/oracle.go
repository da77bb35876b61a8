package formattest

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/stream"
)

// DocRun is what a document parser made of one input: the folded stacks
// (as Result.Folded), what the Diag printed and counted, the parser's
// Stats, and the error Read returned.
type DocRun struct {
	Folded, Warnings, Stats string
	Malformed               int
	Err                     error
}

// FoldDoc folds data, an input called "fuzz", with a document parser of
// f and opts, the input read through wrap (nil: as it is), with a strict
// Diag or not, and says what came out; the stacks emitted before an
// error are kept. The parser must be a format.Stater.
func FoldDoc(f format.Format, opts format.Options, data []byte, wrap func(io.Reader) io.Reader, strict bool) DocRun {
	if opts == nil {
		opts = format.MapOptions{}
	}
	if wrap == nil {
		wrap = func(r io.Reader) io.Reader { return r }
	}
	sums := map[string]fold.Count{}
	var warn bytes.Buffer
	diag := stream.NewDiag(&warn, strict)
	p, err := f.NewDocument(opts, func(stack []byte, c fold.Count) error {
		s, err := sums[string(stack)].Add(c)
		sums[string(stack)] = s
		return err
	}, diag)
	if err != nil {
		return DocRun{Err: err}
	}
	err = p.Read("fuzz", wrap(bytes.NewReader(data)))
	diag.Flush()
	return DocRun{Folded: stacktest.Folded(sums), Warnings: warn.String(), Malformed: diag.Count(), Stats: p.(format.Stater).Stats(), Err: err}
}

// CompareOracle is the body of a fuzz target that holds a document
// parser to the one it replaced: data is folded with f and with ref (the
// old parser), with opts, strict and not, f reading it byte by byte when
// its length is odd. Where ref's warnings or error say none of
// notWellFormed (what ref says of input it could not read to its end,
// where the old decoder stopped), both must give the same stacks,
// warnings, Diag count, stats and error.
func CompareOracle(t *testing.T, f, ref format.Format, opts format.Options, data []byte, notWellFormed ...string) {
	t.Helper()
	wrap := func(r io.Reader) io.Reader { return r }
	if len(data)%2 == 1 {
		wrap = iotest.OneByteReader
	}
	says := func(r DocRun) bool {
		for _, s := range notWellFormed {
			if strings.Contains(r.Warnings, s) || r.Err != nil && strings.Contains(r.Err.Error(), s) {
				return true
			}
		}
		return false
	}
	for _, strict := range []bool{false, true} {
		got := FoldDoc(f, opts, data, wrap, strict)
		want := FoldDoc(ref, opts, data, nil, strict)
		if says(want) {
			continue
		}
		if got.Folded != want.Folded || got.Warnings != want.Warnings || got.Malformed != want.Malformed || got.Stats != want.Stats ||
			(got.Err == nil) != (want.Err == nil) || got.Err != nil && got.Err.Error() != want.Err.Error() {
			t.Fatalf("%v, strict %v:\ngot  %q %q %d %q %v\nwant %q %q %d %q %v", opts, strict,
				got.Folded, got.Warnings, got.Malformed, got.Stats, got.Err,
				want.Folded, want.Warnings, want.Malformed, want.Stats, want.Err)
		}
	}
}
