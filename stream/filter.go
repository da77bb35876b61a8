package stream

import (
	"fmt"

	"github.com/pfold/pfold/fold"
)

// FilterOptions configure Filter.
type FilterOptions struct {
	// Agg is the budget shared by the aggregations Filter needs.
	Agg Options
	// NoMerge streams the transformed stacks out as they come, without
	// aggregating them again, even when a transform can make two stacks
	// equal; --top then keeps the heaviest lines.
	NoMerge bool
}

// StageStats count what one transform dropped.
type StageStats struct {
	Name   string
	Stacks int64      // stacks dropped
	Count  fold.Count // their summed count
}

// FilterStats describe a Filter.
type FilterStats struct {
	InStacks, OutStacks int64
	In, Out             fold.Count // summed counts read and written
	Aggregations        int        // times the stream was aggregated again
	Runs                int        // runs spilled by those aggregations
	Stages              []StageStats
}

// Filter reads folded stacks from fr, applies ts to each in order, and
// calls emit with the results. When a transform that can make two stacks
// equal (Merges) comes before one that looks at counts, or before the
// end, the stream is aggregated there through an Aggregator (sorted,
// summed, within the memory budget), unless opt.NoMerge. Without such a
// transform the stacks stream through in their input order.
func Filter(fr *FoldedReader, ts []fold.Transform, opt FilterOptions, emit func(stack []byte, c fold.Count) error) (FilterStats, error) {
	st := &FilterStats{Stages: make([]StageStats, len(ts))}
	for i := range ts {
		st.Stages[i].Name = ts[i].Name
	}

	// Plan where aggregations go, then build the chain from its end.
	aggBefore := make([]bool, len(ts)+1) // aggBefore[len(ts)]: at the end
	dirty := false
	for i, t := range ts {
		if t.Counts && dirty && !opt.NoMerge {
			aggBefore[i], dirty = true, false
		}
		if t.Merges {
			dirty = true
		}
	}
	aggBefore[len(ts)] = dirty && !opt.NoMerge
	naggs := 0
	for _, a := range aggBefore {
		if a {
			naggs++
		}
	}
	aggOpt := opt.Agg
	if naggs > 1 {
		if aggOpt.Mem <= 0 {
			aggOpt.Mem = DefaultMem
		}
		aggOpt.Mem /= int64(naggs)
	}

	var aggs []*Aggregator
	defer func() {
		for _, a := range aggs {
			a.Close()
		}
	}()
	var next sink = &emitSink{st: st, emit: emit}
	for i := len(ts); i >= 0; i-- {
		if aggBefore[i] {
			a := NewAggregator(aggOpt)
			aggs = append(aggs, a)
			next = &aggSink{agg: a, next: next, st: st}
		}
		if i == 0 {
			break
		}
		t := &ts[i-1]
		if t.Top > 0 {
			next = &topSink{top: fold.NewTop(t.Top), next: next, stage: &st.Stages[i-1]}
		} else {
			next = &transformSink{t: t, next: next, stage: &st.Stages[i-1]}
		}
	}

	for fr.Next() {
		c := fr.Count()
		st.InStacks++
		var err error
		if st.In, err = st.In.Add(c); err != nil {
			return *st, fmt.Errorf("%s:%d: total count: %w", fr.Name(), fr.Line(), err)
		}
		if err := next.push(fr.Stack(), c); err != nil {
			return *st, fmt.Errorf("%s:%d: %w", fr.Name(), fr.Line(), err)
		}
	}
	if err := fr.Err(); err != nil {
		return *st, err
	}
	err := next.flush()
	return *st, err
}

// A sink is one step of the Filter chain.
type sink interface {
	push(stack []byte, c fold.Count) error
	flush() error // the input has ended
}

type transformSink struct {
	t     *fold.Transform
	buf   []byte // the transform's output, which the next sink reads
	next  sink
	stage *StageStats
}

func (s *transformSink) push(stack []byte, c fold.Count) error {
	out, keep := s.t.Apply(s.buf[:0], stack, c)
	if s.t.Merges {
		s.buf = out // keep the grown buffer
	}
	if !keep {
		return s.stage.drop(c)
	}
	return s.next.push(out, c)
}

func (s *transformSink) flush() error { return s.next.flush() }

func (s *StageStats) drop(c fold.Count) error {
	s.Stacks++
	var err error
	s.Count, err = s.Count.Add(c)
	return err
}

type topSink struct {
	top   *fold.Top
	n     int64
	next  sink
	stage *StageStats
	total fold.Count
}

func (s *topSink) push(stack []byte, c fold.Count) error {
	s.n++
	var err error
	s.total, err = s.total.Add(c)
	s.top.Push(stack, c)
	return err
}

func (s *topSink) flush() error {
	kept := fold.Count{}
	entries := s.top.Entries()
	for _, e := range entries {
		kept, _ = kept.Add(e.Count)
		if err := s.next.push(e.Stack, e.Count); err != nil {
			return err
		}
	}
	s.stage.Stacks = s.n - int64(len(entries))
	s.stage.Count = subCount(s.total, kept)
	return s.next.flush()
}

// subCount returns a-b for a ≥ b.
func subCount(a, b fold.Count) fold.Count {
	if !a.Float && !b.Float {
		return fold.Int(a.N - b.N)
	}
	return fold.Dec(a.Float64() - b.Float64())
}

type aggSink struct {
	agg  *Aggregator
	next sink
	st   *FilterStats
}

func (s *aggSink) push(stack []byte, c fold.Count) error { return s.agg.Add(stack, c) }

func (s *aggSink) flush() error {
	if err := s.agg.Each(s.next.push); err != nil {
		return err
	}
	s.st.Aggregations++
	s.st.Runs += s.agg.Stats().Runs
	return s.next.flush()
}

type emitSink struct {
	st   *FilterStats
	emit func([]byte, fold.Count) error
}

func (s *emitSink) push(stack []byte, c fold.Count) error {
	s.st.OutStacks++
	var err error
	if s.st.Out, err = s.st.Out.Add(c); err != nil {
		return fmt.Errorf("total count: %w", err)
	}
	return s.emit(stack, c)
}

func (s *emitSink) flush() error { return nil }
