package perfdata

import (
	"bytes"
	"io"
	"os"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// NewFormat returns the perf.data input format. Samples are named as
// perf script names them and handed, as perf script's text, to a parser
// of the text format (perf script's), so that every option of that
// format means on perf.data what it means on perf script output.
func NewFormat(text format.Format) format.Format {
	flags := append([]format.Flag{
		{Name: "symfs", Kind: format.String, Usage: "perf.data: look for binaries and debug files under `DIR`, as perf's --symfs"},
		{Name: "kallsyms", Kind: format.String, Usage: "perf.data: kernel symbols from `FILE`, as perf's --kallsyms (default /proc/kallsyms when the recording's kernel is the running one)"},
	}, text.Flags...)
	return format.Format{
		Name:     "perf-data",
		Replaces: "perf script",
		Sniff: func(prefix []byte) format.Score {
			if IsPerfData(prefix) {
				return format.Sure
			}
			return format.No
		},
		Flags: flags,
		New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
			tp, err := text.New(opts, emit, diag)
			if err != nil {
				return nil, err
			}
			return &parser{text: tp, opt: Options{
				Symbols: SymbolOptions{Symfs: opts.String("symfs"), Kallsyms: opts.String("kallsyms")},
				TmpDir:  opts.String("tmpdir"),
			}}, nil
		},
	}
}

// NewParser returns a parser of perf.data inputs that hands the perf
// script text of each recording to text.
func NewParser(opt Options, text format.Parser) format.Parser {
	return &parser{text: text, opt: opt}
}

// parser gathers one recording's bytes (the reader splits them into
// lines; joined again with '\n' they are the file) and replays it at End.
// Up to gatherInMemory bytes are kept in memory, the rest in a
// temporary file, so a recording of any size stays within --mem.
type parser struct {
	text format.Parser
	opt  Options
	name string

	buf     bytes.Buffer
	tmp     *os.File
	started bool
	line    int
	script  []byte
}

var gatherInMemory = 32 << 20 // a variable for the tests

func (p *parser) Line(name string, n int, line []byte) error {
	if p.started {
		if err := p.write([]byte{'\n'}); err != nil {
			return err
		}
	}
	p.started, p.name = true, name
	return p.write(line)
}

func (p *parser) write(b []byte) error {
	if p.tmp == nil && p.buf.Len()+len(b) > gatherInMemory {
		f, err := os.CreateTemp(p.opt.TmpDir, "pfold-perfdata-*")
		if err != nil {
			return err
		}
		os.Remove(f.Name()) // gone when closed
		if _, err := f.Write(p.buf.Bytes()); err != nil {
			f.Close()
			return err
		}
		p.buf = bytes.Buffer{}
		p.tmp = f
	}
	if p.tmp != nil {
		_, err := p.tmp.Write(b)
		return err
	}
	p.buf.Write(b)
	return nil
}

func (p *parser) End() error {
	if !p.started {
		return nil
	}
	var ra io.ReaderAt
	var size int64
	if p.tmp != nil {
		defer p.tmp.Close()
		st, err := p.tmp.Stat()
		if err != nil {
			return err
		}
		ra, size = p.tmp, st.Size()
	} else {
		ra, size = bytes.NewReader(p.buf.Bytes()), int64(p.buf.Len())
	}
	name := p.name
	p.started, p.tmp, p.line = false, nil, 0
	_, err := ReplayAt(ra, size, p.opt, func(s *Sample, comm string, frames []Frame) error {
		p.script = AppendScript(p.script[:0], s, comm, frames)
		for b := p.script; len(b) > 0; {
			i := bytes.IndexByte(b, '\n')
			p.line++
			if err := p.text.Line(name, p.line, b[:i]); err != nil {
				return err
			}
			b = b[i+1:]
		}
		return nil
	})
	p.buf = bytes.Buffer{}
	if err != nil {
		return &nameError{name, err}
	}
	return p.text.End()
}

type nameError struct {
	name string
	err  error
}

func (e *nameError) Error() string { return e.name + ": " + e.err.Error() }
func (e *nameError) Unwrap() error { return e.err }
