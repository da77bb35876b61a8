package ljp

import (
	"bytes"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the lightweight-java-profiler input format.
var Format = format.Format{
	Name:     "ljp",
	Replaces: "stackcollapse-ljp.awk",
	Sniff:    sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

// unknown names the stack of a trace the profiler recorded without
// frames.
var unknown = []byte("[unknown]")

type parser struct {
	format.Passed // the lines after "Total"
	emit          format.EmitFunc
	diag          *stream.Diag

	open    bool       // a trace is being read
	count   fold.Count // its count
	frames  backtrace.Frames
	done    bool // the "Total" line was read: the rest of the input is not
	fields  [][]byte
	scratch []byte
	stack   []byte

	traces, unknowns int
	samples          fold.Count
}

func (p *parser) Line(name string, n int, line []byte) error {
	if p.done {
		if !reportLine(line) {
			return p.Pass()
		}
		return nil
	}
	line = lex.TrimCR(line)
	var stripped []byte
	stripped, p.scratch = stripLocation(line, p.scratch)
	p.fields = fields(p.fields[:0], stripped)
	f := p.fields
	switch {
	case len(f) == 0:
		return nil
	case string(f[0]) == "Total":
		p.done = true
		return p.flush()
	case len(f) == 3:
		c, err := fold.ParseCount(f[0])
		if err != nil || !isInt(f[1]) {
			return p.diag.Malformed(name, n, line, "not a trace's first line (COUNT NFRAMES FRAME)")
		}
		if err := p.flush(); err != nil {
			return err
		}
		p.open, p.count = true, c
		p.frames.Add(f[2])
		return nil
	case len(f) == 1 && !isBlank(line[0]) && lex.IsDigits(f[0]), len(f) == 2 && lex.IsDigits(f[0]) && isInt(f[1]):
		// A trace the profiler could not walk: "COUNT " (AsyncGetCallTrace
		// failed) or "COUNT 0 " (no frames).
		if err := p.flush(); err != nil {
			return err
		}
		c, err := fold.ParseCount(f[0])
		if err != nil {
			return p.diag.Malformed(name, n, line, err.Error())
		}
		p.unknowns++
		return p.emitCount(unknown, c)
	case len(f) == 1:
		if !p.open {
			return p.diag.Malformed(name, n, line, "a frame before any trace")
		}
		p.frames.Add(f[0])
		return nil
	}
	return p.diag.Malformed(name, n, line, "not a line of a lightweight-java-profiler trace")
}

// reportLine reports whether line, after "Total", is one of the
// profiler's report: a title ("Hot methods:", "Failures:", "Instances
// Reason") or a count and a method or a reason.
func reportLine(line []byte) bool {
	t := lex.TrimLeft(line)
	if d := lex.Digits(t); d > 0 && d < len(t) && lex.IsSpace(t[d]) {
		r := lex.TrimLeft(t[d:])
		return len(r) > 0 && (r[0] < '0' || r[0] > '9')
	}
	t = lex.TrimRight(t)
	return string(t) == "Hot methods:" || string(t) == "Failures:" || bytes.HasPrefix(t, []byte("Instances ")) && bytes.HasSuffix(t, []byte(" Reason"))
}

// flush emits the trace being read, outermost frame first.
func (p *parser) flush() error {
	if !p.open {
		return nil
	}
	p.stack = p.frames.AppendStack(p.stack[:0])
	p.open = false
	p.frames.Reset()
	p.traces++
	return p.emitCount(p.stack, p.count)
}

func (p *parser) emitCount(s []byte, c fold.Count) error {
	if c.IsZero() {
		return nil
	}
	if sum, err := p.samples.Add(c); err == nil {
		p.samples = sum
	}
	return p.emit(s, c)
}

func (p *parser) End() error {
	err := p.flush()
	p.done = false
	return err
}

func (p *parser) Stats() string {
	return fmt.Sprintf("%d traces, %s samples, %d traces without frames folded as [unknown]", p.traces+p.unknowns, p.samples, p.unknowns)
}

// stripLocation removes "(File.java:LINE)": from the first '(' to the
// last ')', as the script's gsub(/\(.*\)/, "") does.
// Something may follow the ')': then the two parts are joined in
// scratch, which is returned for reuse.
func stripLocation(line, scratch []byte) ([]byte, []byte) {
	i := bytes.IndexByte(line, '(')
	if i < 0 {
		return line, scratch
	}
	j := bytes.LastIndexByte(line, ')')
	if j < i {
		return line, scratch
	}
	if j == len(line)-1 {
		return line[:i], scratch
	}
	scratch = append(append(scratch[:0], line[:i]...), line[j+1:]...)
	return scratch, scratch
}

// fields splits as awk's default FS does: on runs of blanks and tabs.
func fields(dst [][]byte, b []byte) [][]byte {
	i := 0
	for {
		for i < len(b) && isBlank(b[i]) {
			i++
		}
		if i == len(b) {
			return dst
		}
		s := i
		for i < len(b) && !isBlank(b[i]) {
			i++
		}
		dst = append(dst, b[s:i])
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func isInt(b []byte) bool {
	if len(b) > 1 && b[0] == '-' {
		b = b[1:]
	}
	return lex.IsDigits(b)
}

// sniff is Sure on the profiler's traces: a trace's first line "COUNT
// NFRAMES frame(File:LINE)" followed by a calling frame's line or its
// end, or the "Total trace count = N, Total traces = M" line.
func sniff(prefix []byte) format.Score {
	var prev []byte
	havePrev := false
	for line := range format.Lines(prefix) {
		if bytes.HasPrefix(line, []byte("Total trace count = ")) && bytes.Contains(line, []byte(", Total traces = ")) {
			return format.Sure
		}
		if havePrev && isHeader(prev) && (len(line) == 0 || isFrameLine(line)) {
			return format.Sure
		}
		prev, havePrev = line, true
	}
	return format.No
}

// isHeader: "COUNT NFRAMES frame(…)".
func isHeader(line []byte) bool {
	f := fields(nil, line)
	return len(f) == 3 && lex.IsDigits(f[0]) && isInt(f[1]) && isLocated(f[2])
}

// isFrameLine: a calling frame, indented, "name(File:LINE)".
func isFrameLine(line []byte) bool {
	if len(line) == 0 || !isBlank(line[0]) {
		return false
	}
	f := fields(nil, line)
	return len(f) == 1 && isLocated(f[0])
}

func isLocated(f []byte) bool {
	i := bytes.IndexByte(f, '(')
	return i > 0 && bytes.IndexByte(f[i:], ':') > 0 && f[len(f)-1] == ')'
}
