package report

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/table"
	"github.com/pfold/pfold/stream"
)

// Frame is what a profile knows of one frame name.
type Frame struct {
	Name string
	// Self counts the samples whose leaf is this frame.
	Self fold.Count
	// Total counts the samples whose stack holds this frame, each stack
	// once however often the frame recurses in it.
	Total fold.Count
}

// Edge is a caller→callee pair of frames, by index in Profile.Frames,
// with the samples whose stack has the caller call the callee directly
// (once per stack, like Total).
type Edge struct {
	Caller, Callee int
	Weight         fold.Count
}

// Options bound the memory of a Profile.
type Options struct {
	// Mem is the memory budget in bytes (stream.DefaultMem when 0). The
	// frames (each distinct name once, numbered in order of appearance,
	// with its two counts: about 80 bytes a frame) are held in memory;
	// the call edges are summed in stream.Aggregators of an eighth of
	// Mem each, which spill sorted runs to TmpDir past it.
	Mem    int64
	TmpDir string
	// NoEdges keeps no call edges (ptop's report has none).
	NoEdges bool
}

// Profile sums folded stacks per frame name and per call edge.
type Profile struct {
	// Frames is every frame, in order of first appearance, for a Profile
	// made by New; NewBounded's keeps it empty (see Frame).
	Frames []Frame
	// Total is the sum of the counts of all stacks added.
	Total  fold.Count
	Stacks int64

	opt    Options
	mirror bool // keep Frames
	names  *table.Bytes
	self   counts
	total  counts
	path   []int32
	pairs  []uint64        // this stack's call edges so far
	pairOf map[uint64]bool // the same, for deep stacks
	anyDec bool            // a decimal count was added
	key    [8]byte

	edges    *stream.Aggregator // caller, callee (big-endian int32s) → weight
	done     bool               // edges summed: no more Add
	nEdges   int
	inMem    []edgeRec          // the edges in report order, when they fit
	ordered  *stream.Aggregator // or: report key → weight, spilled
	consumed bool               // ordered was read
	err      error
}

type edgeRec struct {
	caller, callee int32
	w              fold.Count
}

// New returns an empty Profile that also fills Frames, within the
// default budget.
func New() *Profile {
	p := NewBounded(Options{})
	p.mirror = true
	return p
}

// NewBounded returns an empty Profile within opt's budget; its Frames
// stays empty: use Len and Frame.
func NewBounded(opt Options) *Profile {
	if opt.Mem <= 0 {
		opt.Mem = stream.DefaultMem
	}
	return &Profile{opt: opt, names: new(table.Bytes),
		edges: stream.NewAggregator(stream.Options{Mem: opt.Mem / 8, TmpDir: opt.TmpDir})}
}

// Close removes what the Profile spilled to disk.
func (p *Profile) Close() error {
	err := p.edges.Close()
	if p.ordered != nil {
		if e := p.ordered.Close(); err == nil {
			err = e
		}
	}
	return err
}

// Len returns the number of distinct frames.
func (p *Profile) Len() int { return p.names.Len() }

// Frame returns frame i, in order of first appearance.
func (p *Profile) Frame(i int) Frame {
	return Frame{Name: string(p.names.Key(int32(i))), Self: p.self.get(i), Total: p.total.get(i)}
}

// ErrAdded is returned by Add after the profile was written.
var ErrAdded = errors.New("report: Add after the profile's call edges were read")

// Add adds a stack (frames joined by ';', root first) with count c. It
// fails only when an integer sum overflows.
func (p *Profile) Add(stack []byte, c fold.Count) error {
	if p.done {
		return ErrAdded
	}
	p.Stacks++
	var err error
	if p.Total, err = p.Total.Add(c); err != nil {
		return err
	}
	p.anyDec = p.anyDec || c.Float
	p.path = p.path[:0]
	fold.Frames(stack, func(name []byte) bool {
		id, added := p.names.Add(name)
		if added {
			p.self.grow()
			p.total.grow()
			if p.mirror {
				p.Frames = append(p.Frames, Frame{Name: string(name)})
			}
		}
		p.path = append(p.path, int32(id))
		return true
	})
	// Each frame's total and each call edge count once per stack.
	p.pairs = p.pairs[:0]
	clear(p.pairOf)
	for _, id := range p.path {
		if p.firstInStack(1<<63 | uint64(uint32(id))) {
			if err := p.total.add(int(id), c); err != nil {
				return err
			}
		}
	}
	for i := 1; i < len(p.path) && !p.opt.NoEdges; i++ {
		pair := uint64(uint32(p.path[i-1]))<<32 | uint64(uint32(p.path[i]))
		if p.firstInStack(pair) {
			binary.BigEndian.PutUint64(p.key[:], pair)
			if err := p.edges.Add(p.key[:], c); err != nil {
				return err
			}
		}
	}
	if n := len(p.path); n > 0 {
		err = p.self.add(int(p.path[n-1]), c)
	}
	if p.mirror {
		for _, id := range p.path {
			f := &p.Frames[id]
			f.Self, f.Total = p.self.get(int(id)), p.total.get(int(id))
		}
	}
	return err
}

// firstInStack reports whether pair (a call edge, or a frame with the top
// bit set) is new in this stack.
func (p *Profile) firstInStack(pair uint64) bool {
	if len(p.pairOf) == 0 && len(p.pairs) < 64 {
		if slices.Contains(p.pairs, pair) {
			return false
		}
		p.pairs = append(p.pairs, pair)
		return true
	}
	if p.pairOf == nil {
		p.pairOf = make(map[uint64]bool, 128)
	}
	if len(p.pairOf) == 0 { // the stack is deep: from a list to a map
		for _, q := range p.pairs {
			p.pairOf[q] = true
		}
	}
	if p.pairOf[pair] {
		return false
	}
	p.pairOf[pair] = true
	p.pairs = append(p.pairs, pair)
	return true
}

// finish sums the call edges and puts them in report order: heaviest
// first, then by caller and callee index. Edges that fit in the budget
// are kept in memory and can be read any number of times; otherwise
// they are sorted on disk and read once.
func (p *Profile) finish() error {
	if p.done {
		return p.err
	}
	p.done = true
	if p.edges.Stats().Runs == 0 {
		p.err = p.edges.Each(func(key []byte, w fold.Count) error {
			pair := binary.BigEndian.Uint64(key)
			p.inMem = append(p.inMem, edgeRec{int32(pair >> 32), int32(uint32(pair)), w})
			return nil
		})
		// The edges come by caller and callee: a stable sort by weight
		// makes the report order.
		slices.SortStableFunc(p.inMem, func(a, b edgeRec) int { return compareCount(b.w, a.w) })
		p.nEdges = len(p.inMem)
		return p.err
	}
	p.ordered = stream.NewAggregator(stream.Options{Mem: p.opt.Mem / 8, TmpDir: p.opt.TmpDir})
	var key []byte
	p.err = p.edges.Each(func(pair []byte, w fold.Count) error {
		p.nEdges++
		key = p.weightKey(key[:0], w)
		return p.ordered.Add(append(key, pair...), w)
	})
	return p.err
}

// eachEdge calls fn for every call edge in report order.
func (p *Profile) eachEdge(fn func(caller, callee int32, w fold.Count) error) error {
	if err := p.finish(); err != nil {
		return err
	}
	if p.ordered == nil {
		for _, e := range p.inMem {
			if err := fn(e.caller, e.callee, e.w); err != nil {
				return err
			}
		}
		return nil
	}
	if p.consumed {
		return errors.New("report: the call edges spilled to disk and were already written once")
	}
	p.consumed = true
	return p.ordered.Each(func(key []byte, w fold.Count) error {
		pair := binary.BigEndian.Uint64(key[8:])
		return fn(int32(pair>>32), int32(uint32(pair)), w)
	})
}

// weightKey appends 8 bytes that sort as weights do, heaviest first:
// the integer, or, once a decimal count was added, the float64 (which
// compareCount compares when either count is a decimal; two integers
// past 2^53 that round to one float64 then fall to the tie order).
func (p *Profile) weightKey(dst []byte, w fold.Count) []byte {
	v := w.N
	if p.anyDec {
		v = math.Float64bits(w.Float64()) // non-negative: the bits sort as the values
	}
	return binary.BigEndian.AppendUint64(dst, ^v)
}

// Edges returns the call edges, heaviest first.
func (p *Profile) Edges() []Edge {
	var es []Edge
	p.eachEdge(func(caller, callee int32, w fold.Count) error {
		es = append(es, Edge{Caller: int(caller), Callee: int(callee), Weight: w})
		return nil
	})
	return es
}

// EdgeCount returns the number of distinct call edges. The profile takes
// no more stacks afterwards.
func (p *Profile) EdgeCount() (int, error) {
	err := p.finish()
	return p.nEdges, err
}

// sorted returns the frame indexes sorted by self samples, most first,
// then by total and name; byTotal sorts by total first.
func (p *Profile) sorted(byTotal bool) []int32 {
	idx := make([]int32, p.Len())
	for i := range idx {
		idx[i] = int32(i)
	}
	// The comparison reads what it needs, in order: the counts are in
	// arrays the size of the profile, and each read is a cache miss.
	first, second := &p.self, &p.total
	if byTotal {
		first, second = second, first
	}
	slices.SortFunc(idx, func(i, j int32) int {
		if c := first.compareDesc(i, j); c != 0 {
			return c
		}
		if c := second.compareDesc(i, j); c != 0 {
			return c
		}
		return cmpBytes(p.names.Key(i), p.names.Key(j))
	})
	return idx
}

func cmpBytes(a, b []byte) int { return bytes.Compare(a, b) }

func compareCount(a, b fold.Count) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}

// percent returns c as a percentage of the profile's total.
func (p *Profile) percent(c fold.Count) float64 {
	t := p.Total.Float64()
	if t == 0 {
		return 0
	}
	return c.Float64() * 100 / t
}

// counts is a column of counts, 8 bytes each and a bit for the kind.
type counts struct {
	v   []uint64 // the integer, or the float64's bits
	dec []uint64 // bit i: count i is a decimal
}

func (c *counts) grow() {
	c.v = append(c.v, 0)
	if len(c.v) > 64*len(c.dec) {
		c.dec = append(c.dec, 0)
	}
}

// compareDesc compares counts i and j, the larger first.
func (c *counts) compareDesc(i, j int32) int {
	if c.dec[i/64]&(1<<(i%64)) == 0 && c.dec[j/64]&(1<<(j%64)) == 0 {
		return cmp.Compare(c.v[j], c.v[i])
	}
	return compareCount(c.get(int(j)), c.get(int(i)))
}

func (c *counts) get(i int) fold.Count {
	if c.dec[i/64]&(1<<(i%64)) != 0 {
		return fold.Dec(math.Float64frombits(c.v[i]))
	}
	return fold.Int(c.v[i])
}

func (c *counts) add(i int, d fold.Count) error {
	sum, err := c.get(i).Add(d)
	if err != nil {
		return err
	}
	if sum.Float {
		c.v[i] = math.Float64bits(sum.F)
		c.dec[i/64] |= 1 << (i % 64)
	} else {
		c.v[i] = sum.N
	}
	return nil
}
