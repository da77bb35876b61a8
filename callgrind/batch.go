package callgrind

import (
	"bytes"
	"errors"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/table"
	"github.com/pfold/pfold/stream"
)

// A Batch is stacks to add to a Profile in order (Profile.AddBatch),
// with the work that needs no Profile done as they are appended: each
// stack is cut into frames, and the frames it does not share with the
// stack before it are hashed and told plain (without location) or not.
// A command fills a Batch on one goroutine while a Profile adds the one
// before on another.
type Batch struct {
	data   []byte
	stacks []batchStack
	frames []batchFrame
	ends   []int // where each frame of the last stack ends, from its start
	// unknownEnds: the last stack's first frames, shared with a stack
	// before the batch, are not in ends.
	unknownEnds bool
}

type batchStack struct {
	start, end int // the stack is data[start:end]
	count      fold.Count
	// shared is the number of frames shared with the stack before in
	// the batch; -1 for the first, compared with the Profile's last.
	shared int
	// frames are its frames from shared on (all of them, for the
	// first), a span of Batch.frames.
	frames [2]int
}

type batchFrame struct {
	start, end int // the frame is data[start:end]
	hash       uint64
	plain      bool // no location and no leading space: a function of its own
}

// Reset empties the batch, keeping its memory.
func (b *Batch) Reset() {
	b.data, b.stacks, b.frames, b.ends = b.data[:0], b.stacks[:0], b.frames[:0], b.ends[:0]
	b.unknownEnds = false
}

// Len returns the number of stacks in the batch.
func (b *Batch) Len() int { return len(b.stacks) }

// Stack returns the i'th stack of the batch, valid until Reset.
func (b *Batch) Stack(i int) []byte {
	s := b.stacks[i]
	return b.data[s.start:s.end]
}

// Bytes returns the bytes of the stacks in the batch.
func (b *Batch) Bytes() int { return len(b.data) }

// Append adds c samples of stack, the next stack in input order, to the
// batch.
func (b *Batch) Append(stack []byte, c fold.Count) {
	if len(b.stacks) == 0 || b.unknownEnds {
		b.append(stack, c, -1, 0)
		return
	}
	// The frames shared with the stack before: those of its frames
	// (b.ends) that end within the bytes the two share, where this stack
	// ends a frame too.
	prev := &b.stacks[len(b.stacks)-1]
	n := stream.CommonPrefix(stack, b.data[prev.start:prev.end])
	d, pos := 0, 0
	for d < len(b.ends) && b.ends[d] < n {
		d++
	}
	if d > 0 {
		pos = b.ends[d-1] + 1
	}
	if d < len(b.ends) && b.ends[d] == n && pos < len(stack) && (n == len(stack) || stack[n] == fold.Sep) {
		d++
		pos = n + 1
	}
	b.append(stack, c, d, pos)
}

// append appends stack, whose first shared frames (-1: unknown) are
// shared with the stack before it and whose others start at pos.
func (b *Batch) append(stack []byte, c fold.Count, shared, pos int) {
	start := len(b.data)
	b.data = append(b.data, stack...)
	s := b.data[start:]
	st := batchStack{start: start, end: len(b.data), count: c, shared: shared}
	if b.unknownEnds = shared > len(b.ends); !b.unknownEnds {
		b.ends = b.ends[:max(shared, 0)]
	}
	st.frames[0] = len(b.frames)
	for pos < len(s) { // the frames as fold.Frames cuts them
		e := bytes.IndexByte(s[pos:], fold.Sep)
		if e < 0 {
			e = len(s)
		} else {
			e += pos
		}
		f := s[pos:e]
		b.frames = append(b.frames, batchFrame{start: start + pos, end: start + e, hash: table.Hash(f), plain: plain(f)})
		b.ends = append(b.ends, e)
		pos = e + 1
	}
	st.frames[1] = len(b.frames)
	b.stacks = append(b.stacks, st)
}

// plain reports whether frame f is a function of its own in
// UnknownFile: it has no location, and its name needs no trimming.
func plain(f []byte) bool {
	if len(f) == 0 || isSpace(f[0]) {
		return false
	}
	_, _, _, ok := SplitLocation(f)
	return !ok
}

// sharedFrames returns how many frames stack shares with prev, the
// stack before it, and where the first other frame of stack starts.
// The frames shared (from the root) are the same ongoing calls: those
// that end where a frame of prev ends, within the bytes the two share.
func sharedFrames(stack, prev []byte) (depth, pos int) {
	n := stream.CommonPrefix(stack, prev)
	// Every separator they share ends a frame of both.
	depth = bytes.Count(stack[:n], sep)
	pos = bytes.LastIndexByte(stack[:n], fold.Sep) + 1
	// The frame after may end where both end a frame.
	if pos < len(stack) && pos < len(prev) && (n == len(stack) || stack[n] == fold.Sep) && (n == len(prev) || prev[n] == fold.Sep) {
		depth++
		pos = n + 1
	}
	return depth, pos
}

var sep = []byte{fold.Sep}

// warmStacks is how many stacks AddBatch adds at a time, after reading
// the home slots of all their new frames at once: the cache misses of
// these reads overlap, where those of the lookups, one after the other,
// would not. (A read that misses holds up the instructions after it
// from completing; a few dozen of them in a row wait together.)
const warmStacks = 32

// AddBatch adds the stacks of b in order, as Add would one by one. It
// returns the number of stacks added: all of them, or those before the
// one whose error it returns.
func (p *Profile) AddBatch(b *Batch) (int, error) {
	for i := range b.stacks {
		if i%warmStacks == 0 && p.ext == nil {
			p.warm(b, i, min(i+warmStacks, len(b.stacks)))
		}
		if err := p.addStack(b, i); err != nil {
			if p.ext == nil {
				// Start the next stack afresh.
				p.pop(0)
				p.prev = p.prev[:0]
			}
			return i, err
		}
	}
	if p.ext == nil && len(b.stacks) > 0 {
		last := &b.stacks[len(b.stacks)-1]
		p.prev = append(p.prev[:0], b.data[last.start:last.end]...)
	}
	return len(b.stacks), nil
}

// warm reads the home slots of the new frames of stacks i to j of b.
func (p *Profile) warm(b *Batch, i, j int) {
	var sum int32
	for _, f := range b.frames[b.stacks[i].frames[0]:b.stacks[j-1].frames[1]] {
		sum += p.frameNames.Home(f.hash)
	}
	p.warmed = sum // a use of the reads, which the compiler would drop
}

// addStack adds stack i of b, the stack after the last one added.
func (p *Profile) addStack(b *Batch, i int) error {
	st := &b.stacks[i]
	stack, c := b.data[st.start:st.end], st.count
	if len(stack) == 0 {
		return errors.New("empty stack")
	}
	var err error
	if p.total, err = p.total.Add(c); err != nil {
		return err
	}
	if c.Float {
		p.dec = true
	}
	if p.ext != nil {
		return p.ext.add(stack, c)
	}
	frames := b.frames[st.frames[0]:st.frames[1]]
	shared := st.shared
	if shared < 0 {
		shared, _ = sharedFrames(stack, p.prev)
		frames = frames[shared:]
	}
	// The previous stack's calls from here on have returned.
	p.pop(shared)
	for _, f := range frames {
		p.push(b.data[f.start:f.end], f.hash, f.plain)
	}
	if err := p.addCosts(c); err != nil {
		return err
	}
	if p.opts.Mem > 0 && p.externalSize() > inMemoryLimit(p.opts.Mem) {
		return p.goExternal()
	}
	return nil
}
