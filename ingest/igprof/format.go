package igprof

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// Format is an IgProf profile dump, folded as pigprof folds it by
// default: the PERF_TICKS counter (else the dump's first), each call-tree
// node's own value, the program name as the root frame. pigprof has the
// options to choose another counter or value.
var Format = format.Format{
	Name:        "igprof",
	Replaces:    "igprof-analyse (pigprof)",
	Description: "an IgProf dump",
	Sniff:       Sniff,
	// A document parser, not a line parser: a dump's lines are tokenized
	// on every core (Fold), which a line-at-a-time parser cannot do.
	NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		env := format.EnvOf(opts)
		f := NewFolder(Options{Agg: stream.Options{Mem: env.Mem, TmpDir: env.TmpDir}}, emit)
		return &parser{f: f, diag: diag}, nil
	},
}

type parser struct {
	f    *Folder
	diag *stream.Diag
}

// Read folds the lines of one input into the call-path tree; Finish
// emits the tree once every input is read.
func (p *parser) Read(name string, in io.Reader) error {
	r := stream.NewReaderOf(name, in)
	defer r.Close()
	return foldLines(r, p.f, p.diag)
}

// Finish emits what the call-path tree holds, once every dump is read.
func (p *parser) Finish() error {
	if p.f.Parser().Dumps() == 0 {
		return nil // only malformed lines, already reported
	}
	return p.f.Finish()
}

func (p *parser) Close() error { return p.f.Close() }

func (p *parser) Stats() string {
	return fmt.Sprintf("%d dumps, counter %s", p.f.Parser().Dumps(), p.f.Counter())
}

// Sniff is sure of a dump's first line, the header "P=(ID=… N=(…)
// T=…)" ("P=(HEX ID=…" in hexadecimal dumps), followed by a node "C1 …".
func Sniff(prefix []byte) format.Score {
	t := bytes.TrimLeft(prefix, " \t\r\n")
	head, rest, _ := bytes.Cut(t, []byte("\n"))
	if !bytes.HasPrefix(head, []byte("P=(")) || !bytes.Contains(head, []byte("ID=")) || !bytes.Contains(head, []byte(" N=(")) {
		return format.No
	}
	if len(rest) == 0 || bytes.HasPrefix(rest, []byte("C1 ")) {
		return format.Sure
	}
	return format.No
}
