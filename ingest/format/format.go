// Package format defines what every input format of pfold provides: a
// sniffer that recognises it from the first bytes of an input, and a
// parser that turns its lines into stacks for the core. Each format is
// one package under ingest/ (ingest/dtrace, ingest/jstack, …); the
// registry in package ingest lists them for auto-detection and --format.
//
// This package must import nothing of pfold's but fold and stream, so
// that every format package can import it.
package format

import (
	"io"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// EmitFunc receives one stack (frames joined by ';', root first) and its
// weight. The stack bytes may be reused after the call returns.
type EmitFunc func(stack []byte, c fold.Count) error

// SniffSize is how many leading bytes (decompressed) a sniffer is given
// at most.
const SniffSize = 64 << 10

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
	// New returns a parser for one or more inputs in this format, read
	// line by line. opts gives the values of Flags (and of pfold's
	// shared options); emit receives the stacks; diag takes malformed
	// lines.
	New func(opts Options, emit EmitFunc, diag *stream.Diag) (Parser, error)
	// NewDocument, set instead of New, returns a parser that reads each
	// input whole as bytes (JSON, XML, protobuf, binary recordings),
	// streaming where the format allows.
	NewDocument func(opts Options, emit EmitFunc, diag *stream.Diag) (DocumentParser, error)
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

// Finisher is implemented by parsers that check something once every
// input has been read (an --event-filter naming an event that never
// occurred). Finish is called once, after the last End or Read.
type Finisher interface {
	Finish() error
}

// Stater is implemented by parsers that have counts to show with
// --stats ("1234 threads, 56 skipped as idle").
type Stater interface {
	Stats() string
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
