package stream

import "sync/atomic"

// Progress counts what several readers of one pass read, for a progress
// line drawn from another goroutine: a program that reads its inputs
// through a reader each (pmerge's merge of sorted files, pdiff's two
// sides), mapped, read or decompressed, hands the same Progress to all of
// them (CountInto, CheckSorted) and shows the sums.
//
// The readers add to it a buffer or a mapped window at a time, and the
// stacks a batch at a time, never a line at a time: counting costs
// nothing measurable. A nil *Progress counts nothing.
type Progress struct {
	raw, data, stacks atomic.Int64
}

// Passes starts the progress line of each pass a program makes over its
// inputs (cmdutil.ProgressPass): phase says what the pass does ("" for
// the one that does the work), and the Progress returned, nil when no
// line is shown, counts it.
type Passes func(phase string) *Progress

// Start starts the line of the pass phase; a nil Passes shows none.
func (ps Passes) Start(phase string) *Progress {
	if ps == nil {
		return nil
	}
	return ps(phase)
}

// BytesRead returns the bytes read from the inputs themselves
// (compressed bytes for compressed inputs).
func (p *Progress) BytesRead() int64 { return p.raw.Load() }

// DataRead returns the bytes read after decompression: what the work is
// done on.
func (p *Progress) DataRead() int64 { return p.data.Load() }

// StacksRead returns the well-formed folded lines read.
func (p *Progress) StacksRead() int64 { return p.stacks.Load() }

// addBytes counts n bytes read of an uncompressed input (raw and data
// alike).
func (p *Progress) addBytes(n int64) {
	if p != nil {
		p.raw.Add(n)
		p.data.Add(n)
	}
}

// stacksBatch is how many stacks a reader reads before it adds them to
// its Progress.
const stacksBatch = 1024

// addStacks counts n well-formed lines read.
func (p *Progress) addStacks(n int64) {
	if p != nil {
		p.stacks.Add(n)
	}
}
