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
	prog     *stream.Progress // counts the reading, or nil
}

// side is one input of the diff as sorted stacks, with its total known
// before the first stack is written (for --normalize).
type side struct {
	stacks stream.Stacks
	total  fold.Count
	how    string // "streamed" or "aggregated"
	agg    *stream.Aggregator
}

// checkable reports whether the input name may be streamed, once a first
// pass (checkSide) has found it sorted: a regular file whose stacks
// --strip-hex does not rewrite.
func checkable(name string, o sideOptions) bool {
	return !o.stripHex && stream.Streamable(name)
}

// checkSide is the first pass over a checkable input: it checks the
// order and sums the counts, counting what it reads in prog. It returns
// nil when the stacks are not sorted.
func checkSide(name string, o sideOptions, prog *stream.Progress) (*stream.SortCheck, error) {
	chk, err := stream.CheckSorted(name, o.conv, prog)
	if err != nil || !chk.Sorted {
		return nil, err
	}
	return &chk, nil
}

// openSide reads a sorted regular file as a stream, when its first pass
// (checkSide) found it sorted and summed its counts in chk. Anything
// else, and any input whose stacks --strip-hex rewrites, is aggregated
// first.
func openSide(name string, chk *stream.SortCheck, o sideOptions) (*side, error) {
	if chk != nil {
		in := stream.NewSortedInput(name, o.diag, o.conv)
		in.CountInto(o.prog)
		return &side{stacks: in, total: chk.Total, how: "streamed"}, nil
	}
	s := &side{agg: stream.NewAggregator(o.agg), how: "aggregated"}
	r := stream.NewReaderStdin([]string{name}, o.stdin)
	defer r.Close()
	fr := stream.NewFoldedReader(r, o.diag)
	fr.CountInto(o.prog)
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
