package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

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

	for _, i := range order[:kept] {
		self, total := p.self.get(int(i)), p.total.get(int(i))
		fontsize := 10.0
		if maxSelf > 0 {
			fontsize += 28 * self.Float64() / maxSelf
		}
		label := fmt.Sprintf("%s\\n%s (%.1f%%)\\r", quote(string(p.names.Key(int32(i)))), self, p.percent(self))
		if compareCount(self, total) != 0 {
			label += fmt.Sprintf("of %s (%.1f%%)\\r", total, p.percent(total))
		}
		fmt.Fprintf(bw, "  n%d [fontsize=%.1f, penwidth=%.2f, label=\"%s\"];\n",
			node[i], fontsize, 0.5+2*p.percent(total)/100, label)
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
		// dot wants an integer weight; a share keeps huge counts from
		// overflowing its layout arithmetic.
		_, err := fmt.Fprintf(bw, "  n%d -> n%d [label=\"%s\", weight=%d, penwidth=%.2f];\n",
			from, to, w, 1+int(math.Round(99*share)), 0.5+2*share)
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

// quote escapes a frame name for a double-quoted DOT label: '"' and '\'
// (which starts graphviz escapes such as \n and \N), and bytes that are
// not UTF-8, which graphviz refuses.
func quote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsAny(s, "\"\\\r\n") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\r', '\n':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// comment makes a name safe inside a // comment line.
func comment(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(strings.ToValidUTF8(s, "\uFFFD"))
}
