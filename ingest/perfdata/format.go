package perfdata

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// NewFormat returns the perf.data input format. Samples are named as
// perf script names them and handed, as perf script's text, to a parser
// of the text format (perf script's), so that every option of that
// format means on perf.data what it means on perf script output.
func NewFormat(text format.Format) format.Format {
	flags := append([]format.Flag{
		{Name: "symfs", Kind: format.String, Usage: "perf-data: look for binaries and debug files under `DIR`, as perf's --symfs"},
		{Name: "kallsyms", Kind: format.String, Usage: "perf-data: kernel symbols from `FILE`, as perf's --kallsyms", Default: "/proc/kallsyms when the recording's kernel is the running one"},
	}, text.Flags...)
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
		Flags: flags,
		NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
			tp, err := text.New(opts, emit, diag)
			if err != nil {
				return nil, err
			}
			env := format.EnvOf(opts)
			o := Options{
				Symbols: SymbolOptions{Symfs: opts.String("symfs"), Kallsyms: opts.String("kallsyms")},
				TmpDir:  env.TmpDir,
			}
			if env.Notes != nil {
				o.Warn = func(s string) { fmt.Fprintln(env.Notes, s) }
			}
			return &parser{text: tp, opt: o}, nil
		},
	}
}

// parser replays each recording and hands perf script's text of it to
// the text parser, line by line.
type parser struct {
	text   format.Parser
	opt    Options
	script []byte
}

// Read replays one recording: a plain file in place, anything else
// (pipe mode, compressed, stdin) as a stream, copied to a temporary file
// first when it is in file mode, whose header points past the data.
func (p *parser) Read(name string, r io.Reader) error {
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
func (p *parser) Finish() error {
	if f, ok := p.text.(format.Finisher); ok {
		return f.Finish()
	}
	return nil
}

func (p *parser) Stats() string {
	if s, ok := p.text.(format.Stater); ok {
		return s.Stats()
	}
	return ""
}

func (p *parser) Close() error {
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
