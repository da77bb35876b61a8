package xdebug

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/flags"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the Xdebug computerized function trace format.
var Format = format.Format{
	Name:     "xdebug",
	Replaces: "stackcollapse-xdebug.php",
	Sniff:    sniff,
	Flags: []format.Flag{
		flags.Time,
		{Name: "count", Aliases: []string{"c"}, Kind: format.Bool, Default: "false", Usage: "xdebug: count each call that made no call itself once, instead of weighing stacks by duration"},
	},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		if opts.Bool("time") && opts.Bool("count") {
			return nil, errors.New("xdebug: --time and --count exclude each other")
		}
		return &parser{emit: emit, diag: diag, count: opts.Bool("count")}, nil
	},
}

type parser struct {
	format.Passed // lines outside a trace (its header, other text)
	emit          format.EmitFunc
	diag          *stream.Diag
	count         bool

	inside  bool // between TRACE START and the trace's end
	seen    bool // a TRACE START in this input
	name    string
	lastN   int
	stack   []byte // names joined by ';', root first
	ends    []int  // ends[d] is len(stack) with frames 0..d
	prev    int64  // time of the last entry or exit, in nanoseconds
	wasExit bool
}

var (
	traceStart = []byte("TRACE START")
	traceEnd   = []byte("TRACE END")
)

func (p *parser) Line(name string, n int, line []byte) error {
	p.name, p.lastN = name, n
	line = lex.TrimCR(line)
	if !p.inside {
		if bytes.HasPrefix(line, traceStart) {
			p.inside, p.seen = true, true
			p.reset()
			return nil
		}
		if bytes.HasPrefix(line, traceEnd) {
			return nil // after the summary line
		}
		return p.Pass()
	}
	// The trace ends at its summary line (tabs, then the time and
	// memory at the end) or at TRACE END.
	if len(line) > 0 && line[0] == '\t' || bytes.HasPrefix(line, traceEnd) {
		p.inside = false
		p.reset()
		return nil
	}
	var f [6][]byte
	nf := split(line, &f)
	if nf < 3 {
		return p.diag.Malformed(name, n, line, "not a trace record (level, function number, 0 or 1, time, …)")
	}
	switch string(f[2]) {
	case "0":
		if nf < 6 || len(f[5]) == 0 {
			return p.diag.Malformed(name, n, line, "a function entry with no function name")
		}
		return p.enter(name, n, line, f[3], f[5])
	case "1":
		return p.exit(name, n, line, f[3])
	case "A", "R":
		return nil // an assignment, a return value
	}
	if string(f[1]) == "A" {
		return nil // an assignment with its tabs squeezed (the PHP script's sed -i)
	}
	return p.diag.Malformed(name, n, line, "not a function entry (0) or exit (1)")
}

func (p *parser) enter(name string, n int, line, tf, fn []byte) error {
	if p.count {
		p.push(fn)
		p.wasExit = false
		return nil
	}
	t, ok := parseTime(tf)
	if !ok {
		// The call is still entered, so that its exit matches it.
		p.push(fn)
		return p.diag.Malformed(name, n, line, fmt.Sprintf("the time %q is not a number of seconds", tf))
	}
	var err error
	if len(p.ends) > 0 {
		err = p.spent(name, n, line, t)
	}
	p.push(fn)
	p.prev = t
	return err
}

func (p *parser) exit(name string, n int, line, tf []byte) error {
	if p.count {
		if len(p.ends) == 0 {
			p.wasExit = true
			return p.diag.Malformed(name, n, line, "a function exit with no entry")
		}
		var err error
		if !p.wasExit {
			err = p.emit(p.stack, fold.Int(1))
		}
		p.pop()
		p.wasExit = true
		return err
	}
	if len(p.ends) == 0 {
		return p.diag.Malformed(name, n, line, "a function exit with no entry")
	}
	t, ok := parseTime(tf)
	if !ok {
		// The call still returns, so that the stack stays in step.
		p.pop()
		return p.diag.Malformed(name, n, line, fmt.Sprintf("the time %q is not a number of seconds", tf))
	}
	err := p.spent(name, n, line, t)
	p.pop()
	p.prev = t
	return err
}

// spent weighs the current stack with the time since the last entry or
// exit, in microseconds.
func (p *parser) spent(name string, n int, line []byte, t int64) error {
	d := t - p.prev
	if d < 0 {
		return p.diag.Malformed(name, n, line, "the time goes back")
	}
	c := fold.Int(uint64(d / 1000))
	if d%1000 != 0 {
		c = fold.Dec(float64(d) / 1000)
	}
	return p.emit(p.stack, c)
}

func (p *parser) push(fn []byte) {
	if len(p.ends) > 0 {
		p.stack = append(p.stack, ';')
	}
	p.stack = lex.AppendFrame(p.stack, fn)
	p.ends = append(p.ends, len(p.stack))
}

func (p *parser) pop() {
	p.ends = p.ends[:len(p.ends)-1]
	if len(p.ends) == 0 {
		p.stack = p.stack[:0]
	} else {
		p.stack = p.stack[:p.ends[len(p.ends)-1]]
	}
}

func (p *parser) reset() {
	p.stack, p.ends = p.stack[:0], p.ends[:0]
	p.prev, p.wasExit = 0, false
}

func (p *parser) End() error {
	var err error
	if !p.seen {
		err = p.diag.Malformed(p.name, p.lastN, nil, "no trace: no TRACE START line")
	}
	p.inside, p.seen = false, false
	p.reset()
	return err
}

// split cuts line at tabs into f, the first len(f) fields (the last
// holding the rest of the line up to its next tab), and returns how many
// fields it found.
func split(line []byte, f *[6][]byte) int {
	n := 0
	for n < len(f) {
		i := bytes.IndexByte(line, '\t')
		if i < 0 {
			f[n] = line
			return n + 1
		}
		f[n] = line[:i]
		line = line[i+1:]
		n++
	}
	return n
}

// parseTime reads seconds ("0.032073") as nanoseconds: digits, and up
// to nine after a point.
func parseTime(b []byte) (int64, bool) {
	var s int64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if i == 9 {
			return 0, false // past 30 years
		}
		s = s*10 + int64(b[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	ns := s * 1e9
	if i == len(b) {
		return ns, true
	}
	if b[i] != '.' || len(b)-i-1 > 9 {
		return 0, false
	}
	scale := int64(1e8)
	for _, c := range b[i+1:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		ns += int64(c-'0') * scale
		scale /= 10
	}
	return ns, true
}

// isRecord reports whether line is a computerized trace record: level,
// function number (empty for assignments), then 0, 1, A or R.
func isRecord(line []byte) bool {
	var f [6][]byte
	if split(line, &f) < 4 || !lex.IsDigits(f[0]) || len(f[1]) > 0 && !lex.IsDigits(f[1]) {
		return false
	}
	switch string(f[2]) {
	case "0", "1":
		_, ok := parseTime(f[3])
		return ok && len(f[1]) > 0
	case "A", "R":
		return true
	}
	return false
}

// sniff is Sure on a "TRACE START [" line followed by a computerized
// record, or by the trace's summary line (tabs, time, memory).
func sniff(prefix []byte) format.Score {
	started := false
	for line := range format.Lines(prefix) {
		if started {
			if isRecord(line) {
				return format.Sure
			}
			if t, ok := bytes.CutPrefix(line, []byte("\t\t\t")); ok {
				var f [6][]byte
				if split(t, &f) == 2 {
					if _, ok := parseTime(f[0]); ok && lex.IsDigits(f[1]) {
						return format.Sure
					}
				}
			}
		}
		started = bytes.HasPrefix(line, []byte("TRACE START ["))
	}
	return format.No
}
