package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pfold/pfold/fold"
)

// DotOptions choose the nodes of the call graph.
type DotOptions struct {
	Limit int // keep at most this many nodes, by total; 0 means all
	// NodeFraction drops nodes whose total is below this fraction of all
	// samples (stackprof's --node-fraction); 0 keeps all.
	NodeFraction float64
	// CountName names what the counts are ("samples" when empty).
	CountName string
}

// maxListed bounds how many dropped frames a comment names.
const maxListed = 20

// WriteDot writes stackprof's graphviz report: a digraph with a node per
// frame name, labelled with its name, self samples and percentage and,
// when different, its total, with font size growing with the self share
// and border width with the total share; and an edge per caller→callee
// pair labelled with its samples. Nodes are taken by total, largest
// first, up to opt's limits; dropped nodes and edges are said in
// comments and in the legend.
func (p *Profile) WriteDot(w io.Writer, opt DotOptions) error {
	nEdges, err := p.EdgeCount()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	order := p.sorted(true)
	minTotal := 0.0
	if opt.NodeFraction > 0 {
		minTotal = math.Ceil(opt.NodeFraction * p.Total.Float64())
	}
	// Nodes are taken by total, largest first, while they pass both
	// limits: the dropped frames are the rest of the order.
	node := make([]int32, p.Len()) // frame index → node number, -1 when dropped
	kept := 0
	for _, i := range order {
		node[i] = -1
		if p.total.get(int(i)).Float64() < minTotal || opt.Limit > 0 && kept >= opt.Limit {
			continue
		}
		node[i] = int32(kept)
		kept++
	}
	dropped := order[kept:]
	for _, i := range dropped {
		if node[i] >= 0 {
			return errors.New("report: a dropped node before a kept one") // cannot happen: the order is by total
		}
	}
	var maxSelf float64
	for _, i := range order[:kept] {
		maxSelf = math.Max(maxSelf, p.self.get(int(i)).Float64())
	}

	name := opt.CountName
	if name == "" {
		name = "samples"
	}
	fmt.Fprintf(bw, "digraph profile {\n")
	fmt.Fprintf(bw, "  // %s %s in %d stacks: %d frames, %d call edges\n", p.Total, comment(name), p.Stacks, p.Len(), nEdges)
	if len(dropped) > 0 {
		var why []string
		if opt.Limit > 0 {
			why = append(why, fmt.Sprintf("--limit %d", opt.Limit))
		}
		if opt.NodeFraction > 0 {
			why = append(why, fmt.Sprintf("--node-fraction %g: total < %g", opt.NodeFraction, minTotal))
		}
		names := make([]string, 0, maxListed)
		for _, i := range dropped[:min(len(dropped), maxListed)] {
			names = append(names, comment(string(p.names.Key(int32(i)))))
		}
		more := ""
		if len(dropped) > maxListed {
			more = fmt.Sprintf(", and %d more", len(dropped)-maxListed)
		}
		fmt.Fprintf(bw, "  // dropped %d of %d nodes (%s): %s%s\n", len(dropped), p.Len(), strings.Join(why, ", "), strings.Join(names, ", "), more)
	}
	fmt.Fprintf(bw, "  Legend [shape=plaintext, fontsize=24, label=\"Total %s: %s\\l", quote(name), p.Total)
	if len(dropped) > 0 {
		fmt.Fprintf(bw, "Showing %d of %d nodes\\l", kept, p.Len())
	}
	if opt.NodeFraction > 0 {
		fmt.Fprintf(bw, "Dropped nodes with < %g %s\\l", minTotal, quote(name))
	}
	fmt.Fprintf(bw, "\"];\n")
	fmt.Fprintf(bw, "  node [shape=box];\n")

	// The nodes' and edges' lines are appended rather than printed:
	// a graph of every frame of a large profile has millions.
	var line []byte
	for _, i := range order[:kept] {
		self, total := p.self.get(int(i)), p.total.get(int(i))
		fontsize := 10.0
		if maxSelf > 0 {
			fontsize += 28 * self.Float64() / maxSelf
		}
		// "  n%d [fontsize=%.1f, penwidth=%.2f, label=\"%s\"];\n", the
		// label "NAME\n%s (%.1f%%)\r" and, when total differs from self,
		// "of %s (%.1f%%)\r".
		line = strconv.AppendInt(append(line[:0], "  n"...), int64(node[i]), 10)
		line = strconv.AppendFloat(append(line, " [fontsize="...), fontsize, 'f', 1, 64)
		line = strconv.AppendFloat(append(line, ", penwidth="...), 0.5+2*p.percent(total)/100, 'f', 2, 64)
		line = appendQuoted(append(line, ", label=\""...), p.names.Key(int32(i)))
		line = p.appendShare(append(line, "\\n"...), self)
		if compareCount(self, total) != 0 {
			line = p.appendShare(append(line, "of "...), total)
		}
		if _, err := bw.Write(append(line, "\"];\n"...)); err != nil {
			return err
		}
	}
	order = nil
	droppedEdges := 0
	err = p.eachEdge(func(caller, callee int32, w fold.Count) error {
		from, to := node[caller], node[callee]
		if from < 0 || to < 0 {
			droppedEdges++
			return nil
		}
		share := p.percent(w) / 100
		// "  n%d -> n%d [label=\"%s\", weight=%d, penwidth=%.2f];\n": dot
		// wants an integer weight; a share keeps huge counts from
		// overflowing its layout arithmetic.
		line = strconv.AppendInt(append(line[:0], "  n"...), int64(from), 10)
		line = strconv.AppendInt(append(line, " -> n"...), int64(to), 10)
		line = w.Append(append(line, " [label=\""...))
		line = strconv.AppendInt(append(line, "\", weight="...), int64(1+int(math.Round(99*share))), 10)
		line = strconv.AppendFloat(append(line, ", penwidth="...), 0.5+2*share, 'f', 2, 64)
		_, err := bw.Write(append(line, "];\n"...))
		return err
	})
	if err != nil {
		return err
	}
	if droppedEdges > 0 {
		fmt.Fprintf(bw, "  // dropped %d call edges to or from dropped nodes\n", droppedEdges)
	}
	fmt.Fprintf(bw, "}\n")
	return bw.Flush()
}

// appendShare appends "%s (%.1f%%)\r" of count c.
func (p *Profile) appendShare(dst []byte, c fold.Count) []byte {
	dst = strconv.AppendFloat(append(c.Append(dst), " ("...), p.percent(c), 'f', 1, 64)
	return append(dst, "%)\\r"...)
}

// appendQuoted appends name escaped for a double-quoted DOT label: '"'
// and '\' (which starts graphviz escapes such as \n and \N) escaped, line
// breaks as spaces, and bytes that are not UTF-8, which graphviz
// refuses, as U+FFFD.
func appendQuoted(dst, name []byte) []byte {
	if utf8.Valid(name) && !bytes.ContainsAny(name, "\"\\\r\n") {
		return append(dst, name...)
	}
	for _, r := range string(bytes.ToValidUTF8(name, []byte("\uFFFD"))) {
		switch r {
		case '"', '\\':
			dst = append(dst, '\\', byte(r))
		case '\r', '\n':
			dst = append(dst, ' ')
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst
}

// quote is appendQuoted for a string.
func quote(s string) string { return string(appendQuoted(nil, []byte(s))) }

// comment makes a name safe inside a // comment line.
func comment(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(strings.ToValidUTF8(s, "\uFFFD"))
}
