package main

import (
	"fmt"
	"io"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
	"github.com/pfold/pfold/transform"
)

type sideOptions struct {
	agg      stream.Options
	diag     *stream.Diag
	conv     stream.CountFunc // applied to each line's count, or nil
	stripHex bool
	stdin    io.Reader
}

// side is one input of the diff as sorted stacks, with its total known
// before the first stack is written (for --normalize).
type side struct {
	stacks stream.Stacks
	total  fold.Count
	how    string // "streamed" or "aggregated"
	agg    *stream.Aggregator
}

// openSide reads a sorted regular file as a stream, after a first pass
// that checks the order and sums the counts. Anything else, and any input
// whose stacks --strip-hex rewrites, is aggregated first.
func openSide(name string, o sideOptions) (*side, error) {
	if !o.stripHex && stream.Streamable(name) {
		chk, err := stream.CheckSorted(name, o.conv, nil)
		if err != nil {
			return nil, err
		}
		if chk.Sorted {
			return &side{stacks: stream.NewSortedInput(name, o.diag, o.conv), total: chk.Total, how: "streamed"}, nil
		}
	}
	s := &side{agg: stream.NewAggregator(o.agg), how: "aggregated"}
	r := stream.NewReaderStdin([]string{name}, o.stdin)
	defer r.Close()
	fr := stream.NewFoldedReader(r, o.diag)
	var buf []byte
	for fr.Next() {
		stack, n := fr.Stack(), fr.Count()
		if o.conv != nil {
			n = o.conv(n)
		}
		if o.stripHex {
			buf = transform.AppendStripHex(buf[:0], stack)
			stack = buf
		}
		var err error
		if s.total, err = s.total.Add(n); err != nil {
			s.agg.Close()
			return nil, fmt.Errorf("%s:%d: total count at stack %.80q: %w", fr.Name(), fr.Line(), fr.Stack(), err)
		}
		if err := s.agg.Add(stack, n); err != nil {
			s.agg.Close()
			return nil, fmt.Errorf("%s:%d: %w", fr.Name(), fr.Line(), err)
		}
	}
	if err := fr.Err(); err != nil {
		s.agg.Close()
		return nil, err
	}
	s.stacks = s.agg.Sorted()
	return s, nil
}

func (s *side) close() {
	s.stacks.Close()
	if s.agg != nil {
		s.agg.Close()
	}
}
