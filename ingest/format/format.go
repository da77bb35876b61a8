package format

import (
	"bytes"
	"io"
	"iter"
	"sync/atomic"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// EmitFunc receives one stack (frames joined by ';', root first) and its
// weight. The stack bytes may be reused after the call returns.
type EmitFunc func(stack []byte, c fold.Count) error

// SniffSize is how many leading bytes (decompressed) a sniffer is given
// at most.
const SniffSize = 64 << 10

// Lines yields the complete lines of prefix, a sniffer's prefix, each
// without its '\n' and a '\r' before it. The last line, when no '\n'
// ends it, may be cut short: it is not yielded.
func Lines(prefix []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for {
			i := bytes.IndexByte(prefix, '\n')
			if i < 0 {
				return
			}
			line := prefix[:i]
			if i > 0 && line[i-1] == '\r' {
				line = line[:i-1]
			}
			prefix = prefix[i+1:]
			if !yield(line) {
				return
			}
		}
	}
}

// Score is a sniffer's confidence that a prefix is in its format.
type Score int

const (
	// No: the prefix is not in this format.
	No Score = 0
	// Maybe: nothing rules the format out, but nothing marks it either.
	// Auto-detection never picks a format on Maybe alone.
	Maybe Score = 50
	// Sure: the prefix carries this format's marks (a header, a magic
	// number, a line shape no other format has).
	Sure Score = 100
)

// Format describes one input format.
type Format struct {
	// Name is what --format calls it ("dtrace", "jstack", …).
	Name string
	// Replaces names the script or tool output it stands in for, for
	// help texts ("stackcollapse-jstack.pl").
	Replaces string
	// Sniff scores prefix, the first bytes of an input (at most
	// SniffSize, decompressed; the last line may be cut short). It must
	// not retain prefix.
	Sniff func(prefix []byte) Score
	// Flags are the format's own options, named as the script it
	// replaces names them. Formats may share a flag name when it means
	// the same thing and has the same kind.
	Flags []Flag
	// Check, when set, checks the values of Flags before any input is
	// read: its error is a usage error (pfold exits 2), whatever the
	// inputs turn out to be.
	Check func(opts Options) error
	// New returns a parser for one or more inputs in this format, read
	// line by line. opts gives the values of Flags (and of pfold's
	// shared options); emit receives the stacks; diag takes malformed
	// lines.
	New func(opts Options, emit EmitFunc, diag *stream.Diag) (Parser, error)
	// NewDocument, set instead of New, returns a parser that reads each
	// input whole as bytes (JSON, XML, protobuf, binary recordings),
	// streaming where the format allows.
	NewDocument func(opts Options, emit EmitFunc, diag *stream.Diag) (DocumentParser, error)
	// FoldChunks, when set, folds inputs of this format on len(aggs)
	// workers, one aggregator each, over the chunks ch cuts at blank
	// lines, which must be record boundaries of the format; pfold uses
	// it when every input is in this format. The stacks are those the
	// serial parser gives. The result may implement Finisher and Stater,
	// as a parser does.
	FoldChunks func(ch *stream.Chunker, opts Options, diag *stream.Diag, aggs []*stream.Aggregator) (any, error)
	// Description names the format for people, in messages such as
	// "looks like perf script output: pipe it through pfold first"
	// ("perf script output"); Name is used when it is empty.
	Description string
	// Within names the format this one's inputs are a kind of, whose
	// other lines its parser passes over (perf-sched reads perf script
	// output, and passes over its events other than the scheduler's):
	// lines of that format in an input of this one are not taken for a
	// change of format.
	Within string
}

// Describe returns f's Description, or its Name.
func (f *Format) Describe() string {
	if f.Description != "" {
		return f.Description
	}
	return f.Name + " input"
}

// DocumentParser folds inputs read whole rather than line by line.
type DocumentParser interface {
	// Read folds one input called name. r yields the input's bytes from
	// its first, decompressed. When the input is a plain regular file, r
	// is also an io.ReaderAt and has a Size() int64 method (an *os.File
	// positioned at 0), for formats that seek. A malformed record goes
	// to the Diag as a line does (the line number may be 0 where the
	// format has none; name the byte offset in the reason); an error
	// return stops the fold.
	Read(name string, r io.Reader) error
}

// Parser folds lines of its format. Lines come without their newline
// but otherwise as read (a CRLF file's lines end in '\r': text parsers
// trim it), numbered from 1 within each input. Whole-document formats
// (JSON, XML, protobuf, binary) implement DocumentParser instead.
type Parser interface {
	// Line parses one line of the input called name. A malformed line
	// goes to the Diag (which returns an error only when strict); an
	// error return stops the fold.
	Line(name string, n int, line []byte) error
	// End is called at the end of each input: it flushes a pending
	// stack, or decodes a gathered document.
	End() error
}

// Passer is implemented by line parsers that pass over, without a word,
// lines that are not of their format: the other text the tools they read
// mix among the stacks (a program's output, a log, a report's other
// sections). Such a line is neither used nor reported as malformed, so
// that another format appended to an input would be lost in silence:
// the driver (ingest.Folder) follows the runs of lines passed over and
// sniffs them as the start of another format. OnPass makes the parser
// call f for each line it passes over, during its Line call (nil: no
// call); a line used costs the driver nothing. Blank lines may be passed
// over or not. Lines of the format's own that a parser has no use for
// (a report's headers) are better not passed over: a run of passed
// lines may cost a look.
type Passer interface {
	OnPass(f func())
}

// Passed implements Passer for the parser that embeds it.
type Passed struct{ on func() }

// Pass tells that the line being read is passed over; it returns nil,
// for "return p.Pass()".
func (p *Passed) Pass() error {
	if p.on != nil {
		p.on()
	}
	return nil
}

// OnPass sets the function Pass calls.
func (p *Passed) OnPass(f func()) { p.on = f }

// Finisher is implemented by parsers that check something once every
// input has been read (an --event-filter naming an event that never
// occurred). Finish is called once, after the last End or Read.
type Finisher interface {
	Finish() error
}

// Parsers that hold temporary files or other resources implement
// io.Closer: Close is called once at the end of the run, after Finish,
// and also when the run fails.

// SortedEmitter is implemented by parsers that sum and sort stacks
// themselves (perf.data, a flush at a time): when the program takes
// runs of sorted, distinct stacks (ingest.Folder.EmitSorted), EmitSorted
// gives the parser the function to hand such a run to instead of
// emitting its stacks one by one. The parser must not touch a run's
// memory once it has handed it over; it hands over nil before it makes
// another run, so that the one before is let go (Aggregator.AddSorted).
type SortedEmitter interface {
	EmitSorted(func(stream.SortedRun) error)
}

// Stater is implemented by parsers that have counts to show with
// --stats ("1234 threads, 56 skipped as idle").
type Stater interface {
	Stats() string
}

// Env is what a run gives parsers besides option values. pfold's
// options carry one (WithEnv); EnvOf gives the zero Env otherwise.
type Env struct {
	// Notes receives notes that are not errors ("2 events: folding
	// cycles"); nil discards them.
	Notes io.Writer
	// Mem is how many bytes a parser's own caches may hold; 0 lets the
	// parser choose a small default.
	Mem int64
	// TmpDir is where a parser may spill (a perf.data recording read
	// from a pipe); "" is the system's.
	TmpDir string
	// Folded, when set, counts the samples folded, for a progress line
	// read on another goroutine.
	Folded *atomic.Int64
	// Mixed, when set, is asked about a malformed line by parsers that
	// read their input themselves (FoldChunks), with the name of their
	// format: window is the line and what follows it. It returns an
	// error when another format starts there (the input changes
	// format), nil otherwise. The driver of line parsers asks it itself,
	// of malformed lines and of the runs of lines a Passer passes over
	// (a format appended to one whose parser passes over what it does
	// not know); document parsers are not asked.
	Mixed func(format, input string, line int, window []byte) error
	// Refuse, when set (the user chose the format), is asked by parsers
	// that read their input themselves (FoldChunks) about the first bytes
	// of each input: it returns an error when they are binary of
	// another kind (perf.data, an ELF file), which the chosen format
	// would read as lines of noise. The driver of the other parsers
	// asks it itself.
	Refuse func(input string, prefix []byte) error
}

type withEnv struct {
	Options
	env Env
}

func (w withEnv) Env() Env { return w.env }

// WithEnv returns opts carrying env.
func WithEnv(opts Options, env Env) Options { return withEnv{opts, env} }

// EnvOf returns the Env opts carries, or the zero Env.
func EnvOf(opts Options) Env {
	if e, ok := opts.(interface{ Env() Env }); ok {
		return e.Env()
	}
	return Env{}
}

// FlagKind is the type of a format flag's value.
type FlagKind int

const (
	Bool FlagKind = iota
	String
	Int
	StringSlice
)

// Flag is one command-line option of a format.
type Flag struct {
	Name    string
	Aliases []string
	Kind    FlagKind
	Usage   string
	Default string // the default value as typed ("" for none; "false" for Bool)
}

// Options reads option values by flag name. *cli.Context satisfies it;
// tests use a map-backed implementation (MapOptions).
type Options interface {
	Bool(name string) bool
	String(name string) string
	Int(name string) int
	StringSlice(name string) []string
	IsSet(name string) bool
}

// MapOptions is Options from a map, for tests and library callers: a
// name maps to a bool, string, int or []string.
type MapOptions map[string]any

func (m MapOptions) Bool(name string) bool     { v, _ := m[name].(bool); return v }
func (m MapOptions) String(name string) string { v, _ := m[name].(string); return v }
func (m MapOptions) Int(name string) int       { v, _ := m[name].(int); return v }
func (m MapOptions) StringSlice(name string) []string {
	v, _ := m[name].([]string)
	return v
}
func (m MapOptions) IsSet(name string) bool { _, ok := m[name]; return ok }
