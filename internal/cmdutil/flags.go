package cmdutil

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

// The flags most binaries share.
var (
	OutputFlag = &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "-", Usage: "write the result to `FILE` (- is stdout)"}
	StrictFlag = &cli.BoolFlag{Name: "strict", Usage: "make the first malformed input line a fatal error (exit 1)", DefaultText: "false"}
	StatsFlag  = &cli.BoolFlag{Name: "stats", Usage: "print counts of bytes, lines, stacks and spilled runs to stderr", DefaultText: "false"}
	MemFlag    = &cli.StringFlag{Name: "mem", Value: "256MiB", EnvVars: []string{"PFOLD_MEM"}, Usage: "memory budget `SIZE` of the stack table; past it, sorted runs spill to --tmpdir"}
	// MemLimitFlag is --mem of a binary that holds its tables in memory
	// and does not spill: read it with AggregatorOptions too.
	MemLimitFlag = &cli.StringFlag{Name: "mem", Value: "256MiB", EnvVars: []string{"PFOLD_MEM"}, Usage: "memory budget `SIZE`: the Go runtime's memory limit is set 48 MiB above it (the tables of distinct frames stay in memory)"}
	TmpDirFlag   = &cli.StringFlag{Name: "tmpdir", EnvVars: []string{"TMPDIR"}, Usage: "`DIR` for spilled runs", DefaultText: "$TMPDIR or /tmp"}
)

// AggregateFlags are the flags of a binary that aggregates stacks.
func AggregateFlags() []cli.Flag { return []cli.Flag{MemFlag, TmpDirFlag} }

// AggregatorOptions reads --mem and --tmpdir. It also sets the Go
// runtime's soft memory limit just above the budget, so the collector
// keeps the heap near what was promised.
func AggregatorOptions(c *cli.Context) (stream.Options, error) {
	v := c.String("mem")
	name := "--mem " + v
	if env := os.Getenv("PFOLD_MEM"); env != "" && env == v && !memOnCommandLine(c) {
		name = "PFOLD_MEM=" + v + " (the environment's --mem)"
	}
	mem, err := stream.ParseSize(v)
	if rest := strings.TrimLeft(v, "0"); err != nil && len(rest) < len(v) && strings.Trim(strings.ToLower(rest), "kmgtib") == "" {
		err, mem = nil, 0 // "0", "0MiB": a size, but none
	}
	if err != nil {
		return stream.Options{}, UsageErrorf("%s: not a size (such as 256MiB, 1GiB, 65536)", name)
	}
	if mem <= 0 {
		return stream.Options{}, UsageErrorf("%s: the memory budget must be more than zero", name)
	}
	debug.SetMemoryLimit(mem + 48<<20)
	return stream.Options{Mem: mem, TmpDir: c.String("tmpdir")}, nil
}

// memOnCommandLine reports whether --mem was given as an option, not
// only by PFOLD_MEM.
func memOnCommandLine(c *cli.Context) bool {
	for _, n := range c.LocalFlagNames() {
		if n == "mem" {
			return c.IsSet("mem") && os.Getenv("PFOLD_MEM") != c.String("mem")
		}
	}
	return false
}

// Input returns a reader of the command's file arguments ("-" or none is
// the app's standard input), and starts the progress line when the input
// is large (see progress.go).
func Input(c *cli.Context) *stream.Reader {
	in := stream.NewReaderStdin(c.Args().Slice(), c.App.Reader)
	startProgress(c, in, "", c.Args().Slice())
	return in
}

// Chunker returns a stream.Chunker of the command's file arguments, for
// binaries that parse on several goroutines, and starts the progress line
// as Input does.
func Chunker(c *cli.Context, size, buffers int) *stream.Chunker {
	in := stream.NewChunker(c.Args().Slice(), c.App.Reader, size, buffers)
	startProgress(c, in, "", c.Args().Slice())
	return in
}

// Output opens the --output destination (the app's stdout by default).
func Output(c *cli.Context) (*stream.Output, error) {
	return stream.CreateOr(c.String("output"), c.App.Writer)
}

// NewDiag returns the Diag of the command's malformed input lines: on
// standard error, fatal with --strict, each message led by the
// command's name.
func NewDiag(c *cli.Context) *stream.Diag {
	d := stream.NewDiag(c.App.ErrWriter, c.Bool("strict"))
	d.Prefix = c.App.Name + ": "
	return d
}

// Notes returns a writer of notes to standard error, each led by the
// command's name: give it to a library that writes a whole note a Write.
func Notes(c *cli.Context) io.Writer { return notesWriter{c} }

type notesWriter struct{ c *cli.Context }

func (n notesWriter) Write(b []byte) (int, error) {
	if _, err := n.c.App.ErrWriter.Write(append([]byte(n.c.App.Name+": "), b...)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Statsf prints one --stats line to stderr (which clears the progress
// line, see progress.go).
func Statsf(c *cli.Context, format string, args ...any) {
	fmt.Fprintf(c.App.ErrWriter, c.App.Name+": "+format+"\n", args...)
}

// WriteOutput opens the --output destination, lets write fill it, and
// closes it; on an error the output is discarded, so a failed run leaves
// no file that looks complete.
func WriteOutput(c *cli.Context, write func(w io.Writer) error) error {
	out, err := Output(c)
	if err != nil {
		return err
	}
	if err := write(out); err != nil {
		out.Abort()
		return err
	}
	return out.Close()
}

// FoldedInput is what ReadFolded read.
type FoldedInput struct {
	Bytes     int64 // read from the inputs (compressed bytes for compressed ones)
	Lines     int64
	Stacks    int64 // well-formed lines
	Malformed int
}

// Empty reports whether the input held nothing: no stack and no
// malformed line. Every binary then writes nothing and exits 0.
func (in FoldedInput) Empty() bool { return in.Stacks == 0 && in.Malformed == 0 }

// ReadFolded reads the command's inputs as folded stacks and hands each
// to add: the reading every binary that takes folded stacks does, with
// its malformed-line reports, its progress line and its file:line on
// errors.
func ReadFolded(c *cli.Context, add func(stack []byte, n fold.Count) error) (FoldedInput, error) {
	diag := NewDiag(c)
	in := Input(c)
	defer in.Close()
	fr := stream.NewFoldedReader(in, diag)
	for fr.Next() {
		if err := add(fr.Stack(), fr.Count()); err != nil {
			return FoldedInput{}, fmt.Errorf("%s:%d: stack %.80q: %w", fr.Name(), fr.Line(), fr.Stack(), err)
		}
	}
	err := fr.Err()
	diag.Flush()
	return FoldedInput{Bytes: in.BytesRead(), Lines: fr.Lines, Stacks: fr.Stacks, Malformed: diag.Count()}, err
}

// WriteFolded writes the folded stacks produce emits to the --output
// destination: the output appears only if produce and the closing
// succeed, and nothing is written to stdout when they fail.
func WriteFolded(c *cli.Context, produce func(emit func(stack []byte, n fold.Count) error) error) error {
	return WriteOutput(c, func(w io.Writer) error {
		var line []byte
		return produce(func(stack []byte, n fold.Count) error {
			line = fold.AppendLine(line[:0], stack, n)
			_, err := w.Write(line)
			return err
		})
	})
}

// Refold runs a command that makes folded stacks of folded stacks
// (pfilter, pmerge): it reads --mem and --tmpdir (AggregatorOptions),
// makes the Diag of malformed input lines (NewDiag), and writes the
// stacks produce emits as WriteFolded does. The Diag's last report is
// flushed when produce returns, before the output is closed or dropped;
// the Diag is returned for --stats.
func Refold(c *cli.Context, produce func(agg stream.Options, diag *stream.Diag, emit func(stack []byte, n fold.Count) error) error) (*stream.Diag, error) {
	agg, err := AggregatorOptions(c)
	if err != nil {
		return nil, err
	}
	diag := NewDiag(c)
	err = WriteFolded(c, func(emit func([]byte, fold.Count) error) error {
		err := produce(agg, diag, emit)
		diag.Flush()
		return err
	})
	return diag, err
}
