package perfdata

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/pfold/pfold/stream"
)

// Options control a replay.
type Options struct {
	Symbols SymbolOptions
	// Warn receives notes about the recording (missing symbols, lost
	// samples); nil drops them.
	Warn func(string)
	// TmpDir holds the copy of a file-mode recording read from a pipe.
	TmpDir string
	// Jobs > 1 loads symbol tables on up to Jobs-1 goroutines beside
	// the replay, as soon as a sample needs one; otherwise each is
	// loaded when first looked up. The result is the same.
	Jobs int
	// NoInline leaves out the inlined functions perf script adds to the
	// frames it unwinds from stack copies (inlines.go), as perf script
	// --no-inline does.
	NoInline bool

	// sink, when set, receives the samples as sites instead of the
	// SampleFunc (the direct fold).
	sink sampleSink
}

// Frame is one resolved callchain entry, as perf script prints it.
type Frame struct {
	IP     uint64
	Sym    string // "" when unknown
	Offset uint64 // of IP in Sym
	DSO    string // "" when no map holds IP
}

// SampleFunc receives each sample in perf's order with its thread's
// name and its frames, leaf first. Both are reused after it returns.
type SampleFunc func(s *Sample, comm string, frames []Frame) error

// Replay reads a recording from r (file mode or pipe mode) and calls fn
// for each sample. A file-mode recording that is not a regular file is
// copied to a temporary file first: its header points past the data.
func Replay(r io.Reader, opt Options, fn SampleFunc) (*Header, error) {
	// A regular file at its start is read in place (asked before any
	// read: a buffered peek would move its offset).
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if off, err := f.Seek(0, io.SeekCurrent); err == nil && off == 0 {
				if data, unmap, ok := stream.MapFile(f); ok {
					defer unmap()
					return replayMapped(f, data, opt, fn)
				}
				return ReplayAt(f, st.Size(), opt, fn)
			}
		}
	}
	br := bufio.NewReaderSize(r, 1<<20)
	head, err := br.Peek(16)
	if err != nil || !IsPerfData(head) {
		return nil, notPerfData(head)
	}
	if binary.LittleEndian.Uint64(head[8:]) == 16 {
		return replayPipe(br, opt, fn)
	}
	tmp, err := os.CreateTemp(opt.TmpDir, "pfold-perfdata-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	n, err := io.Copy(tmp, br)
	if err != nil {
		return nil, err
	}
	return replayFile(tmp, n, opt, fn)
}

// ReplayAt replays a recording held by ra (size bytes), file or pipe
// mode.
func ReplayAt(ra io.ReaderAt, size int64, opt Options, fn SampleFunc) (*Header, error) {
	var head [16]byte
	if size < 16 {
		return nil, errAt(0, "too short for a perf.data header (%d bytes)", size)
	}
	if _, err := ra.ReadAt(head[:], 0); err != nil {
		return nil, errAt(0, "reading the header: %v", err)
	}
	if !IsPerfData(head[:]) {
		return nil, notPerfData(head[:])
	}
	if binary.LittleEndian.Uint64(head[8:]) == 16 {
		return replayPipe(bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), 1<<20), opt, fn)
	}
	return replayFile(ra, size, opt, fn)
}

// replayMapped replays a recording in a regular file, f, mapped whole
// as data: a file-mode recording's records are read in place, not
// through a buffer, and wait in the queue as their place in the
// mapping, not as copies. The mapping is read under stream.CatchFault,
// on each goroutine that reads it: a file that shrinks meanwhile is an
// error, not a crash.
func replayMapped(f *os.File, data []byte, opt Options, fn SampleFunc) (*Header, error) {
	size := int64(len(data))
	var h *Header
	err := stream.CatchFault(mappedName, func() error {
		if size < 16 {
			return errAt(0, "too short for a perf.data header (%d bytes)", size)
		}
		if !IsPerfData(data) {
			return notPerfData(data)
		}
		if binary.LittleEndian.Uint64(data[8:]) == 16 {
			var err error
			h, err = replayPipe(bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 1<<20), opt, fn)
			return err
		}
		var dataOff, dataLen int64
		var err error
		h, dataOff, dataLen, err = readFileHeader(f, size)
		if err != nil {
			return err
		}
		src := &source{data: data, off: dataOff, end: dataOff + dataLen, order: binary.LittleEndian}
		more, err := dirSources(h, f)
		if err != nil {
			return err
		}
		defer closeSources(more)
		rp := newReplay(h, opt, fn)
		if size < 1<<32 {
			rp.mapped = data
		}
		return rp.runAll(append([]*source{src}, more...)...)
	})
	return h, err
}

// mappedName names a mapped recording in the error of a file that
// shrank while mapped (the input's name is added to every error).
const mappedName = "the recording"

func replayFile(ra io.ReaderAt, size int64, opt Options, fn SampleFunc) (*Header, error) {
	h, dataOff, dataLen, err := readFileHeader(ra, size)
	if err != nil {
		return nil, err
	}
	src := &source{r: bufio.NewReaderSize(io.NewSectionReader(ra, dataOff, dataLen), 1<<20), off: dataOff, end: dataOff + dataLen, order: binary.LittleEndian}
	more, err := dirSources(h, ra)
	if err != nil {
		return h, err
	}
	defer closeSources(more)
	return h, newReplay(h, opt, fn).runAll(append([]*source{src}, more...)...)
}

func replayPipe(br *bufio.Reader, opt Options, fn SampleFunc) (*Header, error) {
	if _, err := br.Discard(16); err != nil {
		return nil, err
	}
	h := &Header{Pipe: true}
	src := &source{r: br, off: 16, end: -1, order: binary.LittleEndian}
	rp := newReplay(h, opt, fn)
	return h, rp.runAll(src)
}

// replay holds the state of one pass over the records.
type replay struct {
	h    *Header
	opt  Options
	fn   SampleFunc
	dec  *decoder
	mach *machine
	sym  *symbolizer
	unw  *unwinder // --call-graph dwarf: walks the user stack copies
	inl  *inlines  // and names their frames' inlined functions

	queue []queued
	// mapped is the recording mapped whole, when the queue's records
	// are its own (a start is then the record's offset in it), not
	// copies in the arena.
	mapped    []byte
	mappedLen int               // the bytes the arena would hold
	z         *inflater         // perf record -z's stream, once met
	lastRead  map[uint64]uint64 // each counter's last value read by a sample (readPeriod)
	runs      []int             // sortQueue's
	mergeBuf  []queued          // sortQueue's
	arena     []byte            // bodies of the queued records
	spare     []byte            // the other arena, for compacting
	seq       uint32
	nextFlush uint64
	maxTime   uint64
	lastFlush uint64

	sample Sample
	// The reading goroutine's, for out.
	outSample Sample
	outIPs    []uint64
	outModes  []uint8
	sites     siteTable
	siteCache *siteCache // site's
	ips       []uint64   // the frames of the sample being delivered, leaf first
	modes     []uint8    // and their cpumodes
	frames    []Frame
	// sink, when set, receives samples as sites (the direct fold);
	// otherwise fn receives them as named frames.
	sink sampleSink

	// The goroutines of runAll: batches of ordered records.
	pipe, free chan *batch
	stop       chan struct{}
	cur        *batch
}

// sampleSink receives each sample in perf's order with its thread. It
// is told of the replay before the first.
type sampleSink interface {
	begin(rp *replay)
	sample(s *Sample, t *thread) error
	// walked is sample for a sample whose frames are walked (chainFrames):
	// s holds its Attr, Pid, Tid and Period.
	walked(s *Sample, t *thread, ips []uint64, modes []uint8) error
}

// queued is a record waiting for its time: arena[start:] holds its
// offset in the file (8 bytes) and the record, header included.
type queued struct {
	time  uint64
	seq   uint32 // arrival order, for ties
	start uint32
}

// maxArena bounds the bytes of the records queued (start is 32 bits):
// past it, everything queued is delivered, as perf's ordered_events
// does when it reaches its memory limit.
const maxArena = 1<<32 - 2*maxRecord

func newReplay(h *Header, opt Options, fn SampleFunc) *replay {
	return &replay{h: h, opt: opt, fn: fn, sink: opt.sink}
}

func (rp *replay) start() {
	if rp.dec != nil {
		return
	}
	rp.dec = newDecoder(rp.h.Attrs)
	rp.sym = newSymbolizer(rp.opt.Symbols, rp.h, rp.opt.Warn)
	if rp.opt.Jobs > 1 {
		rp.sym.sem = make(chan struct{}, rp.opt.Jobs-1)
	}
	rp.mach = newMachine(rp.sym)
	rp.siteCache = new(siteCache)
	if !rp.opt.NoInline {
		rp.inl = newInlines(rp.opt.Warn)
	}
	if rp.sink != nil {
		rp.sink.begin(rp)
	}
}

func (rp *replay) run(srcs ...*source) error {
	defer rp.stopInflate()
	for i, src := range srcs {
		if i > 0 {
			// Another file of a directory recording: its records are not
			// in the mapping, and its compressed ones are a zstd stream
			// of their own.
			rp.unmap()
			rp.inflatedAll()
			rp.stopInflate()
		}
		if err := rp.runSource(src); err != nil {
			if src.name != "" {
				err = fmt.Errorf("%s: %w", src.name, err)
			}
			return err
		}
	}
	rp.inflatedAll()
	if rp.dec == nil {
		return nil
	}
	return rp.flush(^uint64(0))
}

// runSource replays or queues the records of one source.
func (rp *replay) runSource(src *source) error {
	for {
		typ, misc, rec, off, err := src.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		body := rec[8:]
		switch typ {
		case recHeaderAttr:
			if err := rp.headerAttr(body, off); err != nil {
				return err
			}
			continue
		case recHeaderFeature:
			if len(body) < 8 {
				return errAt(off, "feature record too short")
			}
			if err := rp.h.feature(int(binary.LittleEndian.Uint64(body)), body[8:], off+16); err != nil {
				return err
			}
			continue
		case recHeaderBuildID:
			rp.h.BuildIDs = append(rp.h.BuildIDs, parseBuildIDs(rec)...)
			continue
		case recTracingData:
			if len(body) < 4 {
				return errAt(off, "tracing data record too short")
			}
			n := int64(binary.LittleEndian.Uint32(body))
			if err := src.skip((n + 7) &^ 7); err != nil {
				return errAt(off, "truncated tracing data")
			}
			continue
		case recAuxtrace:
			if len(body) < 8 {
				return errAt(off, "auxtrace record too short")
			}
			n := int64(binary.LittleEndian.Uint64(body))
			if n < 0 || n > 1<<40 {
				return errAt(off, "auxtrace record of %d bytes", n)
			}
			if err := src.skip(n); err != nil {
				return errAt(off, "truncated auxtrace data")
			}
			continue
		case recCompressed, recCompressed2:
			if err := rp.inflate(typ, rec, off); err != nil {
				return err
			}
			continue
		}
		if err := rp.record(typ, misc, rec, off); err != nil {
			return err
		}
	}
	return nil
}

// record replays or queues a record that is not one of perf's own
// header records: rec is valid only until record returns, unless it is
// in the mapping (and off is its place there).
func (rp *replay) record(typ uint32, misc uint16, rec []byte, off int64) error {
	body := rec[8:]
	if len(rp.h.Attrs) == 0 {
		return errAt(off, "record of type %d before any event attribute", typ)
	}
	rp.start()
	if typ == recFinishedRound {
		if err := rp.flush(rp.nextFlush); err != nil {
			return err
		}
		rp.nextFlush = rp.maxTime
		return nil
	}
	if typ >= 64 {
		return nil // other perf-internal records
	}
	var t uint64
	var ok bool
	if typ == recSAMPLE {
		t, ok = rp.dec.sampleTime(body)
	} else {
		t, ok = rp.dec.trailerTime(body)
	}
	if !ok || t == 0 || t == ^uint64(0) {
		return rp.out(typ, misc, body, off)
	}
	if rp.arenaLen() > maxArena {
		if err := rp.flush(^uint64(0)); err != nil {
			return err
		}
	}
	rp.seq++
	if rp.mapped != nil {
		rp.queue = append(rp.queue, queued{time: t, seq: rp.seq, start: uint32(off)})
		rp.mappedLen += 8 + len(rec)
		rp.maxTime = max(rp.maxTime, t)
		return nil
	}
	start := len(rp.arena)
	rp.arena = binary.LittleEndian.AppendUint64(rp.arena, uint64(off))
	rp.arena = append(rp.arena, rec...)
	rp.queue = append(rp.queue, queued{time: t, seq: rp.seq, start: uint32(start)})
	rp.maxTime = max(rp.maxTime, t)
	return nil
}

// unmap copies the records queued in place in the mapping to the arena,
// so that records from elsewhere may be queued among them.
func (rp *replay) unmap() {
	if rp.mapped == nil {
		return
	}
	for i := range rp.queue {
		q := &rp.queue[i]
		off, _, _, rec := rp.queuedAt(q.start)
		start := len(rp.arena)
		rp.arena = binary.LittleEndian.AppendUint64(rp.arena, uint64(off))
		rp.arena = append(rp.arena, rec...)
		q.start = uint32(start)
	}
	rp.mapped, rp.mappedLen = nil, 0
}

// flush delivers the queued records with time <= limit, in time order
// (ties in arrival order), as perf's ordered_events does.
func (rp *replay) flush(limit uint64) error {
	rp.sortQueue()
	n := 0
	for n < len(rp.queue) && rp.queue[n].time <= limit {
		off, typ, misc, rec := rp.queuedAt(rp.queue[n].start)
		if err := rp.out(typ, misc, rec[8:], off); err != nil {
			return err
		}
		rp.lastFlush = rp.queue[n].time
		n++
	}
	rest := rp.queue[n:]
	if len(rest) == 0 {
		rp.queue, rp.arena, rp.seq, rp.mappedLen = rp.queue[:0], rp.arena[:0], 0, 0
		return nil
	}
	if rp.mapped != nil {
		rp.mappedLen = 0
		for i := range rest {
			rest[i].seq = uint32(i)
			_, _, _, rec := rp.queuedAt(rest[i].start)
			rp.mappedLen += 8 + len(rec)
		}
		rp.queue = append(rp.queue[:0], rest...)
		rp.seq = uint32(len(rest))
		return nil
	}
	// Compact the arena to the records still queued, in the spare one,
	// and number them again from 0 (they are in arrival order among
	// equal times): seq never wraps.
	arena := rp.spare[:0]
	for i := range rest {
		q := &rest[i]
		q.seq = uint32(i)
		_, _, _, rec := rp.queuedAt(q.start)
		start := len(arena)
		arena = append(arena, rp.arena[q.start:int(q.start)+8+len(rec)]...)
		q.start = uint32(start)
	}
	rp.arena, rp.spare = arena, rp.arena[:0]
	rp.queue = append(rp.queue[:0], rest...)
	rp.seq = uint32(len(rest))
	return nil
}

// sortQueue sorts the queue by time, ties in arrival order. perf
// writes a round as each CPU's buffer in turn, so the queue is a few
// runs already in order: they are found and merged (a run's records
// arrived before the next's, so ties take the left one), in linear time
// for the usual handful of runs.
func (rp *replay) sortQueue() {
	q := rp.queue
	runs := rp.runs[:0]
	for i := 1; i < len(q); i++ {
		if q[i].time < q[i-1].time {
			runs = append(runs, i)
		}
	}
	if len(runs) > 16 {
		slices.SortFunc(q, func(a, b queued) int {
			if a.time != b.time {
				return cmp.Compare(a.time, b.time)
			}
			return cmp.Compare(a.seq, b.seq)
		})
		rp.runs = runs
		return
	}
	runs = append(runs, len(q))
	rp.runs = runs
	start := 0
	for _, end := range runs {
		if start > 0 {
			// q[:start] is merged; merge q[start:end] into it.
			tmp := append(rp.mergeBuf[:0], q[:end]...)
			a, b := tmp[:start], tmp[start:end]
			k := 0
			for len(a) > 0 && len(b) > 0 {
				if b[0].time < a[0].time {
					q[k], b = b[0], b[1:]
				} else {
					q[k], a = a[0], a[1:]
				}
				k++
			}
			k += copy(q[k:], a)
			copy(q[k:], b)
			rp.mergeBuf = tmp
		}
		start = end
	}
}

// arenaLen returns the bytes of the records queued, with their offsets,
// as the arena holds them (or would, for a mapped recording's).
func (rp *replay) arenaLen() int {
	if rp.mapped != nil {
		return rp.mappedLen
	}
	return len(rp.arena)
}

// queuedAt returns the record queued at arena[start:] and its offset.
func (rp *replay) queuedAt(start uint32) (off int64, typ uint32, misc uint16, rec []byte) {
	if rp.mapped != nil {
		a := rp.mapped[start:]
		size := int(binary.LittleEndian.Uint16(a[6:]))
		return int64(start), binary.LittleEndian.Uint32(a), binary.LittleEndian.Uint16(a[4:]), a[:size]
	}
	a := rp.arena[start:]
	off = int64(binary.LittleEndian.Uint64(a))
	typ = binary.LittleEndian.Uint32(a[8:])
	misc = binary.LittleEndian.Uint16(a[12:])
	size := int(binary.LittleEndian.Uint16(a[14:]))
	return off, typ, misc, a[8 : 8+size]
}

func (rp *replay) runAll(srcs ...*source) error {
	defer func() {
		if rp.unw != nil {
			rp.unw.close() // the binaries the unwinder read
		}
		if rp.sink == nil && rp.inl != nil {
			rp.inl.close() // the sink names sites later (release)
		}
	}()
	if rp.opt.Jobs < 2 || rp.sink == nil {
		return rp.run(srcs...)
	}
	rp.pipe = make(chan *batch, pipeBatches-1)
	rp.free = make(chan *batch, pipeBatches)
	rp.stop = make(chan struct{})
	for i := 0; i < pipeBatches-1; i++ {
		rp.free <- &batch{}
	}
	rp.cur = &batch{}
	go func() {
		defer close(rp.pipe)
		var err error
		if srcs[0].data != nil {
			err = stream.CatchFault(mappedName, func() error { return rp.run(srcs...) })
		} else {
			err = rp.run(srcs...)
		}
		if err == nil {
			err = io.EOF
		}
		if err == errStopped {
			return
		}
		rp.cur.err = err
		select {
		case rp.pipe <- rp.cur:
		case <-rp.stop:
		}
	}()
	for b := range rp.pipe {
		for i := range b.recs {
			r := &b.recs[i]
			var err error
			if r.decoded {
				err = rp.deliverDecoded(r, b.ips[r.start:r.end], b.modes[r.start:r.end])
			} else {
				err = rp.deliver(r.typ, r.misc, b.data[r.start:r.end], r.off)
			}
			if err != nil {
				close(rp.stop)
				for range rp.pipe {
				}
				return err
			}
		}
		if b.err != nil {
			if b.err == io.EOF {
				return nil
			}
			return b.err
		}
		b.recs, b.data, b.ips, b.modes = b.recs[:0], b.data[:0], b.ips[:0], b.modes[:0]
		rp.free <- b
	}
	return nil // not reached: the last batch carries io.EOF or an error
}

// A batch is records read and put in order, handed to the goroutine
// that delivers them; the last one carries how the reading ended.
// Samples come decoded, their frames walked (what needs nothing but the
// record and the attributes), so that the delivering goroutine, which
// the run waits for, does only what needs the threads and their maps.
type batch struct {
	recs  []batchRec
	data  []byte   // the records' bodies
	ips   []uint64 // the decoded samples' frames, leaf first
	modes []uint8  // and their cpumodes
	err   error
}

type batchRec struct {
	typ  uint32
	misc uint16
	off  int64
	// The body, data[start:end]; for a decoded sample, its frames,
	// ips[start:end] and modes[start:end].
	start, end int
	// A decoded sample (a sample the decoder refuses, or one to unwind,
	// comes as its body, for the delivering goroutine to refuse).
	decoded  bool
	pid, tid int32
	attr     *Attr
	period   uint64
	time     uint64
}

const (
	pipeBatches = 4
	batchBytes  = 256 << 10
)

var errStopped = errors.New("stopped")

// out delivers a record, or hands it to the delivering goroutine.
func (rp *replay) out(typ uint32, misc uint16, body []byte, off int64) error {
	if rp.pipe == nil {
		return rp.deliver(typ, misc, body, off)
	}
	b := rp.cur
	if s := &rp.outSample; typ == recSAMPLE && rp.dec.decodeSample(s, misc, body, off) == nil && s.UserStack == nil {
		start := len(b.ips)
		rp.outIPs, rp.outModes = chainFrames(s, rp.outIPs[:0], rp.outModes[:0])
		b.ips, b.modes = append(b.ips, rp.outIPs...), append(b.modes, rp.outModes...)
		r := batchRec{typ: typ, misc: misc, off: off, start: start, end: len(b.ips),
			decoded: true, pid: s.Pid, tid: s.Tid, attr: s.Attr, period: s.Period, time: s.Time}
		if s.Attr.SampleType&sampleRead == 0 {
			b.recs = append(b.recs, r)
		}
		for _, v := range s.Reads { // once per counter read, as deliverSample
			if rp.readPeriod(s, v) {
				r.attr, r.period = s.Attr, s.Period
				b.recs = append(b.recs, r)
			}
		}
	} else {
		b.recs = append(b.recs, batchRec{typ: typ, misc: misc, off: off, start: len(b.data), end: len(b.data) + len(body)})
		b.data = append(b.data, body...)
	}
	if len(b.data)+9*len(b.ips) < batchBytes {
		return nil
	}
	select {
	case rp.pipe <- b:
	case <-rp.stop:
		return errStopped
	}
	select {
	case rp.cur = <-rp.free:
	case <-rp.stop:
		return errStopped
	}
	return nil
}

func (rp *replay) headerAttr(body []byte, off int64) error {
	if len(body) < 64 {
		return errAt(off, "attribute record too short")
	}
	size := int(binary.LittleEndian.Uint32(body[4:]))
	if size == 0 {
		size = 64
	}
	if size > len(body) {
		return errAt(off, "attribute of %d bytes in a record of %d", size, len(body))
	}
	a, err := parseAttr(body[:size], off)
	if err != nil {
		return err
	}
	for p := body[size:]; len(p) >= 8; p = p[8:] {
		a.IDs = append(a.IDs, binary.LittleEndian.Uint64(p))
	}
	rp.h.Attrs = append(rp.h.Attrs, a)
	return nil
}

func (rp *replay) deliver(typ uint32, misc uint16, body []byte, off int64) error {
	le := binary.LittleEndian
	switch typ {
	case recSAMPLE:
		return rp.deliverSample(misc, body, off)
	case recCOMM:
		if len(body) < 8 {
			return errAt(off, "comm record too short")
		}
		pid, tid := int32(le.Uint32(body)), int32(le.Uint32(body[4:]))
		rp.mach.comm(pid, tid, string(cstring(body[8:])))
		if misc&miscCommExec != 0 && rp.unw != nil {
			// perf empties libunwind's cache of the process at exec.
			rp.unw.exec(rp.mach.findThread(pid, tid).maps)
		}
	case recFORK:
		if len(body) < 16 {
			return errAt(off, "fork record too short")
		}
		rp.mach.fork(int32(le.Uint32(body)), int32(le.Uint32(body[4:])), int32(le.Uint32(body[8:])), int32(le.Uint32(body[12:])), misc)
	case recMMAP, recMMAP2:
		return rp.mach.mmap(typ, misc, body, off)
	case recKSYMBOL:
		return rp.mach.ksymbol(body, off)
	}
	return nil
}

// maxStack is perf script's default --max-stack: deeper call chains are
// cut at this many frames.
const maxStack = 127

// deliverDecoded is deliverSample for a sample the reading goroutine
// decoded, with its frames.
func (rp *replay) deliverDecoded(r *batchRec, ips []uint64, modes []uint8) error {
	s := &rp.sample
	*s = Sample{Attr: r.attr, CPUMode: r.misc & 7, Pid: r.pid, Tid: r.tid, Time: r.time, Period: r.period, Callchain: s.Callchain[:0], Branches: s.Branches[:0]}
	return rp.sink.walked(s, rp.mach.findThread(s.Pid, s.Tid), ips, modes)
}

func (rp *replay) deliverSample(misc uint16, body []byte, off int64) error {
	s := &rp.sample
	if err := rp.dec.decodeSample(s, misc, body, off); err != nil {
		return err
	}
	t := rp.mach.findThread(s.Pid, s.Tid)
	if len(s.UserStack) > 0 && s.UserRegs != nil && s.Attr.SampleType&sampleCallchain != 0 {
		// The user frames, walked from the stack copy: chainFrames
		// puts them after the kernel's, as perf script has them.
		if rp.unw == nil {
			rp.unw = newUnwinder(rp.sym)
		}
		s.Unwound = rp.unw.unwind(s, t, s.Unwound[:0], maxStack)
	}
	if s.Attr.SampleType&sampleRead == 0 {
		return rp.deliverOne(s, t)
	}
	for _, v := range s.Reads {
		if rp.readPeriod(s, v) {
			if err := rp.deliverOne(s, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// readPeriod makes s the sample of counter v's event, weighted by how
// much v grew since the counter's last read, as perf delivers a sample
// that reads counters (PERF_SAMPLE_READ: perf record -e '{a,b}:S'):
// once per counter. It reports false where perf delivers none: the
// counter did not grow, or is of no event.
func (rp *replay) readPeriod(s *Sample, v ReadValue) bool {
	a := rp.dec.byID[v.ID]
	if a == nil {
		return false
	}
	if rp.lastRead == nil {
		rp.lastRead = map[uint64]uint64{}
	}
	s.Attr, s.Period = a, v.Value-rp.lastRead[v.ID]
	rp.lastRead[v.ID] = v.Value
	return s.Period != 0
}

func (rp *replay) deliverOne(s *Sample, t *thread) error {
	if rp.sink != nil {
		return rp.sink.sample(s, t)
	}
	rp.ips, rp.modes = chainFrames(s, rp.ips[:0], rp.modes[:0])
	rp.frames = rp.frames[:0]
	for i, ip := range rp.ips {
		id := rp.site(t, rp.modes[i], ip)
		if inl := rp.inlined(id); inl != nil {
			rp.frames = append(rp.frames, inl...)
		} else {
			rp.frames = append(rp.frames, rp.frame(id))
		}
	}
	return rp.fn(s, t.comm, rp.frames)
}

// chainFrames appends to ips and modes the frames of s's call chain as
// perf script walks them: leaf first, each with the cpumode its context
// marker sets, at most maxStack of them, none of a corrupt chain. A
// sample without a call chain has the one frame of its ip.
func chainFrames(s *Sample, ips []uint64, modes []uint8) ([]uint64, []uint8) {
	if s.Attr.SampleType&sampleCallchain == 0 {
		return append(ips, s.IP), append(modes, uint8(s.CPUMode))
	}
	if s.Attr.SampleType&sampleBranchStack != 0 && s.Attr.BranchSampleType&branchCallStack != 0 {
		if ips, modes, ok := lbrFrames(s, ips, modes); ok {
			return ips, modes
		}
	}
	cpumode := uint8(s.CPUMode)
	chain := s.Callchain
	k := len(ips)
	room := max(0, min(len(chain), maxStack-k))
	ips, modes = slices.Grow(ips, room)[:k+room], slices.Grow(modes, room)[:k+room]
	for _, ip := range chain {
		if k >= maxStack {
			break
		}
		if ip >= contextMax {
			mode, ok := contextMode(ip)
			if !ok {
				return ips[:0], modes[:0] // a corrupt chain: perf drops it all
			}
			cpumode = mode
			continue
		}
		ips[k], modes[k] = ip, cpumode
		k++
	}
	// The frames unwound from a dwarf-mode sample's stack copy: perf
	// bounds them on their own, and takes them as they are (a zero
	// return address less one is a frame, not a marker).
	ips, modes = append(ips[:k], s.Unwound...), modes[:k]
	for range s.Unwound {
		modes = append(modes, cpumodeUnwound)
	}
	return ips, modes
}

// contextMode is the cpumode of the frames after a call chain's context
// marker ip (>= contextMax); not ok for a marker perf does not know.
func contextMode(ip uint64) (uint8, bool) {
	switch ip {
	case contextHV:
		return cpumodeHV, true
	case contextKernel:
		return cpumodeKernel, true
	case contextUser:
		return cpumodeUser, true
	}
	return 0, false
}

// lbrFrames appends the frames of a sample recorded with --call-graph
// lbr as perf 6.1 walks them (resolve_lbr_callchain_sample, callee
// order, without --stitch-lbr): the call chain's kernel part up to its
// user context marker, then the user stack from the branch stack: the
// first entry's target, then every entry's source. A chain with no user
// part, or no branch entries, is not one (ok false): perf then walks
// the call chain as usual.
func lbrFrames(s *Sample, ips []uint64, modes []uint8) ([]uint64, []uint8, bool) {
	chain := s.Callchain
	end := -1
	for i, ip := range chain[:min(len(chain), maxStack)] {
		if ip == contextUser {
			end = i
			break
		}
	}
	if end < 0 || len(s.Branches) == 0 {
		return ips, modes, false
	}
	cpumode := uint8(cpumodeUser)
	for _, ip := range chain[:end+1] {
		if ip >= contextMax {
			mode, ok := contextMode(ip)
			if !ok {
				return ips[:0], modes[:0], false // corrupt: perf walks it as usual, and drops it
			}
			cpumode = mode
			continue
		}
		ips, modes = append(ips, ip), append(modes, cpumode)
	}
	ips, modes = append(ips, s.Branches[0].To), append(modes, cpumodeUserFB)
	for _, b := range s.Branches {
		ips, modes = append(ips, b.From), append(modes, cpumodeUserFB)
	}
	return ips, modes, true
}

// site returns the site of ip: the map that holds it, as perf's
// thread__find_map does, and the address within the map.
func (rp *replay) site(t *thread, cpumode uint8, ip uint64) int32 {
	gen := rp.mapsGen(t, cpumode, ip)
	if gen == 0 {
		return rp.findSite(t, cpumode, ip)
	}
	e := rp.siteCache.slot(ip, gen)
	if e.ip == ip && e.tag>>32 == gen {
		return int32(uint32(e.tag))
	}
	id := rp.findSite(t, cpumode, ip)
	if gen < 1<<32 {
		e.ip, e.tag = ip, gen<<32|uint64(uint32(id))
	}
	return id
}

// mapsGen returns the gen of the maps address ip of cpumode is looked
// up in (t's or the kernel's), 0 for none or both, or where what is
// found does not hold for its gen (a vdso).
func (rp *replay) mapsGen(t *thread, cpumode uint8, ip uint64) uint64 {
	switch cpumode {
	case cpumodeKernel:
		return rp.mach.kernel.gen
	case cpumodeUser, cpumodeUnwound:
		if um := t.maps.fresh(); um.outside(ip) {
			if cpumode == cpumodeUnwound {
				return unwoundGen(um.gen)
			}
			return um.gen
		}
	}
	return 0
}

// siteCache remembers the sites of recent addresses, each with the gen
// of the maps it was found in (maps share a gen only where what is found
// in them is the same, and a change to one gives it another; see
// maps.gen): a call chain's addresses are nearly all those of samples
// before, and a look here costs a fraction of finding the map and the
// site. It is direct-mapped, by address and gen. Its 16k entries (256
// KiB) hold the sites of a build's compiler processes, which share
// their gens: on the go-build recording, 3.69M frames, 291k missed
// (717k with 4k entries and a gen per process).
type siteCache [1 << siteCacheBits]siteEntry

type siteEntry struct {
	ip  uint64
	tag uint64 // gen<<32 | site id; 0: empty (no maps has gen 0)
}

const siteCacheBits = 14

// slot returns the entry where ip, found in the maps of gen, is kept
// (gens of 2^32 and more are not kept: the tag holds 32 bits of it).
func (c *siteCache) slot(ip, gen uint64) *siteEntry {
	return &c[((ip^gen)*0x9e3779b97f4a7c15)>>(64-siteCacheBits)]
}

// findSite is site without its cache.
func (rp *replay) findSite(t *thread, cpumode uint8, ip uint64) int32 {
	var mp *mapping
	switch cpumode {
	case cpumodeKernel:
		mp = rp.mach.kernel.find(ip)
	case cpumodeUser, cpumodeUnwound:
		mp = t.maps.find(ip)
	case cpumodeUserFB:
		// A branch's address, found as perf's thread__find_map_fb does:
		// in the user maps, or the kernel's for a kernel address.
		if mp = t.maps.find(ip); mp == nil && ip >= rp.mach.kernelStart() {
			mp = rp.mach.kernel.find(ip)
		}
	}
	var d *dso
	addr := ip
	if mp != nil {
		d = mp.dso
		if !mp.identity {
			addr = ip - mp.start + mp.pgoff // perf script prints the address within the map
		}
	}
	id, fresh := rp.sites.intern(d, addr, cpumode == cpumodeUnwound)
	if fresh && d != nil {
		rp.sym.prefetch(d)
	}
	return id
}

// release lets go of the symbol tables and the sites, once every site
// has been named: the replay is over. It returns about how many bytes
// they held.
func (rp *replay) release() int64 {
	n := rp.sites.size()
	for _, st := range rp.sites.sites {
		if d := st.dso; d != nil && d.tab.syms != nil {
			n += d.tab.size()
			d.tab, d.shown = symtab{}, nil
		}
	}
	rp.sites, rp.siteCache = siteTable{}, nil
	if rp.inl != nil {
		rp.inl.close()
	}
	rp.sym.kernel, rp.sym.dsos = nil, nil
	return n
}

// resolve looks up the symbol of site id, once.
func (rp *replay) resolve(id int32) *site {
	st := &rp.sites.sites[id]
	if st.sym == symUnresolved {
		st.sym = -1
		if st.dso != nil {
			st.sym = rp.sym.lookup(st.dso, st.addr)
		}
	}
	return st
}

// frame names site id as perf's thread__find_symbol does.
func (rp *replay) frame(id int32) Frame {
	st := rp.resolve(id)
	f := Frame{IP: st.addr}
	if st.dso == nil {
		return f
	}
	f.DSO = st.dso.name
	if st.sym >= 0 {
		sy := &st.dso.tab.syms[st.sym]
		f.Sym, f.Offset = st.dso.display(st.sym), st.addr-sy.start
	}
	return f
}
