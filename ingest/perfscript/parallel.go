package perfscript

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// FoldChunks folds the chunks of ch on len(aggs) goroutines,
// one parser and one aggregator each; merge the aggregators with
// stream.EachMerged. Chunks end at sample boundaries, so the result is
// the same as a serial fold: the event filter, when not given, is the
// first event of the input, found before the workers start. Each parser
// is flushed at the end, so opt.Batch may be set.
func FoldChunks(ch *stream.Chunker, opt Options, diag *stream.Diag, aggs []*stream.Aggregator) (Stats, error) {
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
	if opt.Warn != nil {
		opt.Warn = &onceWriter{w: opt.Warn}
	}

	work := make(chan *stream.Chunk, len(aggs))
	parsers := make([]*Parser, len(aggs))
	errs := make([]error, len(aggs))
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i, agg := range aggs {
		parsers[i] = New(opt, agg.Add, diag)
		wg.Add(1)
		go func(p *Parser, errp *error) {
			defer wg.Done()
			for c := range work {
				if *errp == nil {
					if *errp = stream.CatchFault(c.Name, func() error { return foldChunk(p, c) }); *errp != nil {
						stop.Store(true)
					}
				}
				ch.Release(c)
			}
			if *errp == nil {
				*errp = p.Flush()
			}
		}(parsers[i], &errs[i])
	}

	var readErr error
	for c := first; ; {
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

	var st Stats
	for _, p := range parsers {
		s := p.Counts()
		st.Samples += s.Samples
		st.Filtered += s.Filtered
		st.Skipped += s.Skipped
		st.Events = max(st.Events, s.Events)
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

func foldChunk(p *Parser, c *stream.Chunk) error {
	data, n := c.Data, c.Line
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
			if mixed := p.opt.Mixed(c.Name, n, window); mixed != nil {
				return mixed
			}
		}
		if err != nil {
			return err
		}
		n++
		if p.inSample && !p.skip && !p.opt.Srcline && len(data) > 0 && (data[0] == ' ' || data[0] == '\t') {
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
	return p.End()
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
	p := New(Options{}, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
	for len(data) > 0 && p.EventFilter() == "" {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		p.Line("", 0, line)
	}
	return p.EventFilter()
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
