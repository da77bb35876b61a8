package stream

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/pfold/pfold/fold"
)

// Options configure an Aggregator.
type Options struct {
	// Mem is the memory budget of the table in bytes (DefaultMem when 0).
	// When the table would grow past it, it is written to disk as a
	// sorted run and emptied.
	Mem int64
	// TmpDir is where runs are spilled ("" means $TMPDIR).
	TmpDir string
	// Aggregated says the stacks come summed already (folded stacks,
	// mostly each once), so that a table that mostly receives new ones
	// spills runs of 16 MiB, with room in the budget or not (see
	// aggregatedSpill). Should such a run not be written, the table goes
	// on in memory.
	Aggregated bool
}

// DefaultMem is the memory budget when none is given.
const DefaultMem = 256 << 20

// Aggregator sums counts of identical stacks within a memory budget and
// yields them sorted bytewise, merging whatever it spilled to disk. The
// output is byte-identical whether or not anything spilled.
type Aggregator struct {
	opt   Options
	t     *table
	dir   string   // spill directory, made on first spill
	runs  []string // spilled run files, oldest first
	stats Stats

	held         *sortedSource // a run of sorted stacks its maker holds (AddSorted)
	inserts      int64         // stacks new to the table since it last spilled
	addedAtSpill int64         // stats.Added when it last spilled
	filled       bool          // the table has spilled for want of room
	noEarly      bool          // an early spill with room in the budget failed
}

// Stats describe an aggregation.
type Stats struct {
	Added  int64      // stacks added
	Runs   int        // runs spilled to disk
	Unique int64      // distinct stacks yielded (known after Each)
	Total  fold.Count // sum of counts yielded (known after Each)
}

// NewAggregator returns an empty Aggregator.
func NewAggregator(opt Options) *Aggregator {
	if opt.Mem <= 0 {
		opt.Mem = DefaultMem
	}
	chunk := int(min(4<<20, max(4<<10, opt.Mem/8)))
	return &Aggregator{opt: opt, t: newTable(chunk)}
}

// Add adds c to the count of stack. The stack bytes are copied.
func (a *Aggregator) Add(stack []byte, c fold.Count) error {
	a.stats.Added++
	return a.add(stack, c)
}

// AddHash is Add for a caller that has hashed the stack already: h is
// its hash by internal/table.Hash.
func (a *Aggregator) AddHash(h uint64, stack []byte, c fold.Count) error {
	a.stats.Added++
	return a.addHash(h, stack, c)
}

// add is Add but for the count of stacks added.
func (a *Aggregator) add(stack []byte, c fold.Count) error {
	return a.addHash(hash(stack), stack, c)
}

func (a *Aggregator) addHash(h uint64, stack []byte, c fold.Count) error {
	t := a.t
	if e, _ := t.find(h, stack); e != nil {
		sum, err := e.count().Add(c)
		if err != nil {
			return fmt.Errorf("stack %.80q…: %w", stack, err)
		}
		e.setCount(sum)
		return nil
	}
	a.inserts++
	if len(t.entries) > 0 {
		full := t.size()+t.growthCost(len(stack)) > a.opt.Mem
		if !full && !a.filled && a.aggregatedSpill() {
			a.spillEarly()
		} else if full || a.seldomRepeat() {
			if err := a.spill(); err != nil {
				return err
			}
			a.filled = a.filled || full
		}
	}
	return t.add(h, stack, c)
}

// SortedRun is a run of distinct stacks in bytewise order that its
// maker holds in memory of its own: Next returns each in turn with its
// count, the stack valid until the next call, and ok false after the
// last. Added is how many stacks were summed into it: as many Adds, for
// Stats.
type SortedRun interface {
	Added() int64
	Next() (stack []byte, c fold.Count, ok bool)
}

// AddSorted adds the stacks of r, which stays valid until the stacks
// are yielded (Each) or the aggregator closed. They are not copied into
// the table: r is merged with it when the stacks are yielded, so a
// format that sums and sorts a recording itself (perf.data) does not
// pay for hashing and copying every stack's text again, nor for the
// table's memory. The aggregator holds one such run; the one it held
// before is added to the table stack by stack. A nil r only does that:
// a maker about to make another run calls it first, so that two runs'
// memory is never held at once.
func (a *Aggregator) AddSorted(r SortedRun) error {
	if old := a.held; old != nil {
		a.held = nil
		for {
			stack, c, ok := old.r.Next()
			if !ok {
				break
			}
			if err := a.add(stack, c); err != nil { // counted in Added already
				return err
			}
		}
	}
	if r != nil {
		a.stats.Added += r.Added()
		a.held = &sortedSource{r: r}
	}
	return nil
}

// earlySpill is the size past which a table that mostly receives new
// stacks is spilled before the budget is reached. Such a table gains
// little from growing (few of its stacks come again before it would
// spill anyway), and a small one is faster: each insert misses the caches
// less, and a run that fits in them sorts much faster. On a 2 GB dump of
// 5M distinct stacks (two workers, --mem 256MiB, so 64 MiB tables) the
// CPU time was 8.1, 8.4, 8.7 and 9.2 s with this at 4, 8, 16 and
// 32 MiB, and 9.8 s without it.
const earlySpill = 8 << 20

// seldomRepeat reports whether the table should spill early: it has
// filled its budget before (so the stacks do not all fit: stacks that
// fit are never spilled), it holds more than earlySpill, and three
// quarters of the stacks added since it last spilled were new to it.
func (a *Aggregator) seldomRepeat() bool {
	return a.filled && a.t.used() > earlySpill && a.mostlyNew()
}

// mostlyNew reports whether three quarters of the stacks added since the
// table last spilled were new to it.
func (a *Aggregator) mostlyNew() bool {
	return a.inserts*4 > (a.stats.Added-a.addedAtSpill)*3
}

// aggregatedSpill reports whether the table of an aggregated input
// (Options.Aggregated) should spill although the budget has room: it
// holds 16 MiB, three quarters of its stacks new. One table of all the
// stacks is slower than runs merged, from the index's and the sort's
// cache misses and the page faults of its growth: pflame on 1.55M
// distinct stacks (169 MB), 3 alternating runs, took 1.42 s in one
// table, 0.62, 0.68, 0.99 and 1.17 s spilling at 8, 16, 32 and 64 MiB;
// on high.txt's 1.25M stacks shuffled, 1.60 s against 1.08. Where the
// same stacks come again after a spill, the table cannot tell them from
// new ones: that file three times over took 2.89 s against 2.64, which
// is why other inputs (pfold's batches, which flush the same stacks
// over and over; pmerge's inputs) keep what fits in one table.
func (a *Aggregator) aggregatedSpill() bool {
	return a.opt.Aggregated && !a.noEarly && a.t.used() > 16<<20 && a.mostlyNew()
}

// spillEarly is spill for a table the budget has room for: should the
// run not be written (no temporary directory, a full disk), the table
// goes on in memory, and no early spill is tried again.
func (a *Aggregator) spillEarly() {
	if err := a.spill(); err != nil {
		if a.t.indexDead {
			a.t.reindex()
		}
		a.noEarly = true
	}
}

func (a *Aggregator) spill() error {
	if a.dir == "" {
		d, err := makeTempDir(a.opt.TmpDir)
		if err != nil {
			return fmt.Errorf("spill: %w", err)
		}
		a.dir = d
	}
	path := filepath.Join(a.dir, fmt.Sprintf("run-%06d.lz4", len(a.runs)))
	w, err := createRun(path)
	if err != nil {
		return err
	}
	es := a.t.sorted()
	for i := range es {
		// Sorted, the stacks are read from all over the arena: the next
		// ones are read together before these are written.
		if i%touchAhead == 0 {
			a.t.touch(es, i+touchAhead, 0)
		}
		e := &es[i]
		if err := w.write(a.t.key(e), e.count()); err != nil {
			w.close()
			os.Remove(path)
			return fmt.Errorf("spill %s: %w", path, err)
		}
	}
	if err := w.close(); err != nil {
		os.Remove(path)
		return err
	}
	a.runs = append(a.runs, path)
	a.stats.Runs++
	a.t.reset()
	a.inserts, a.addedAtSpill = 0, a.stats.Added
	return nil
}

// Stats returns what the aggregator has counted so far.
func (a *Aggregator) Stats() Stats { return a.stats }

// Each calls fn for every distinct stack in bytewise order with its summed
// count, merging spilled runs. The stack is valid only during the call.
// Each may be called once; Close must still be called.
func (a *Aggregator) Each(fn func(stack []byte, c fold.Count) error) error {
	return EachMerged([]*Aggregator{a}, fn)
}

// WriteTo writes every stack as a folded line, sorted.
func (a *Aggregator) WriteTo(w io.Writer) (int64, error) {
	var n int64
	buf := make([]byte, 0, 64<<10)
	err := a.Each(func(stack []byte, c fold.Count) error {
		buf = fold.AppendLine(buf, stack, c)
		if len(buf) >= 60<<10 {
			m, err := w.Write(buf)
			n += int64(m)
			buf = buf[:0]
			return err
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	m, err := w.Write(buf)
	return n + int64(m), err
}

// WriteMerged writes the union of aggs as sorted folded lines.
func WriteMerged(w io.Writer, aggs []*Aggregator) error {
	buf := make([]byte, 0, 64<<10)
	err := EachMerged(aggs, func(stack []byte, c fold.Count) error {
		buf = fold.AppendLine(buf, stack, c)
		if len(buf) >= 60<<10 {
			_, err := w.Write(buf)
			buf = buf[:0]
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// Close removes the spilled runs.
func (a *Aggregator) Close() error {
	a.held = nil
	if a.dir == "" {
		return nil
	}
	d := a.dir
	a.dir, a.runs = "", nil
	return removeTempDir(d)
}

// EachMerged is Each over the union of several aggregators (for example
// one per worker goroutine): identical stacks from different aggregators
// are summed. The stats of aggs[0] receive the totals.
func EachMerged(aggs []*Aggregator, fn func(stack []byte, c fold.Count) error) error {
	var srcs []source
	var runs []string
	budget := int64(0)
	spilled := false
	for _, a := range aggs {
		budget += a.opt.Mem
		if len(a.runs) > 0 {
			spilled = true
		}
	}
	// Each table is sorted (and, once anything spilled, written to disk
	// too, so the merge runs in the budget rather than on top of the full
	// tables) on its own goroutine: with one table per worker, the sorts
	// use every core as the folding did.
	errs := make([]error, len(aggs))
	var wg sync.WaitGroup
	for i, a := range aggs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if spilled && len(a.t.entries) > 0 {
				errs[i] = a.spill()
			} else if !spilled {
				a.t.sorted()
			}
		}()
	}
	wg.Wait()
	for i, a := range aggs {
		if errs[i] != nil {
			return errs[i]
		}
		if spilled {
			runs = append(runs, a.runs...)
			a.t.release()
		} else if len(a.t.entries) > 0 {
			srcs = append(srcs, &tableSource{t: a.t, entries: a.t.entries, i: -1})
		}
		if a.held != nil {
			srcs = append(srcs, a.held)
			a.held = nil
		}
	}
	if spilled {
		fanIn := int(max(8, budget/runReaderCost))
		var err error
		runs, err = aggs[0].reduceRuns(runs, fanIn)
		if err != nil {
			return err
		}
		for _, path := range runs {
			r, err := openRun(path)
			if err != nil {
				closeSources(srcs)
				return err
			}
			srcs = append(srcs, r)
		}
		defer closeSources(srcs)
	}
	st := &aggs[0].stats
	return merge(srcs, func(stack []byte, c fold.Count) error {
		st.Unique++
		var err error
		if st.Total, err = st.Total.Add(c); err != nil {
			return fmt.Errorf("total count at stack %.80q: %w", stack, err)
		}
		return fn(stack, c)
	})
}

// reduceRuns merges runs fanIn at a time until at most fanIn remain, so
// the final merge keeps its open readers within the memory budget.
func (a *Aggregator) reduceRuns(runs []string, fanIn int) ([]string, error) {
	if len(runs) > fanIn && a.dir == "" {
		// This aggregator spilled nothing itself (another one did): it
		// still needs a directory of its own for the merged runs.
		d, err := makeTempDir(a.opt.TmpDir)
		if err != nil {
			return nil, fmt.Errorf("spill: %w", err)
		}
		a.dir = d
	}
	for len(runs) > fanIn {
		group := runs[:fanIn]
		var srcs []source
		for _, p := range group {
			r, err := openRun(p)
			if err != nil {
				closeSources(srcs)
				return nil, err
			}
			srcs = append(srcs, r)
		}
		path := filepath.Join(a.dir, fmt.Sprintf("merged-%06d.lz4", len(a.runs)))
		a.runs = append(a.runs, path)
		w, err := createRun(path)
		if err != nil {
			closeSources(srcs)
			return nil, err
		}
		err = merge(srcs, w.write)
		closeSources(srcs)
		if e := w.close(); err == nil {
			err = e
		}
		if err != nil {
			return nil, err
		}
		for _, p := range group {
			os.Remove(p) // merged into path: give the disk back early
		}
		runs = append(runs[fanIn:], path)
	}
	return runs, nil
}

// A source yields stacks in bytewise order, each once.
type source interface {
	next() error // io.EOF at the end
	cur() ([]byte, fold.Count)
}

func (r *runReader) cur() ([]byte, fold.Count) { return r.stack, r.count }

// sortedSource is a SortedRun as a source.
type sortedSource struct {
	r     SortedRun
	stack []byte
	c     fold.Count
}

func (s *sortedSource) next() error {
	var ok bool
	if s.stack, s.c, ok = s.r.Next(); !ok {
		return io.EOF
	}
	return nil
}

func (s *sortedSource) cur() ([]byte, fold.Count) { return s.stack, s.c }

type tableSource struct {
	t       *table
	entries []entry
	i       int
}

func (s *tableSource) next() error {
	s.i++
	if s.i >= len(s.entries) {
		return io.EOF
	}
	return nil
}

func (s *tableSource) cur() ([]byte, fold.Count) {
	e := &s.entries[s.i]
	return s.t.key(e), e.count()
}

// sourceStacks is a source as Stacks, for Join.
type sourceStacks struct {
	s   source
	err error
}

func (x *sourceStacks) Next() bool {
	if err := x.s.next(); err != nil {
		if err != io.EOF {
			x.err = err
		}
		return false
	}
	return true
}

func (x *sourceStacks) Stack() []byte {
	stack, _ := x.s.cur()
	return stack
}

func (x *sourceStacks) Count() fold.Count {
	_, c := x.s.cur()
	return c
}

func (x *sourceStacks) Err() error   { return x.err }
func (x *sourceStacks) Close() error { return nil }

func closeSources(srcs []source) {
	for _, s := range srcs {
		if r, ok := s.(*runReader); ok {
			r.close()
		}
	}
}

// merge calls fn for each distinct stack of the sorted sources, in order,
// summing the counts of a stack found in several sources. Two sources
// must each hold a stack once, as tables and runs do; more may repeat
// one.
func merge(srcs []source, fn func([]byte, fold.Count) error) error {
	if len(srcs) == 2 {
		// Two tables of workers: walked side by side, one comparison a
		// stack, none copied (the heap below copies each stack to
		// compare the next ones with it).
		return mergeTwo(&sourceStacks{s: srcs[0]}, &sourceStacks{s: srcs[1]}, fn)
	}
	if len(srcs) == 1 {
		s := srcs[0]
		for {
			if err := s.next(); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			if err := fn(s.cur()); err != nil {
				return err
			}
		}
	}
	// A binary heap of the sources by their current stack, kept beside
	// each source so that a comparison is bytes.Compare and nothing else.
	h := make([]mergeNode, 0, len(srcs))
	for _, s := range srcs {
		if err := s.next(); err == io.EOF {
			continue
		} else if err != nil {
			return err
		}
		stack, c := s.cur()
		h = append(h, mergeNode{s: s, stack: stack, c: c})
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	var acc []byte
	for len(h) > 0 {
		c := h[0].c
		acc = append(acc[:0], h[0].stack...)
		for {
			var err error
			if h, err = advance(h); err != nil {
				return err
			}
			if len(h) == 0 || !bytes.Equal(h[0].stack, acc) {
				break
			}
			if c, err = c.Add(h[0].c); err != nil {
				return fmt.Errorf("stack %.80q…: %w", acc, err)
			}
		}
		if err := fn(acc, c); err != nil {
			return err
		}
	}
	return nil
}

type mergeNode struct {
	s     source
	stack []byte // s.cur(), valid until s moves on
	c     fold.Count
}

// advance moves the top source on, dropping it at its end, and restores
// the heap.
func advance(h []mergeNode) ([]mergeNode, error) {
	if err := h[0].s.next(); err == io.EOF {
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
	} else if err != nil {
		return h, err
	} else {
		h[0].stack, h[0].c = h[0].s.cur()
	}
	siftDown(h, 0)
	return h, nil
}

func siftDown(h []mergeNode, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && bytes.Compare(h[r].stack, h[l].stack) < 0 {
			m = r
		}
		if bytes.Compare(h[m].stack, h[i].stack) >= 0 {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
