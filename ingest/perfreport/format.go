package perfreport

import (
	"bytes"
	"fmt"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is perf report's folded call chains (perf report -g folded), as
// Brendan Gregg's awk one-liner turns them into folded stacks.
var Format = format.Format{
	Name:        "perf-report",
	Replaces:    "perf report -g folded | awk",
	Description: "perf report -g folded output",
	Sniff:       Sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &formatParser{Parser: New(emit, diag)}, nil
	},
}

// formatParser forgets the layout at the end of each input and says what
// it read.
type formatParser struct{ *Parser }

func (p *formatParser) End() error { p.Reset(); return nil }
func (p *formatParser) Stats() string {
	st := p.Parser.Stats()
	return fmt.Sprintf("%d process entries, %d call chains", st.Comms, st.Chains)
}

// Sniff is sure of perf report's '#' column header ("# Overhead …",
// "# Children …", "# Samples: … of event"), or of a process entry
// ("    66.57%   452  comm") followed by a chain line "COUNT root;…".
func Sniff(prefix []byte) format.Score {
	lines := bytes.Split(prefix, []byte("\n"))
	entry := false
	for i, l := range lines {
		if i == len(lines)-1 && i > 0 {
			break // may be cut short
		}
		l = bytes.TrimRight(l, " \t\r")
		t := bytes.TrimLeft(l, " \t")
		switch {
		case len(t) == 0:
			continue
		case t[0] == '#':
			for _, p := range []string{"# Overhead", "# Children", "# Samples:"} {
				if bytes.HasPrefix(t, []byte(p)) {
					return format.Sure
				}
			}
			continue
		case isEntry(l):
			entry = true
			continue
		case entry && t[0] >= '0' && t[0] <= '9':
			if num, chain, ok := bytes.Cut(t, []byte(" ")); ok && lex.IsDigits(num) && len(chain) > 0 {
				return format.Sure
			}
		}
		return format.No
	}
	return format.No
}

// isEntry matches "    84.87%          5910  xz".
func isEntry(l []byte) bool {
	if len(l) == 0 || l[0] != ' ' && l[0] != '\t' {
		return false
	}
	tok, rest := nextField(l)
	return len(tok) > 1 && tok[len(tok)-1] == '%' && isDecimal(tok[:len(tok)-1]) && len(bytes.TrimSpace(rest)) > 0
}

// appendComm appends a process name with its spaces made '_', as perf
// script's are.
func appendComm(dst, comm []byte) []byte {
	for _, c := range comm {
		if c == ' ' {
			c = '_'
		}
		dst = append(dst, c)
	}
	return dst
}
