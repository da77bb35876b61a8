package flame

import (
	"bytes"
	"errors"
	"io"

	"github.com/pfold/pfold/fold"
)

// Sorter sorts and sums stacks; stream.Aggregator is one. Each visits the
// keys bytewise-sorted, identical keys summed.
type Sorter interface {
	Add(key []byte, c fold.Count) error
	Each(fn func(key []byte, c fold.Count) error) error
}

// Keys given to the Sorter are the stack's frames joined by keySep, then
// 0x00 and a tag: keyAfter for the count drawn, keyBefore for the count
// of the baseline of a differential line. keySep sorts below every byte
// a name can hold, so the stacks under a frame are contiguous in sorted
// order ("f;g" before "f(int)"), which ';' would not guarantee.
const (
	keySep    = 0x01
	keyAfter  = 'a'
	keyBefore = 'b'
)

// ErrNoCounts is returned by Render when the input held no counts.
var ErrNoCounts = errors.New("no stack counts in input")

// Graph collects stacks and renders them.
type Graph struct {
	opt    Options
	sorter Sorter
	b      builder
	total  fold.Count
	diff   bool
	key    []byte
	chain  []byte
	stats  Stats
}

// Stats describe a rendered graph.
type Stats struct {
	Total   fold.Count // sum of the counts drawn
	Frames  int        // frames drawn, the root included
	Depth   int        // deepest frame drawn (the root is 0)
	Dropped int64      // frames left out as narrower than the minimum width
	// TotalIgnored says Options.Total was less than the counts' total
	// and not drawn.
	TotalIgnored bool
}

// Stats returns the statistics of the last Render.
func (g *Graph) Stats() Stats { return g.stats }

// New returns a Graph drawn with opt. Stacks go through sorter to be
// merged; a flame chart (opt.FlameChart) keeps input order and needs
// none.
func New(opt Options, sorter Sorter) (*Graph, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	if sorter == nil && !opt.FlameChart {
		return nil, errors.New("flame: a flame graph needs a Sorter")
	}
	g := &Graph{opt: opt, sorter: sorter}
	plot := float64(opt.Width - 2*xpad)
	mw := opt.MinWidth
	floor := opt.Total.Float64() // a --total above the counts' is the total drawn
	g.b.minWidth = func(total float64) float64 {
		total = max(total, floor)
		if mw.Percent {
			return total * mw.Value / 100
		}
		return mw.Value * total / plot
	}
	return g, nil
}

// Add adds a stack ("root;…;leaf") counted c.
func (g *Graph) Add(stack []byte, c fold.Count) error {
	return g.add(stack, c, c, false)
}

// AddDiff adds a stack of a differential profile: its count went from
// before to after. The graph draws after and colours by the change.
func (g *Graph) AddDiff(stack []byte, before, after fold.Count) error {
	return g.add(stack, before, after, true)
}

func (g *Graph) add(stack []byte, before, after fold.Count, diff bool) error {
	var err error
	if g.total, err = g.total.Add(after); err != nil {
		return err
	}
	g.diff = g.diff || diff
	if g.opt.Colors == "chain" {
		stack = g.markWakers(stack)
	}
	g.key = appendKey(g.key[:0], stack, g.opt.Reverse)
	if g.opt.FlameChart {
		delta := 0.0
		if diff {
			delta = after.Float64() - before.Float64()
		}
		g.b.add(g.key, keySep, after.Float64(), delta)
		return nil
	}
	n := len(g.key)
	g.key = append(g.key, 0, keyAfter)
	if err := g.sorter.Add(g.key, after); err != nil {
		return err
	}
	if diff || g.diff {
		// Once the input is differential, every stack records its
		// baseline, so a one-count line shows no change.
		g.key = append(g.key[:n], 0, keyBefore)
		return g.sorter.Add(g.key, before)
	}
	return nil
}

// appendKey appends stack's frames joined by keySep, leaf first when
// reverse. Bytes 0x00 and 0x01 in names (ParseLine refuses them) become
// '?' so they cannot break the key.
func appendKey(dst, stack []byte, reverse bool) []byte {
	start := len(dst)
	if !reverse {
		dst = append(dst, stack...)
	} else {
		for end := len(stack); ; {
			i := bytes.LastIndexByte(stack[:end], fold.Sep)
			dst = append(dst, stack[i+1:end]...)
			if i < 0 {
				break
			}
			dst = append(dst, fold.Sep)
			end = i
		}
	}
	key := dst[start:]
	if bytes.IndexByte(key, 0) >= 0 || bytes.IndexByte(key, keySep) >= 0 {
		for i, c := range key {
			if c == 0 || c == keySep {
				key[i] = '?'
			}
		}
	}
	// IndexByte is vectorized: much faster than a byte loop on long stacks.
	for i := bytes.IndexByte(key, fold.Sep); i >= 0; i = bytes.IndexByte(key, fold.Sep) {
		key[i] = keySep
		key = key[i+1:]
	}
	return dst
}

// markWakers annotates the frames after a "--" separator with "_[w]", the
// waker stack of a chain graph, which the chain palette colours aqua.
func (g *Graph) markWakers(stack []byte) []byte {
	i := bytes.Index(stack, []byte(";--;"))
	if i < 0 {
		return stack
	}
	g.chain = append(g.chain[:0], stack[:i+4]...)
	fold.Frames(stack[i+4:], func(f []byte) bool {
		if len(g.chain) > i+4 {
			g.chain = append(g.chain, fold.Sep)
		}
		g.chain = append(g.chain, f...)
		if !bytes.Equal(f, []byte("--")) && !bytes.HasSuffix(f, []byte("_[w]")) {
			g.chain = append(g.chain, "_[w]"...)
		}
		return true
	})
	return g.chain
}

// Render merges the stacks and writes the SVG to w. With no counts it
// writes an SVG saying so and returns ErrNoCounts. It calls the Sorter's
// Each, so it is called once.
func (g *Graph) Render(w io.Writer) error {
	if !g.opt.FlameChart {
		if err := g.drain(); err != nil {
			return err
		}
	}
	frames := g.b.finish()
	g.stats = Stats{Total: g.total, Frames: len(frames), Depth: frames[len(frames)-1].depth, Dropped: g.b.dropped}
	if g.total.IsZero() || len(frames) == 0 || !(frames[0].width > 0) {
		return errors.Join(writeEmpty(w, &g.opt), ErrNoCounts)
	}
	total := g.total
	switch t := g.opt.Total; {
	case t.IsZero():
	case g.total.Less(t):
		frames[0].width, total = t.Float64(), t // the root spans the width, as much as t
	case t.Less(g.total):
		g.stats.TotalIgnored = true
	}
	r := renderer{opt: &g.opt, frames: frames, total: total, diff: g.diff, maxDelta: max(g.b.maxDelta, 1), raw: g.opt.rawBytes()}
	return r.write(w)
}

// drain feeds the sorted stacks to the builder, pairing each stack's
// drawn count with its baseline.
func (g *Graph) drain() error {
	var (
		cur           []byte
		after, before float64
		hasBefore     bool
		pending       bool
	)
	flush := func() {
		if !pending {
			return
		}
		delta := 0.0
		if hasBefore {
			delta = after - before
		}
		g.b.add(cur, keySep, after, delta)
	}
	err := g.sorter.Each(func(key []byte, c fold.Count) error {
		if len(key) < 2 || key[len(key)-2] != 0 {
			return errors.New("flame: sorter returned a key it was not given")
		}
		stack, tag := key[:len(key)-2], key[len(key)-1]
		if !pending || !bytes.Equal(stack, cur) {
			flush()
			cur = append(cur[:0], stack...)
			after, before, hasBefore, pending = 0, 0, false, true
		}
		if tag == keyBefore {
			before += c.Float64()
			hasBefore = true
		} else {
			after += c.Float64()
		}
		return nil
	})
	flush()
	return err
}
