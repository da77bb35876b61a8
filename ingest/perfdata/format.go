package perfdata

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/perfscript"
	"github.com/pfold/pfold/stream"
)

// Format is the perf.data input format. Its options are perf script's
// (ingest/perfscript) and mean the same: samples are folded straight
// from the recording, each distinct frame and header named by the
// perf-script parser's own rules (perfscript.Namer), so that `pfold
// perf.data` equals `perf script | pfold` without printing and parsing
// each sample.
var Format = newFormat(perfscript.Format, false)

// flags are the options of perf.data besides perf script's.
var flags = []format.Flag{
	{Name: "symfs", Kind: format.String, Usage: "perf-data: look for binaries and debug files under `DIR`, as perf's --symfs"},
	{Name: "kallsyms", Kind: format.String, Usage: "perf-data: kernel symbols from `FILE`, as perf's --kallsyms", Default: "/proc/kallsyms when the recording's kernel is the running one"},
	{Name: "no-inline", Kind: format.Bool, Usage: "perf-data: no inlined functions (addr2line's) in the frames unwound from --call-graph dwarf stack copies, as perf script --no-inline"},
}

// ErrSrcline refuses --srcline on perf.data: perf script computes source
// lines from DWARF, which pfold does not read.
var ErrSrcline = errors.New("--srcline folds the source lines of `perf script -F +srcline` text; a perf.data recording has none: fold `perf script -F +pid,+srcline -i FILE | pfold --srcline`")

// newFormat returns the perf.data format over text, perf script's text
// format. viaText hands it each sample printed as perf script's text,
// as pfold did before it folded samples itself: the tests compare both.
func newFormat(text format.Format, viaText bool) format.Format {
	return format.Format{
		Name:        "perf-data",
		Replaces:    "perf script | stackcollapse-perf.pl",
		Description: "a perf.data recording",
		Sniff: func(prefix []byte) format.Score {
			if IsPerfData(prefix) {
				return format.Sure
			}
			return format.No
		},
		Flags: append(append([]format.Flag(nil), flags...), text.Flags...),
		Check: text.Check,
		NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
			if opts.Bool("srcline") {
				return nil, ErrSrcline
			}
			if _, err := perfscript.RangeFrom(opts); err != nil {
				return nil, err
			}
			env := format.EnvOf(opts)
			o := Options{
				Symbols:  SymbolOptions{Symfs: opts.String("symfs"), Kallsyms: opts.String("kallsyms")},
				TmpDir:   env.TmpDir,
				Jobs:     opts.Int("jobs"),
				NoInline: opts.Bool("no-inline"),
			}
			if env.Notes != nil {
				o.Warn = func(s string) { fmt.Fprintln(env.Notes, s) }
			}
			if viaText {
				tp, err := text.New(opts, emit, diag)
				if err != nil {
					return nil, err
				}
				return &textParser{text: tp, opt: o}, nil
			}
			popt := perfscript.OptionsFrom(opts)
			namer := perfscript.NewNamer(popt, diag)
			budget := env.Mem
			if budget <= 0 {
				budget = defaultBudget
			}
			f := newFolder(namer, emit, popt.Addrs, budget, o.Jobs)
			f.inline = popt.Inline
			o.sink = f
			return &parser{f: f, opt: o, filter: popt.EventFilter, notes: popt.Warn}, nil
		},
	}
}

// defaultBudget bounds the table of samples when the run gives no
// memory (format.Env.Mem).
const defaultBudget = 32 << 20

// parser folds each recording straight from its samples.
type parser struct {
	f      *folder
	opt    Options
	filter string    // as the user gave it
	notes  io.Writer // the run's notes, for CheckChains
}

// Read replays one recording: a plain file in place, anything else
// (pipe mode, compressed, stdin) as a stream, copied to a temporary file
// first when it is in file mode, whose header points past the data.
func (p *parser) Read(name string, r io.Reader) error {
	if _, err := Replay(r, p.opt, nil); err != nil {
		return &nameError{name, err}
	}
	if err := p.f.flushing(true); err != nil {
		return &nameError{name, err}
	}
	return nil
}

// EmitSorted hands each recording's last stacks, sorted, to fn whole
// (format.SortedEmitter).
func (p *parser) EmitSorted(fn func(stream.SortedRun) error) { p.f.sorted = fn }

func (p *parser) Finish() error {
	if err := perfscript.CheckEventFilter(p.filter, p.f.namer.Counts()); err != nil {
		return err
	}
	if err := perfscript.CheckRange(p.f.namer.Counts()); err != nil {
		return err
	}
	return perfscript.CheckChains(p.notes, p.f.namer.Counts())
}

func (p *parser) Stats() string { return p.f.namer.Counts().String() }

// Close ends what the namer started (--inline's addr2line processes),
// and the replay's addr2line processes when a failed read left them.
func (p *parser) Close() error {
	if rp := p.f.rp; rp != nil && rp.inl != nil {
		rp.inl.close()
	}
	return p.f.namer.Close()
}

// textParser replays each recording and hands perf script's text of it
// to the text parser, line by line.
type textParser struct {
	text   format.Parser
	opt    Options
	script []byte
}

// Read replays one recording: a plain file in place, anything else
// (pipe mode, compressed, stdin) as a stream, copied to a temporary file
// first when it is in file mode, whose header points past the data.
func (p *textParser) Read(name string, r io.Reader) error {
	line := 0
	_, err := Replay(r, p.opt, func(s *Sample, comm string, frames []Frame) error {
		p.script = AppendScript(p.script[:0], s, comm, frames)
		for b := p.script; len(b) > 0; {
			i := bytes.IndexByte(b, '\n')
			line++
			if err := p.text.Line(name, line, b[:i]); err != nil {
				return err
			}
			b = b[i+1:]
		}
		return nil
	})
	if err != nil {
		return &nameError{name, err}
	}
	return p.text.End()
}

// Finish, Stats and Close are the text parser's.
func (p *textParser) Finish() error {
	if f, ok := p.text.(format.Finisher); ok {
		return f.Finish()
	}
	return nil
}

func (p *textParser) Stats() string {
	if s, ok := p.text.(format.Stater); ok {
		return s.Stats()
	}
	return ""
}

func (p *textParser) Close() error {
	if c, ok := p.text.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

type nameError struct {
	name string
	err  error
}

func (e *nameError) Error() string { return e.name + ": " + e.err.Error() }
func (e *nameError) Unwrap() error { return e.err }
