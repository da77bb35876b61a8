package folded

import (
	"bytes"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// Format is folded stacks.
var Format = format.Format{
	Name:        "folded",
	Replaces:    "cat (folded stacks as every stackcollapse script writes them)",
	Description: "folded stacks",
	Sniff:       Sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

type parser struct {
	emit  format.EmitFunc
	diag  *stream.Diag
	lines int64
}

func (p *parser) Line(name string, n int, line []byte) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	stack, c, err := fold.ParseLine(bytes.TrimRight(line, "\r"))
	if err != nil {
		return p.diag.Malformed(name, n, line, err.Error())
	}
	p.lines++
	return p.emit(stack, c)
}

func (p *parser) End() error { return nil }

func (p *parser) Stats() string { return fmt.Sprintf("%d folded lines", p.lines) }

// sniffLines is how many data lines Sniff weighs at most.
const sniffLines = 64

// Sniff is sure of folded stacks when the data lines (up to 64) are
// "stack COUNT", unindented, and the stacks look like stacks: some hold
// a ';', or none has a space (a profile of one-frame stacks). Two
// syslog lines end in a number too, but have spaces and no ';'. A line
// in ten may be malformed (one in a small input): it is reported when
// folded.
func Sniff(prefix []byte) format.Score {
	lines := bytes.Split(prefix, []byte("\n"))
	if len(lines) > 1 && len(lines[len(lines)-1]) > 0 {
		lines = lines[:len(lines)-1] // possibly cut short
	}
	good, bad, semis, spaced := 0, 0, 0, 0
	for _, l := range lines {
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		stack, _, err := fold.ParseLine(l)
		switch {
		case l[0] == ' ' || l[0] == '\t' || err != nil:
			bad++
		case bytes.IndexByte(stack, fold.Sep) >= 0:
			good++
			semis++
		default:
			good++
			if bytes.ContainsAny(stack, " \t") {
				spaced++
			}
		}
		if good+bad == sniffLines {
			break
		}
	}
	if good > 0 && bad <= max(1, good/10) && (semis > 0 || spaced == 0) {
		return format.Sure
	}
	return format.No
}
