package main

import (
	"fmt"

	"github.com/pfold/pfold/callgrind"
	"github.com/pfold/pfold/stream"
)

// stackBatch is a run of well-formed lines of one input.
type stackBatch struct {
	name  string
	b     callgrind.Batch
	lines []int
}

// stackBatchBytes is the size of a batch.
const stackBatchBytes = 256 << 10

// addAll adds every stack of fr to prof in order. Reading and parsing
// the lines, and cutting and hashing their frames (callgrind.Batch), run
// on another goroutine, a batch of lines ahead.
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
			if b != nil && (b.b.Bytes() >= stackBatchBytes || fr.Name() != b.name) {
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
				b.b.Reset()
				b.lines = b.lines[:0]
			}
			b.b.Append(fr.Stack(), fr.Count())
			b.lines = append(b.lines, fr.Line())
		}
		if b != nil {
			full <- b
		}
	}()
	var err error
	for b := range full {
		if err == nil {
			var i int
			if i, err = prof.AddBatch(&b.b); err != nil {
				err = fmt.Errorf("%s:%d: stack %.80q: %w", b.name, b.lines[i], b.b.Stack(i), err)
				close(quit)
			}
		}
		free <- b
	}
	if err != nil {
		return err
	}
	return fr.Err()
}
