package transform

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// FilterOptions configure Filter.
type FilterOptions struct {
	// Agg is the budget shared by the aggregations Filter needs.
	Agg stream.Options
	// NoMerge streams the transformed stacks out as they come, without
	// aggregating them again, even when a transform can make two stacks
	// equal; --top then keeps the heaviest lines.
	NoMerge bool
	// Names are the inputs fr reads, when the caller knows them; when
	// they are regular files, Filter may read them a second time.
	Names []string
	// Progress starts the line of each pass over the inputs ("first
	// pass" when Filter reads them twice, "" for the reading that does
	// the work).
	Progress stream.Passes
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
// end, the stream is aggregated there through a stream.Aggregator (sorted,
// summed, within the memory budget), unless opt.NoMerge. Without such a
// transform the stacks stream through in their input order.
//
// When opt.Names are regular files and fr has not been read, the first
// aggregation may be done by reading them twice instead (see
// filterSorted): sorted input, such as pfold's output, then costs the
// stream.Aggregator only the stacks the transforms rewrote.
func Filter(fr *stream.FoldedReader, ts []Transform, opt FilterOptions, emit func(stack []byte, c fold.Count) error) (FilterStats, error) {
	p := planFilter(ts, opt)
	if p.first >= 0 && canReadTwice(fr, ts[:p.first], opt.Names) {
		st, err := filterSorted(fr, ts, opt, p, emit)
		if err != errNotSorted {
			return st, err
		}
	}
	if fr.Lines == 0 {
		// A line of its own for the one pass, which counts the stacks
		// too.
		fr.CountInto(opt.Progress.Start(""))
	}
	st, ch := newChain(ts, p, emit, false)
	defer ch.close()
	err := feed(fr, ch.head, st)
	if err == nil {
		err = ch.head.flush()
	}
	return *st, err
}

// filterPlan says where a Filter aggregates.
type filterPlan struct {
	aggBefore []bool // before ts[i]; aggBefore[len(ts)]: at the end
	first     int    // the first i with aggBefore[i], or -1
	aggOpt    stream.Options
}

func planFilter(ts []Transform, opt FilterOptions) filterPlan {
	p := filterPlan{aggBefore: make([]bool, len(ts)+1), first: -1, aggOpt: opt.Agg}
	dirty := false
	for i, t := range ts {
		if t.Counts && dirty && !opt.NoMerge {
			p.aggBefore[i], dirty = true, false
		}
		if t.Merges {
			dirty = true
		}
	}
	p.aggBefore[len(ts)] = dirty && !opt.NoMerge
	naggs := 0
	for i, a := range p.aggBefore {
		if a {
			naggs++
			if p.first < 0 {
				p.first = i
			}
		}
	}
	if naggs > 1 {
		if p.aggOpt.Mem <= 0 {
			p.aggOpt.Mem = stream.DefaultMem
		}
		p.aggOpt.Mem /= int64(naggs)
	}
	return p
}

// chain is the sinks of a Filter, built from its end.
type chain struct {
	head  sink
	aggs  []*stream.Aggregator
	split *splitSink // in place of the first aggregation, when split
	rest  sink       // what the first aggregation feeds
}

func newChain(ts []Transform, p filterPlan, emit func([]byte, fold.Count) error, split bool) (*FilterStats, *chain) {
	st := &FilterStats{Stages: make([]StageStats, len(ts))}
	for i := range ts {
		st.Stages[i].Name = ts[i].Name
	}
	ch := &chain{}
	var next sink = &emitSink{st: st, emit: emit}
	for i := len(ts); i >= 0; i-- {
		if p.aggBefore[i] {
			a := stream.NewAggregator(p.aggOpt)
			ch.aggs = append(ch.aggs, a)
			if i == p.first && split {
				ch.rest = next
				ch.split = &splitSink{agg: a}
				next = ch.split
			} else {
				next = &aggSink{agg: a, next: next, st: st}
			}
		}
		if i == 0 {
			break
		}
		t := &ts[i-1]
		if t.Top > 0 {
			next = &topSink{top: NewTop(t.Top), next: next, stage: &st.Stages[i-1]}
		} else {
			next = &transformSink{t: t, next: next, stage: &st.Stages[i-1]}
		}
	}
	ch.head = next
	return st, ch
}

func (ch *chain) close() {
	for _, a := range ch.aggs {
		a.Close()
	}
}

// feed pushes the stacks of fr down the chain.
func feed(fr *stream.FoldedReader, head sink, st *FilterStats) error {
	for fr.Next() {
		c := fr.Count()
		st.InStacks++
		var err error
		if st.In, err = st.In.Add(c); err != nil {
			return fmt.Errorf("%s:%d: total count at stack %.80q: %w", fr.Name(), fr.Line(), fr.Stack(), err)
		}
		if err := head.push(fr.Stack(), c); err != nil {
			return fmt.Errorf("%s:%d: %w", fr.Name(), fr.Line(), err)
		}
	}
	return fr.Err()
}

// giveUpAfter is how many stacks the first pass of filterSorted reads
// before it gives up when the transforms left none unchanged.
const giveUpAfter = 4096

// errNotSorted ends the first pass of filterSorted.
var errNotSorted = errors.New("not sorted")

// canReadTwice reports whether filterSorted may read names: regular
// files, not read yet, whose malformed lines are not fatal (the first
// pass would not see them first), and transforms up to the first
// aggregation that see one stack at a time (no --top).
func canReadTwice(fr *stream.FoldedReader, before []Transform, names []string) bool {
	if len(names) == 0 || fr.Lines > 0 || fr.Strict() {
		return false
	}
	for _, t := range before {
		if t.Top > 0 {
			return false
		}
	}
	for _, n := range names {
		if !stream.Streamable(n) {
			return false
		}
	}
	return true
}

// filterSorted does the first aggregation of a Filter in two passes over
// the named files. The first pass applies the transforms before it and
// marks the stacks they left unchanged; only the stacks they rewrote go
// to the stream.Aggregator. When the unchanged stacks are in bytewise order, as
// in pfold's output, the second pass reads them again through fr, in
// order, and merges them with the stream.Aggregator's: the same stacks and sums
// as aggregating all, at the cost of a second read instead of hashing,
// sorting and spilling every stack. It returns errNotSorted, having
// emitted nothing, when the marked stacks are out of order, a count is
// a decimal (whose sums depend on the order of addition), or the first
// giveUpAfter stacks were all rewritten: Filter then aggregates as usual.
func filterSorted(fr *stream.FoldedReader, ts []Transform, opt FilterOptions, p filterPlan, emit func([]byte, fold.Count) error) (FilterStats, error) {
	st, ch := newChain(ts, p, emit, true)
	defer ch.close()
	split := ch.split
	take := func(stack []byte, c fold.Count, name string, line int) error {
		if c.Float {
			return errNotSorted
		}
		st.InStacks++
		var err error
		if st.In, err = st.In.Add(c); err != nil {
			return fmt.Errorf("%s:%d: total count at stack %.80q: %w", name, line, stack, err)
		}
		split.in = stack
		if err := ch.head.push(stack, c); err != nil {
			if err == errNotSorted {
				return err
			}
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		split.n++
		if split.n == giveUpAfter && split.marked == 0 {
			// The transforms rewrite every stack: all would go to
			// the stream.Aggregator anyway, and the second read is waste.
			return errNotSorted
		}
		return nil
	}
	// Malformed lines are skipped here and reported by the second pass,
	// through fr.
	prog := opt.Progress.Start("first pass")
	for _, name := range opt.Names {
		if err := stream.EachStack(name, prog, take); err != nil {
			return *st, err
		}
	}
	fr.CountInto(opt.Progress.Start(""))
	a := split.agg
	unchanged := &markedStacks{fr: fr, marks: split.marks, unique: !split.repeats}
	rewritten := a.Sorted()
	err := stream.Merge([]stream.Stacks{unchanged, rewritten}, ch.rest.push)
	rewritten.Close()
	// A file that changed between the reads shows in its stacks' order
	// (when they repeat) or in their number and length.
	changed := unchanged.n != split.n || unchanged.bytes != split.bytes
	if _, ok := err.(*stream.UnsortedError); ok || err == nil && changed {
		err = fmt.Errorf("%s changed between the two reads of filtering", displayName(fr))
	}
	if err != nil {
		return *st, err
	}
	st.Aggregations++
	st.Runs += a.Stats().Runs
	return *st, ch.rest.flush()
}

// splitSink takes the place of the first aggregation in the first pass
// of filterSorted. A stack equal to the input line's (in) is marked, to
// be read again in order; a rewritten one goes to the stream.Aggregator.
type splitSink struct {
	agg     *stream.Aggregator
	in      []byte   // the stack of the input line
	n       int64    // input stacks before this one
	marks   []uint64 // bit n: stack n reaches here unchanged
	marked  int64
	bytes   int64  // summed length of the marked stacks
	last    []byte // the last marked stack
	repeats bool   // a marked stack equals the one before it
}

func (s *splitSink) push(stack []byte, c fold.Count) error {
	if !bytes.Equal(stack, s.in) {
		return s.agg.Add(stack, c)
	}
	if s.marked > 0 {
		switch bytes.Compare(stack, s.last) {
		case -1:
			return errNotSorted
		case 0:
			s.repeats = true
		}
	}
	s.last = append(s.last[:0], stack...)
	s.marked++
	s.bytes += int64(len(stack))
	for int64(len(s.marks))*64 <= s.n {
		s.marks = append(s.marks, 0)
	}
	s.marks[s.n/64] |= 1 << (s.n % 64)
	return nil
}

func (s *splitSink) flush() error { return nil }

// markedStacks reads again the stacks marked by a splitSink, in order,
// each once with its summed count.
type markedStacks struct {
	fr    *stream.FoldedReader
	marks []uint64
	n     int64 // input stacks read
	bytes int64 // summed length of the marked stacks read
	// unique: no marked stack repeats the one before it, so each is
	// passed on as read, without looking ahead for repeats to sum.
	unique bool

	cur   []byte
	count fold.Count
	ahead bool // fr holds the first line of the next stack
	done  bool
	err   error
}

// nextMarked advances fr to the next marked stack.
func (m *markedStacks) nextMarked() bool {
	for m.fr.Next() {
		i := m.n
		m.n++
		if i/64 < int64(len(m.marks)) && m.marks[i/64]&(1<<(i%64)) != 0 {
			m.bytes += int64(len(m.fr.Stack()))
			return true
		}
	}
	m.err = m.fr.Err()
	return false
}

func (m *markedStacks) Next() bool {
	if m.done {
		return false
	}
	if !m.ahead && !m.nextMarked() {
		m.done = true
		return false
	}
	if m.unique {
		m.cur, m.count = m.fr.Stack(), m.fr.Count()
		return true
	}
	m.ahead = false
	m.cur = append(m.cur[:0], m.fr.Stack()...)
	m.count = m.fr.Count()
	for m.nextMarked() {
		switch bytes.Compare(m.fr.Stack(), m.cur) {
		case 0:
			sum, err := m.count.Add(m.fr.Count())
			if err != nil {
				m.err, m.done = fmt.Errorf("%s:%d: %w", m.fr.Name(), m.fr.Line(), err), true
				return false
			}
			m.count = sum
		case 1:
			m.ahead = true
			return true
		default:
			m.err, m.done = &stream.UnsortedError{Name: m.fr.Name(), Line: m.fr.Line()}, true
			return false
		}
	}
	m.done = true
	return m.err == nil
}

func (m *markedStacks) Stack() []byte     { return m.cur }
func (m *markedStacks) Count() fold.Count { return m.count }
func (m *markedStacks) Err() error        { return m.err }
func (m *markedStacks) Close() error      { return nil }

// A sink is one step of the Filter chain.
type sink interface {
	push(stack []byte, c fold.Count) error
	flush() error // the input has ended
}

type transformSink struct {
	t     *Transform
	buf   []byte // the transform's output, which the next sink reads
	next  sink
	stage *StageStats
}

func (s *transformSink) push(stack []byte, c fold.Count) error {
	out, keep := s.t.Apply(s.buf[:0], stack, c)
	if s.t.Merges && !sameStart(out, stack) {
		s.buf = out // keep the grown buffer, not the stack passed through
	}
	if !keep {
		return s.stage.drop(c)
	}
	return s.next.push(out, c)
}

func (s *transformSink) flush() error { return s.next.flush() }

// sameStart reports whether a and b start at the same byte in memory.
func sameStart(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

func (s *StageStats) drop(c fold.Count) error {
	s.Stacks++
	var err error
	s.Count, err = s.Count.Add(c)
	return err
}

type topSink struct {
	top   *Top
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
	agg  *stream.Aggregator
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
		return fmt.Errorf("total count at stack %.80q: %w", stack, err)
	}
	return s.emit(stack, c)
}

func (s *emitSink) flush() error { return nil }

// displayName is the name of fr's input in a message.
func displayName(fr *stream.FoldedReader) string {
	if fr.Name() == "" {
		return "-"
	}
	return fr.Name()
}
