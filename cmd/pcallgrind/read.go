package main

import (
	"fmt"

	"github.com/pfold/pfold/callgrind"
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// stackBatch is a run of well-formed lines of one input.
type stackBatch struct {
	name   string
	data   []byte // the stacks, back to back
	ends   []int  // ends[i]: the end of stack i in data
	counts []fold.Count
	lines  []int
}

// stackBatchBytes is the size of a batch.
const stackBatchBytes = 256 << 10

// addAll adds every stack of fr to prof in order. Reading and parsing
// the lines (a fifth of the work on realistic profiles) runs on another
// goroutine, a batch of lines ahead.
func addAll(prof *callgrind.Profile, fr *stream.FoldedReader) error {
	const batches = 4
	free := make(chan *stackBatch, batches)
	for range batches {
		free <- &stackBatch{}
	}
	full := make(chan *stackBatch, batches)
	quit := make(chan struct{})
	go func() {
		defer close(full)
		var b *stackBatch
		for fr.Next() {
			if b != nil && (len(b.data) >= stackBatchBytes || fr.Name() != b.name) {
				full <- b // never blocks: there are as many slots as batches
				b = nil
			}
			if b == nil {
				select {
				case b = <-free:
				case <-quit:
					return
				}
				b.name = fr.Name()
				b.data, b.ends, b.counts, b.lines = b.data[:0], b.ends[:0], b.counts[:0], b.lines[:0]
			}
			b.data = append(b.data, fr.Stack()...)
			b.ends = append(b.ends, len(b.data))
			b.counts = append(b.counts, fr.Count())
			b.lines = append(b.lines, fr.Line())
		}
		if b != nil {
			full <- b
		}
	}()
	var err error
	for b := range full {
		start := 0
		for i := 0; err == nil && i < len(b.ends); i++ {
			if err = prof.Add(b.data[start:b.ends[i]], b.counts[i]); err != nil {
				err = fmt.Errorf("%s:%d: %w", b.name, b.lines[i], err)
				close(quit)
			}
			start = b.ends[i]
		}
		free <- b
	}
	if err != nil {
		return err
	}
	return fr.Err()
}
