package perfscript

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/internal/table"
	"github.com/pfold/pfold/stream"
)

// FoldChunks folds the chunks of ch on len(aggs) goroutines,
// one parser and one aggregator each; merge the aggregators with
// stream.EachMerged. Chunks end at sample boundaries, so the result is
// the same as a serial fold: the event filter, when not given, is the
// first event of the input, found before the workers start. Each parser
// is flushed at the end, so opt.Batch may be set.
func FoldChunks(ch *stream.Chunker, opt Options, diag *stream.Diag, aggs []*stream.Aggregator) (Stats, error) {
	// Lines are numbered by the parsers rather than by the Chunker, which
	// would count every chunk on the goroutine that cuts them: they count
	// as they go, and learn where their chunk starts only for a message.
	ch.DeferLines()
	ledger := newLineLedger()
	first, err := ch.Next()
	if err == io.EOF {
		return Stats{}, nil
	}
	if err != nil {
		return Stats{}, err
	}
	if opt.EventFilter == "" {
		if err := stream.CatchFault(first.Name, func() error {
			opt.EventFilter = firstEvent(first.Data)
			opt.firstEvent = true
			return nil
		}); err != nil {
			ch.Release(first)
			return Stats{}, err
		}
	}
	if opt.Range != nil {
		// The window counts from the input's first time, which only the
		// first chunk's parser would see.
		var start float64
		var found bool
		if err := stream.CatchFault(first.Name, func() error {
			start, found = firstTime(first.Data, opt.Range)
			return nil
		}); err != nil {
			ch.Release(first)
			return Stats{}, err
		}
		if !found {
			ch.Release(first)
			return Stats{}, fmt.Errorf("%s: --range: %s", first.Name, noTimeMsg)
		}
		opt.rangeStart = &start
	}
	if opt.Inline && opt.inl == nil {
		// One for the workers, with every complaint of addr2line.
		opt.inl = newInliner(opt.Context, opt.Warn)
		defer opt.inl.close()
	}
	if opt.Warn != nil {
		opt.Warn = &onceWriter{w: opt.Warn}
	}

	// The workers tell the progress counter what they folded once a
	// chunk: an atomic add a sample, on a counter they share, had their
	// cores fight over its cache line (a fifth of the CPU of two workers
	// on short stacks).
	folded := opt.Folded
	opt.Folded = nil

	work := make(chan *stream.Chunk, len(aggs))
	parsers := make([]*Parser, len(aggs))
	errs := make([]error, len(aggs))
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i, agg := range aggs {
		parsers[i] = New(opt, agg.Add, diag)
		parsers[i].ledger = ledger
		wg.Add(1)
		go func(p *Parser, errp *error) {
			defer wg.Done()
			told := int64(0) // samples added to folded
			for c := range work {
				lines := -1
				if *errp == nil {
					if *errp = stream.CatchFault(c.Name, func() error { return foldChunk(p, c) }); *errp != nil {
						stop.Store(true)
					} else {
						lines = p.chunkLines
					}
				}
				if n := p.stats.Samples; folded != nil && n != told {
					folded.Add(n - told)
					told = n
				}
				if c.Line == 0 {
					if lines < 0 {
						// Not parsed (or not to its end): counted, so
						// that the parsers of the chunks after it may
						// still number their lines.
						lines = 0
						stream.CatchFault(c.Name, func() error {
							lines = bytes.Count(c.Data, []byte{'\n'})
							return nil
						})
					}
					ledger.done(c.Seq, c.First, lines)
				}
				ch.Release(c)
			}
			if *errp == nil && len(aggs) == 1 {
				*errp = p.Flush()
			}
		}(parsers[i], &errs[i])
	}

	var readErr error
	for c := first; ; {
		if c.First && opt.Refuse != nil {
			if readErr = stream.CatchFault(c.Name, func() error {
				return opt.Refuse(c.Name, c.Data[:min(len(c.Data), format.SniffSize)])
			}); readErr != nil {
				ch.Release(c)
				break
			}
		}
		work <- c
		if c, readErr = ch.Next(); readErr != nil {
			break
		}
		if stop.Load() {
			ch.Release(c)
			break
		}
	}
	close(work)
	wg.Wait()
	if len(aggs) > 1 && readErr == io.EOF && !stop.Load() {
		flushParts(parsers, aggs, errs)
	}

	var st Stats
	for _, p := range parsers {
		s := p.Counts()
		st.Samples += s.Samples
		st.Filtered += s.Filtered
		st.Skipped += s.Skipped
		st.Bare += s.Bare
		st.Empty += s.Empty
		st.Outside += s.Outside
		st.Untimed += s.Untimed
		st.Ranged = s.Ranged
		st.span.merge(s.span)
		st.Events = max(st.Events, s.Events)
		if st.Event == "" {
			st.Event = s.Event
		}
		for ev, n := range s.EventCounts {
			if st.EventCounts == nil {
				st.EventCounts = map[string]int64{}
			}
			st.EventCounts[ev] += n
		}
	}
	for _, err := range errs {
		if err != nil {
			return st, err
		}
	}
	if readErr != io.EOF {
		return st, readErr
	}
	return st, nil
}

// flushParts flushes the parsers' batches at the end of FoldChunks. The
// workers' sample tables hold much the same stacks, and a stack in
// several aggregators is stored, sorted and merged once in each: so each
// stack goes to the aggregator its hash picks. Worker i adds the stacks
// of its own table that are its to its aggregator and notes the others;
// then it adds the stacks the others noted for it, and its parser's
// other batch.
func flushParts(parsers []*Parser, aggs []*stream.Aggregator, errs []error) {
	n := len(parsers)
	type noted struct {
		off int
		h   uint64
	}
	notes := make([][][]noted, n) // by worker, then by the worker it is for
	bufs := make([][]byte, n)
	var wg sync.WaitGroup
	each := func(work func(i int) error) {
		for i := range parsers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if errs[i] == nil {
					errs[i] = work(i)
				}
			}()
		}
		wg.Wait()
	}
	each(func(i int) error {
		notes[i] = make([][]noted, n)
		return parsers[i].sampleRecords(&bufs[i], func(off int, stack []byte, sum uint64) error {
			h := table.Hash(stack)
			if j := int(h % uint64(n)); j != i {
				notes[i][j] = append(notes[i][j], noted{off, h})
				return nil
			}
			return aggs[i].AddHash(h, stack, fold.Int(sum))
		})
	})
	each(func(i int) error {
		for k, q := range parsers {
			if notes[k] == nil {
				continue // its worker failed before it took notes
			}
			for _, r := range notes[k][i] {
				stack, sum := q.sampleRecord(&bufs[i], r.off)
				if err := aggs[i].AddHash(r.h, stack, fold.Int(sum)); err != nil {
					return err
				}
			}
		}
		if p := parsers[i]; p.batch != nil && p.batch.Len() > 0 {
			return p.flushBatch()
		}
		return nil
	})
}

func foldChunk(p *Parser, c *stream.Chunk) error {
	data, n := c.Data, c.Line
	p.chunk = nil
	if n == 0 {
		// Lines numbered from the chunk's start, the ledger knowing where
		// that is (see FoldChunks).
		n, p.chunk = 1, c
	}
	start := n
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		before := p.diag.Count()
		err := p.Line(c.Name, n, line)
		if p.diag.Count() != before && p.opt.Mixed != nil && p.mixedChecks < maxMixedChecks {
			p.mixedChecks++
			window := c.Data[len(c.Data)-len(data)-len(line)-min(1, len(data)):]
			if mixed := p.opt.Mixed(c.Name, p.lineNo(n), window); mixed != nil {
				return mixed
			}
		}
		if err != nil {
			return err
		}
		n++
		if p.inSample && !p.skip && !p.opt.Srcline && len(data) > 0 && (data[0] == '\t' || data[0] == ' ' && !p.headerAfterHeader(data)) {
			if p.samplePath() {
				rest, lines, ok, err := p.sample(data)
				if err != nil {
					return err
				}
				if ok {
					data, n = rest, n+lines
					continue
				}
			}
			var err error
			if data, n, err = p.frameRun(c.Name, n, data); err != nil {
				return err
			}
		}
	}
	p.chunkLines = n - start
	err := p.End()
	p.chunk = nil
	return err
}

// lineLedger knows where each chunk's lines start in its input, from the
// number of lines of the chunks before it, as their parsers finish them.
type lineLedger struct {
	mu     sync.Mutex
	cond   sync.Cond
	counts []int // by Seq: the chunk's lines, -1 until it is done
	first  []bool
	bases  []int // by Seq: the number of its first line, below upto
	upto   int   // every chunk below is done
}

func newLineLedger() *lineLedger {
	l := &lineLedger{}
	l.cond.L = &l.mu
	return l
}

// done records that chunk seq, of lines lines, is done.
func (l *lineLedger) done(seq int, first bool, lines int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.counts) <= seq {
		l.counts, l.first = append(l.counts, -1), append(l.first, false)
	}
	l.counts[seq], l.first[seq] = lines, first
	for l.upto < len(l.counts) && l.counts[l.upto] >= 0 {
		b := 1
		if l.upto > 0 && !l.first[l.upto] {
			b = l.bases[l.upto-1] + l.counts[l.upto-1]
		}
		l.bases = append(l.bases, b)
		l.upto++
	}
	l.cond.Broadcast()
}

// base returns the number of the first line of chunk seq, waiting for
// the chunks before it to be done. Chunks are handed out in order, so
// they are all being parsed: the waits end.
func (l *lineLedger) base(seq int, first bool) int {
	if first {
		return 1
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.upto < seq {
		l.cond.Wait()
	}
	return l.bases[seq-1] + l.counts[seq-1]
}

// lineNo returns the number in its input of line n of the chunk being
// folded.
func (p *Parser) lineNo(n int) int {
	if p.chunk == nil || p.ledger == nil {
		return n
	}
	return p.ledger.base(p.chunk.Seq, p.chunk.First) + n - 1
}

// malformed is diag.Malformed with the line numbered in its input.
func (p *Parser) malformed(name string, n int, line []byte, why string) error {
	if p.chunk != nil && p.diag.Shows() {
		n = p.lineNo(n)
	}
	return p.diag.Malformed(name, n, line, why)
}

// maxMixedChecks bounds how many malformed lines a worker asks
// Options.Mixed about.
const maxMixedChecks = 8

// frameRun folds the frame lines at the start of data, the rest of a
// sample whose header has been read, and returns what follows them. It
// does what Line would, but hashes the sample's lines and warms the frame
// cache for all of them before looking any up: the lookups' cache misses
// then overlap. Every indented line that is not blank is a frame line
// here, as in Line, since --srcline is off.
func (p *Parser) frameRun(name string, n int, data []byte) ([]byte, int, error) {
	lines, keys, hs := p.runLines[:0], p.runKeys[:0], p.runHashes[:0]
	java := p.java()
	rest := data
	for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') && len(lines) < 256 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i]
		}
		key := trimSpace(line)
		if len(key) == 0 {
			break // a blank line ends the sample: Line's business
		}
		lines, keys, hs = append(lines, line), append(keys, key), append(hs, hashLine(java, key))
		rest = rest[min(len(line)+1, len(rest)):]
	}
	p.runLines, p.runKeys, p.runHashes = lines, keys, hs
	p.warmSum += p.cache.warm(hs)
	for i, line := range lines {
		if err := p.frameKey(name, n, line, keys[i], hs[i]); err != nil {
			return nil, n, err
		}
		n++
	}
	return rest, n, nil
}

// firstEvent returns the event of the first sample header in data.
func firstEvent(data []byte) string {
	return readUntil(data, Options{}, func(p *Parser) bool { return p.EventFilter() != "" }).EventFilter()
}

// firstTime returns where r counts times from in data: its first
// line with a time, as a Parser with r sees it.
func firstTime(data []byte, r *Range) (float64, bool) {
	p := readUntil(data, Options{Range: r}, func(p *Parser) bool { return p.clock.started })
	return p.clock.start, p.clock.started
}

// readUntil gives the lines of data to a Parser with opt, which emits
// nothing, until found says it has what the caller looks for, and
// returns it.
func readUntil(data []byte, opt Options, found func(*Parser) bool) *Parser {
	p := New(opt, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
	for len(data) > 0 && !found(p) {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		p.Line("", 0, line)
	}
	return p
}

// onceWriter passes on the first write only: several parsers may each
// want to note the same thing.
type onceWriter struct {
	once sync.Once
	w    io.Writer
}

func (o *onceWriter) Write(b []byte) (int, error) {
	o.once.Do(func() { o.w.Write(b) })
	return len(b), nil
}
