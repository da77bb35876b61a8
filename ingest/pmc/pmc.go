package pmc

import (
	"bytes"
	"strconv"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the pmcstat -G callgraph format.
var Format = format.Format{
	Name:     "pmc",
	Replaces: "stackcollapse-pmc.pl",
	Sniff:    sniff,
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{emit: emit, diag: diag}, nil
	},
}

// maxDepth bounds the tree's depth (pmcstat's -z is at most a few
// hundred): past it the input is not a callgraph.
const maxDepth = 1 << 12

// node is one line of the path being read: a function and its count,
// and the counts of its callers read so far.
type node struct {
	name    []byte
	count   uint64
	callers uint64
}

type parser struct {
	format.Passed // lines that are not a callgraph line or an event header
	emit          format.EmitFunc
	diag          *stream.Diag

	path  []node // path[0] is the sampled function, path[d] its caller at depth d
	names [][]byte
	stack []byte
}

// parseLine matches the script's m/^( *)[0-9.]+%  \[([0-9]+)\]\s*(\S+)/.
func parseLine(l []byte) (depth int, count, name []byte, ok bool) {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	depth = i
	j := i
	for j < len(l) && (l[j] >= '0' && l[j] <= '9' || l[j] == '.') {
		j++
	}
	if j == i || !bytes.HasPrefix(l[j:], []byte("%  [")) {
		return 0, nil, nil, false
	}
	j += 4
	k := j
	k += lex.Digits(l[k:])
	if k == j || k == len(l) || l[k] != ']' {
		return 0, nil, nil, false
	}
	count = l[j:k]
	k++
	for k < len(l) && lex.IsSpace(l[k]) {
		k++
	}
	e := k
	for e < len(l) && !lex.IsSpace(l[e]) {
		e++
	}
	if e == k {
		return 0, nil, nil, false
	}
	return depth, count, l[k:e], true
}

func (p *parser) Line(name string, n int, line []byte) error {
	depth, cnt, fn, ok := parseLine(line)
	if !ok {
		if len(line) > 0 && line[0] != '@' {
			return p.Pass()
		}
		return nil // "@ EVENT [N samples]", blank lines
	}
	if depth > len(p.path) {
		return p.diag.Malformed(name, n, line, "a caller more than one level below the line before it")
	}
	if depth >= maxDepth {
		return p.diag.Malformed(name, n, line, "a callgraph deeper than "+strconv.Itoa(maxDepth))
	}
	c, err := strconv.ParseUint(string(cnt), 10, 64)
	if err != nil {
		return p.diag.Malformed(name, n, line, "a count past 64 bits")
	}
	if err := p.pop(depth); err != nil {
		return err
	}
	for len(p.names) <= depth {
		p.names = append(p.names, nil)
	}
	p.names[depth] = append(p.names[depth][:0], fn...)
	p.path = append(p.path, node{name: p.names[depth], count: c})
	return nil
}

// pop closes the nodes of the path at depth and deeper, deepest first:
// each counts the samples whose chain ended there (all of a node with no
// callers, as the script counts it), and adds its count to its callee's
// callers.
func (p *parser) pop(depth int) error {
	for len(p.path) > depth {
		d := len(p.path) - 1
		nd := p.path[d]
		if nd.count > nd.callers {
			if err := p.flush(d, nd.count-nd.callers); err != nil {
				return err
			}
		}
		p.path = p.path[:d]
		if d > 0 {
			p.path[d-1].callers += nd.count
		}
	}
	return nil
}

// flush emits the path from its outermost caller at depth d to the
// sampled function.
func (p *parser) flush(d int, c uint64) error {
	s := p.stack[:0]
	for i := d; i >= 0; i-- {
		s = append(s, p.path[i].name...)
		if i > 0 {
			s = append(s, ';')
		}
	}
	p.stack = s
	return p.emit(s, fold.Int(c))
}

func (p *parser) End() error {
	return p.pop(0)
}

// sniff is Sure when every line is blank, a "@ EVENT [N samples]" header
// or a callgraph line ("NN.NN%  [count]  name"), the first such line at
// the top of a tree.
func sniff(prefix []byte) format.Score {
	entries := 0
	for l := range format.Lines(prefix) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if isHeader(l) {
			continue
		}
		depth, _, _, ok := parseLine(l)
		if !ok || entries == 0 && depth != 0 {
			return format.No
		}
		entries++
	}
	if entries > 0 {
		return format.Sure
	}
	return format.No
}

// isHeader matches "@ EVENT [N samples]".
func isHeader(l []byte) bool {
	if !bytes.HasPrefix(l, []byte("@ ")) || !bytes.HasSuffix(l, []byte(" samples]")) {
		return false
	}
	i := bytes.LastIndexByte(l, '[')
	return i > 2 && lex.IsDigits(l[i+1:len(l)-len(" samples]")])
}
