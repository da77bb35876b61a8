package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pfold/pfold/ingest/perfscript"
	"github.com/pfold/pfold/stream"
)

// writeFolded writes the folded stacks of the dump g generates instead
// of the dump: folded in this process by pfold's perf script parser with
// its default options, summed and sorted as pfold writes them, so the
// bytes are those of `benchgen … | pfold` without the perf script text
// on a pipe. The stacks are summed within mem (spilling to tmpdir past
// it), as pfold does.
func writeFolded(w io.Writer, g *generator, mem int64, tmpdir string) (Stats, error) {
	agg := stream.NewAggregator(stream.Options{Mem: mem, TmpDir: tmpdir})
	defer agg.Close()
	var warn bytes.Buffer
	diag := stream.NewDiag(&warn, false)
	p := perfscript.New(perfscript.Options{Warn: &warn}, agg.Add, diag)
	pr, pw := io.Pipe()
	gen := make(chan error, 1)
	var st Stats
	go func() {
		var err error
		st, err = g.Generate(pw)
		pw.CloseWithError(err)
		gen <- err
	}()
	r := stream.NewReaderStdin(nil, pr)
	err := perfscript.Fold(r, p)
	r.Close()
	pr.CloseWithError(io.ErrClosedPipe) // stops the generator if folding failed
	if e := <-gen; err == nil && e != nil && e != io.ErrClosedPipe {
		err = e
	}
	if err != nil {
		return st, err
	}
	if diag.Count() > 0 || warn.Len() > 0 {
		return st, fmt.Errorf("the dump does not fold cleanly: %s", warn.String())
	}
	_, err = agg.WriteTo(w)
	return st, err
}
