package flame

import (
	"bytes"
	"cmp"
	"slices"
)

// frame is one drawn box: a function at a depth (the root "all" is depth
// 0) spanning [start, start+width) in count units.
type frame struct {
	name  string
	depth int
	start float64
	width float64
	delta float64 // differential: change in the samples ending here
}

// openFrame is a frame of the current stack whose extent is not known
// yet: it ends when a stack that does not pass through it arrives.
type openFrame struct {
	name  []byte // reused across stacks, so opening a frame rarely allocates
	start float64
	delta float64
}

// builder merges stacks into frames the way flamegraph.pl's flow() does:
// it keeps only the frames of the current stack open, and a frame closes
// when the next stack leaves it. Consecutive stacks that share a prefix
// share its frames, so sorted input merges into a flame graph and input
// in time order draws a flame chart.
//
// Memory grows with the frames drawn, not the stacks read: a frame
// narrower than the minimum width is dropped when it closes. The minimum
// width in count units grows with the running total, so whatever is
// dropped early would be dropped at the end too, and the frames kept are
// pruned again whenever they double, bounding them by about
// depth × (plot width / minwidth) at any time.
type builder struct {
	minWidth func(total float64) float64 // narrowest frame kept, in counts, for a total
	time     float64                     // running total
	path     []openFrame                 // open frames, depth 1 first
	depth    int                         // open frames in use
	frames   []frame                     // closed frames kept
	pruned   int                         // len(frames) after the last pruning
	maxDelta float64                     // largest change of one stack (differential)
	dropped  int64                       // frames left out as too narrow
	parts    [][]byte
}

// add adds a stack whose frames are separated by sep, counting value,
// with delta the change of the count (differential graphs, else 0).
func (b *builder) add(stack []byte, sep byte, value, delta float64) {
	b.parts = b.parts[:0]
	for len(stack) > 0 {
		i := bytes.IndexByte(stack, sep)
		if i < 0 {
			b.parts = append(b.parts, stack)
			break
		}
		b.parts = append(b.parts, stack[:i])
		stack = stack[i+1:]
	}
	same := 0
	for same < b.depth && same < len(b.parts) && bytes.Equal(b.path[same].name, b.parts[same]) {
		same++
	}
	b.close(same)
	for _, name := range b.parts[same:] {
		if b.depth == len(b.path) {
			b.path = append(b.path, openFrame{})
		}
		f := &b.path[b.depth]
		f.name = append(f.name[:0], name...)
		f.start = b.time
		f.delta = 0
		b.depth++
	}
	if b.depth > 0 {
		b.path[b.depth-1].delta += delta
	}
	if d := max(delta, -delta); d > b.maxDelta {
		b.maxDelta = d
	}
	b.time += value
}

// close ends the open frames deeper than keep, keeping those wide enough.
func (b *builder) close(keep int) {
	if b.depth <= keep {
		return
	}
	minWidth := b.minWidth(b.time)
	for b.depth > keep {
		b.depth--
		f := &b.path[b.depth]
		if w := b.time - f.start; w < minWidth || !(w > 0) {
			b.dropped++
		} else {
			b.frames = append(b.frames, frame{
				name:  string(f.name),
				depth: b.depth + 1,
				start: f.start,
				width: w,
				delta: f.delta,
			})
		}
	}
	if len(b.frames) > 2*b.pruned+4096 {
		b.prune(minWidth)
	}
}

// prune drops the kept frames narrower than minWidth.
func (b *builder) prune(minWidth float64) {
	n := len(b.frames)
	b.frames = slices.DeleteFunc(b.frames, func(f frame) bool { return f.width < minWidth })
	b.dropped += int64(n - len(b.frames))
	b.pruned = len(b.frames)
}

// finish closes every frame and returns the frames to draw, the root
// first, then by depth and position.
func (b *builder) finish() []frame {
	b.close(0)
	b.prune(b.minWidth(b.time))
	frames := append(b.frames, frame{name: "all", start: 0, width: b.time})
	slices.SortFunc(frames, func(x, y frame) int {
		if c := cmp.Compare(x.depth, y.depth); c != 0 {
			return c
		}
		return cmp.Compare(x.start, y.start)
	})
	b.frames = nil
	return frames
}
