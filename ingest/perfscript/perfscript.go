package perfscript

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// Options are stackcollapse-perf.pl's options, with its names.
type Options struct {
	PID    bool // --pid: process name root frame becomes comm-PID
	TID    bool // --tid: comm-PID/TID
	Kernel bool // --kernel: annotate kernel frames with _[k]
	JIT    bool // --jit: annotate JIT frames with _[j]
	Addrs  bool // --addrs: keep raw addresses of unknown symbols
	// Samples counts each sample once; by default a sample weighs its
	// period when the header prints one, as stackcollapse-perf.pl does
	// (so a cpu-clock recording folds to nanoseconds).
	Samples bool
	// Srcline: each frame line is followed by a source line, as printed
	// by perf script -F+srcline; it is appended to the frame as ":src".
	Srcline bool
	// Inline names each frame's inlined functions by addr2line, and
	// Context adds their file:line (stackcollapse-perf.pl's --inline and
	// --context; see inliner).
	Inline, Context bool
	// EventFilter keeps only samples of this event; "" means the first
	// event seen.
	EventFilter string
	// SkipAfter drops the callers above a frame with one of these names,
	// and the process name (inferno's --skip-after).
	SkipAfter []string
	// Range, when set, keeps the samples of a time window only
	// (range-perf.pl's).
	Range *Range
	// Warn receives notes that are not errors (several events seen).
	Warn io.Writer
	// FrameCache bounds the memory of the cache of folded frame lines
	// (0 means 32 MiB).
	FrameCache int64
	// Batch, when not 0, bounds the memory of a table that sums samples
	// by process name and frame-cache entries before they become stacks:
	// a sample seen before then costs no copying, hashing or comparing of
	// its whole stack. Stacks reach emit only when the table fills, the
	// frame cache empties, or Flush is called: call it at the end.
	Batch int64
	// NoPIDNoted is shared by the parsers of one run (its copies of the
	// options), so that the note on a dump without a pid field is said
	// once; nil gives each parser its own.
	NoPIDNoted *atomic.Bool
	// Folded, when set, counts the samples folded, for a progress line
	// read on another goroutine.
	Folded *atomic.Int64
	// Mixed, when set, is asked by FoldChunks about a malformed line and
	// what follows it: an error when the input changes format there.
	Mixed func(input string, line int, window []byte) error
	// Refuse, when set, is asked by FoldChunks about the first bytes of
	// each input: an error when they are not text to read (format.Env).
	Refuse func(input string, prefix []byte) error

	firstEvent bool     // EventFilter is the input's first event, not the user's
	rangeStart *float64 // the input's first time, for Range, when found before the parsers start
	inl        *inliner // shared by the parsers of one run, when Inline
}

// Stats counts what the parser saw.
type Stats struct {
	Samples  int64 // samples folded
	Filtered int64 // samples of other events, left out by the event filter
	Skipped  int64 // samples left out because their header was malformed
	Bare     int64 // samples without a frame, folded as their process alone
	Empty    int64 // samples with neither a frame nor a process name: not folded
	// With a Range: the samples of the event folded that it left out, as
	// outside it (Outside) or without a time (Untimed).
	Outside, Untimed int64
	Ranged           bool // a Range was given
	span             span // the times of the samples it weighed
	Events           int  // distinct event names seen
	// Event is the event of the samples folded: the --event-filter
	// given, or else the input's first; "" when the samples name none.
	Event string
	// EventCounts counts the samples of each event seen, kept or not.
	EventCounts map[string]int64
}

// Parser folds perf script text into stacks, one line at a time. It
// reads every layout perf script prints for samples with call chains: the
// header and frame lines are parsed field by field, so ip, sym, symoff,
// dso, srcline, period, event, cpu, pid/tid and time may each be absent.
//
// Frame names follow stackcollapse-perf.pl: offsets (+0x…) are removed,
// arguments are cut at the first top-level '(' (so C++ templates and Go
// generic and method names survive), ';' becomes ':', unknown symbols
// fall back to their module ([libc.so.6]), inlined frames a->b are split
// with _[i], and the process name is the root frame.
type Parser struct {
	opt  Options
	emit format.EmitFunc
	diag *stream.Diag

	inSample bool
	skip     bool // this sample is left out (event filter, bad header)
	skipRest bool // --skip-after matched: no more callers, no process name
	hasName  bool
	pname    []byte
	weight   fold.Count

	frames []byte  // committed frames, leaf first
	ends   []int32 // end offset in frames of each committed frame

	pend     []byte  // pieces of the current frame line, in order
	pendEnds []int32 // their end offsets in pend
	srcWant  int     // source lines still expected for pend
	srcDrop  bool    // and left out: pend is --inline's
	srcNext  int     // index of the piece the next source line belongs to

	noIP        bool // this input's frame lines carry no ip field
	events      []string
	eventCounts []int64 // samples per event, as events
	noted       bool
	lastEvent   int   // the index in events of the last sample's event
	lastKept    bool  // whether its samples are kept
	clock       clock // Range's
	cache       frameCache
	scratch     []byte
	fallback    []byte
	rust        []byte
	stack       []byte
	tok         [][2]int

	// Batching (opt.Batch): while byID, the sample's frames are the cache
	// entries ids, whose text totals idText bytes, and not in frames.
	batch         *stream.Counts
	batchN        int64 // samples batched
	batchKeys     int64 // distinct keys among them, summed over the flushes
	batchNFlushed int64 // batchN at the last flush
	noBatch       bool  // batching stopped: samples seldom repeated
	byID          bool
	ids           []uint32
	idText        int
	key           []byte
	dids          []uint32

	// The sample path (fast.go).
	noFrame    bool // no frame line read since the sample began
	noFast     bool // the path stopped: most samples were not its
	fastHits   int64
	fastMisses int64
	blocks     textCache // callers' lines, with the process name
	prefixes   textCache // the folded text of blocks
	mods       textCache // leaves' modules, "(dso)"
	guesses    [1 << guessBits]guessSet
	samples    sampleTable // batched samples, by block and leaf
	bframes    []byte      // addBlock's and leafEntry's scratch
	bends      []int32
	blines     []int32
	btext      []byte
	leafPC     []byte // the fields of the leaf leafKey last took
	leafSym    []byte // (the symbol without its offset)
	leafMod    []byte
	modMemo    [1 << modMemoBits]modMemo // leaves' modules seen
	leafMemo   *modMemo                  // the module of the leaf leafKey last took, if k2 is it

	runLines  [][]byte // frameRun's scratch
	runKeys   [][]byte
	runHashes []uint64
	warmSum   uint32
	dframes   []byte
	dends     []int32

	ownsInliner bool // opt.inl is this parser's to close

	stats       Stats
	mixedChecks int
	ledger      *lineLedger   // FoldChunks's, numbering its chunks' lines
	chunk       *stream.Chunk // the chunk being folded, when its lines count from 1
	chunkLines  int           // the lines foldChunk folded of its chunk
}

// New returns a parser that passes each folded sample to emit
// and reports malformed lines to diag.
func New(opt Options, emit format.EmitFunc, diag *stream.Diag) *Parser {
	owns := opt.Inline && opt.inl == nil
	if owns {
		opt.inl = newInliner(opt.Context, opt.Warn)
	}
	p := &Parser{opt: opt, emit: emit, diag: diag, ownsInliner: owns}
	p.clock.r = opt.Range
	if opt.rangeStart != nil {
		p.clock.start, p.clock.started = *opt.rangeStart, true
	}
	if opt.Batch > 0 && !opt.Srcline {
		p.batch = stream.NewCounts(int(min(1<<20, max(4<<10, opt.Batch/8))))
	}
	return p
}

// Close ends the addr2line processes of --inline, when the parser
// started them.
func (p *Parser) Close() error {
	if p.ownsInliner {
		p.opt.inl.close()
	}
	return nil
}

// Counts returns what the parser has counted.
func (p *Parser) Counts() Stats {
	st := p.stats
	st.Ranged, st.span = p.opt.Range != nil, p.clock.span
	if len(p.events) > 0 {
		st.Event = p.opt.EventFilter
	}
	st.EventCounts = make(map[string]int64, len(p.events))
	for i, e := range p.events {
		st.EventCounts[e] = p.eventCounts[i]
	}
	return st
}

// EventFilter returns the event samples are filtered by ("" until the
// first event is seen, when none was given).
func (p *Parser) EventFilter() string { return p.opt.EventFilter }

// Line parses one line of input name (1-based number lineNo). The line
// has no trailing newline.
func (p *Parser) Line(name string, lineNo int, line []byte) error {
	// A sample ends at an empty or whitespace-only line (CRLF too).
	blank := true
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			blank = false
			break
		}
	}
	if blank {
		return p.End()
	}
	if line[0] == '#' {
		return nil // perf script --header block and comments
	}
	if p.srcWant > 0 && p.inSample {
		p.srcline(line)
		return nil
	}
	indented := line[0] == '\t' || line[0] == ' ' && !p.headerAfterHeader(line)
	if p.inSample && (indented || p.unindentedFrame(line)) {
		return p.frameLine(name, lineNo, line)
	}
	if !p.inSample && indented && !p.looksLikeHeader(line) {
		// Layouts without a header line (-F ip,sym): the frames alone.
		p.begin()
		if !p.inRange(nil) {
			return nil
		}
		return p.frameLine(name, lineNo, line)
	}
	if p.inSample && !p.headerShaped(line) {
		// A stray line inside a sample: it alone is skipped, and the
		// sample keeps the frames around it (ending the sample there
		// dropped the rest of its frames without a word).
		return p.malformed(name, lineNo, line, "not a frame line, inside a sample (the sample is kept without it)")
	}
	if err := p.End(); err != nil {
		return err
	}
	return p.header(name, lineNo, line)
}

// headerAfterHeader reports whether the line data starts with, indented
// with a blank, is the next sample's header though the sample read has no
// frame yet: perf script right-aligns the process name of a sample it
// prints no call chain for (a tracepoint's, by default), and pads a time
// printed first, so such a header is indented like a frame; it has a time
// or a [cpu] that frames have not.
func (p *Parser) headerAfterHeader(data []byte) bool {
	if len(data) == 0 || data[0] != ' ' {
		return false
	}
	if !p.inSample || !p.noFrame {
		return false
	}
	line, _, _ := bytes.Cut(data, []byte{'\n'})
	return p.looksLikeHeader(line)
}

// headerShaped reports whether line has the shape of a sample header: a
// time, a [cpu] or an event name ("cycles:") after its first field.
func (p *Parser) headerShaped(line []byte) bool {
	if p.looksLikeHeader(line) {
		return true
	}
	t := p.tokens(line)
	for _, r := range t[min(1, len(t)):] {
		if tok := line[r[0]:r[1]]; len(tok) > 1 && tok[len(tok)-1] == ':' {
			return true
		}
	}
	return false
}

func (p *Parser) begin() {
	p.inSample = true
	p.noFrame = true
	p.skip, p.skipRest, p.hasName = false, false, false
	p.pname = p.pname[:0]
	p.weight = fold.Int(1)
	p.frames = p.frames[:0]
	p.ends = p.ends[:0]
	p.pend = p.pend[:0]
	p.pendEnds = p.pendEnds[:0]
	p.srcWant, p.srcDrop = 0, false
	p.byID = p.batch != nil && !p.noBatch
	p.ids = p.ids[:0]
	p.idText = 0
}

// End finishes the sample being read, if any: call it at the end of each
// input, since the last sample need not be followed by a blank line.
func (p *Parser) End() error {
	if !p.inSample {
		return nil
	}
	p.inSample = false
	p.commit()
	if p.skip {
		return nil
	}
	named := p.hasName && !p.skipRest
	if p.byID {
		if (!named || len(p.pname) == 0) && p.idText == 0 {
			p.stats.Empty++
			return nil // the stack would be empty
		}
		if p.idText == 0 {
			p.stats.Bare++
		}
		p.countSample()
		return p.addBatch(named)
	}
	if !p.hasName && len(p.ends) == 0 {
		p.stats.Empty++
		return nil
	}
	var name []byte
	if named {
		name = p.pname
	}
	p.stack = appendStack(p.stack[:0], name, p.frames, p.ends)
	if len(p.stack) == 0 {
		return nil
	}
	if len(p.ends) == 0 {
		p.stats.Bare++
	}
	p.countSample()
	return p.emit(p.stack, p.weight)
}

// countSample counts a sample folded, in the stats and in the progress
// line's counter.
func (p *Parser) countSample() {
	p.stats.Samples++
	if p.opt.Folded != nil {
		p.opt.Folded.Add(1)
	}
}

// appendStack appends the folded stack of name (none when nil) and the
// frames, which are kept leaf first.
func appendStack(s, name, frames []byte, ends []int32) []byte {
	s = append(s, name...)
	for i := len(ends) - 1; i >= 0; i-- {
		start := int32(0)
		if i > 0 {
			start = ends[i-1]
		}
		if len(s) > 0 {
			s = append(s, ';')
		}
		s = append(s, frames[start:ends[i]]...)
	}
	return s
}

// addBatch sums the sample under its key: whether the process name is a
// frame, the name, and the frame-cache entries of its frames.
func (p *Parser) addBatch(named bool) error {
	k := p.key[:0]
	if named {
		k = binary.AppendUvarint(k, uint64(len(p.pname))+1)
		k = append(k, p.pname...)
	} else {
		k = append(k, 0)
	}
	for _, id := range p.ids {
		k = binary.LittleEndian.AppendUint32(k, id)
	}
	p.key = k
	if err := p.batch.Add(k, p.weight); err != nil {
		return err
	}
	p.batchN++
	if p.batchSize() > p.opt.Batch {
		return p.Flush()
	}
	return nil
}

// batchSize is what the two batches hold: samples by frame-cache entries
// and, on the sample path, by block and leaf entries.
func (p *Parser) batchSize() int64 { return p.batch.Size() + p.samples.size() }

// Flush emits the samples summed by batching (see Batch). It is called
// when the batch is full, when the frame cache empties, and at the end.
func (p *Parser) Flush() error {
	if p.batch == nil || p.batch.Len() == 0 && p.samples.n == 0 {
		return nil
	}
	// When samples mostly differ, batching only adds a table in front of
	// the Aggregator's: stop it.
	p.batchKeys += int64(p.batch.Len()) + int64(p.samples.n)
	p.noBatch = p.batchN >= 1<<12 && p.batchKeys > p.batchN/2
	p.batchNFlushed = p.batchN
	if err := p.flushSamples(); err != nil {
		return err
	}
	return p.flushBatch()
}

// flushBatch emits the samples of the batch of Line's path and empties
// it.
func (p *Parser) flushBatch() error {
	err := p.batch.Each(func(k []byte, c fold.Count) error {
		var name []byte
		n, w := binary.Uvarint(k)
		if n > 0 {
			name = k[w : w+int(n)-1]
		}
		k = k[w+len(name):]
		ids := p.dids[:0]
		for ; len(k) >= 4; k = k[4:] {
			ids = append(ids, binary.LittleEndian.Uint32(k))
		}
		p.dids = ids
		p.dframes, p.dends = p.appendEntries(p.dframes[:0], p.dends[:0], ids)
		p.stack = appendStack(p.stack[:0], name, p.dframes, p.dends)
		return p.emit(p.stack, c)
	})
	p.batch.Reset()
	return err
}

// Header lines.

func isDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isPidTid matches "TID", "PID/TID", and -1 for exited tasks.
func isPidTid(b []byte) bool {
	pid, tid, slash := bytes.Cut(b, []byte{'/'})
	num := func(x []byte) bool {
		if len(x) > 0 && x[0] == '-' {
			x = x[1:]
		}
		return isDigits(x)
	}
	return num(pid) && (!slash || num(tid))
}

// isTime matches "SECONDS.FRACTION:" (--ns prints more digits).
func isTime(b []byte) bool {
	if len(b) < 3 || b[len(b)-1] != ':' {
		return false
	}
	// Digits, one '.', digits, none of them empty (bytes.Cut and isDigits
	// twice, in one pass).
	b = b[:len(b)-1]
	dot := -1
	for i, c := range b {
		if c == '.' && dot < 0 {
			dot = i
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return dot > 0 && dot < len(b)-1
}

func isCPU(b []byte) bool {
	return len(b) > 2 && b[0] == '[' && b[len(b)-1] == ']' && isDigits(b[1:len(b)-1])
}

func (p *Parser) tokens(line []byte) [][2]int {
	t := p.tok[:0]
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		// Each half stored alone: a [2]int built on the stack and copied
		// whole stalled on store forwarding, token after token.
		t = append(t, [2]int{})
		t[len(t)-1][0] = i
		t[len(t)-1][1] = j
		i = j
	}
	p.tok = t
	return t
}

// looksLikeHeader tells an indented sample header (as perf prints for
// comms padded to a width) from a frame line.
func (p *Parser) looksLikeHeader(line []byte) bool {
	t := p.tokens(line)
	if len(t) > 0 && isTime(line[t[0][0]:t[0][1]]) {
		return true // no process name (-F time,event): perf pads the time with blanks
	}
	for _, r := range t[min(1, len(t)):] {
		tok := line[r[0]:r[1]]
		if isTime(tok) || isCPU(tok) {
			return true
		}
	}
	return false
}

// unindentedFrame tells a frame line printed at column 0 (as in some old
// perf versions: "ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])")
// from the header of the next sample.
func (p *Parser) unindentedFrame(line []byte) bool {
	line = bytes.TrimRight(line, " \t\r")
	if len(line) == 0 || line[len(line)-1] != ')' || p.looksLikeHeader(line) {
		return false
	}
	first := line
	if i := bytes.IndexAny(line, " \t"); i >= 0 {
		first = line[:i]
	}
	return isHex(first)
}

func (p *Parser) header(name string, lineNo int, line []byte) error {
	// perf script -F comm,ip,sym prints the process name alone, then one
	// blank ("%s "); nothing else it prints ends so.
	nameAlone := len(line) >= 2 && line[len(line)-1] == ' ' && line[len(line)-2] != ' '
	for len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	if p.quickHeader(line) {
		return nil
	}
	return p.tokenHeader(name, lineNo, line, nameAlone)
}

// maxComm bounds a process name: the kernel's TASK_COMM_LEN, 16 with its
// NUL.
const maxComm = 15

// tokenHeader is header for any line, trimmed at the end: it splits the
// line into tokens, then reads them.
func (p *Parser) tokenHeader(name string, lineNo int, line []byte, nameAlone bool) error {
	t := p.tokens(line)
	tok := func(i int) []byte { return line[t[i][0]:t[i][1]] }

	// Lines perf prints between samples for --show-task-events,
	// --show-mmap-events and the like are not samples.
	for _, r := range t {
		if line[r[0]] == 'P' && bytes.HasPrefix(line[r[0]:r[1]], []byte("PERF_RECORD_")) {
			if p.opt.Range != nil && !p.clock.started {
				// range-perf.pl counts from the first line with a time.
				for _, r := range t {
					if tok := line[r[0]:r[1]]; isTime(tok) {
						p.clock.seeTime(tok)
						break
					}
				}
			}
			return nil
		}
	}

	// The process name ends before the pid/tid field, which stands just
	// before [cpu] or the time when those are printed; otherwise it is the
	// first number after the name, as stackcollapse-perf.pl takes it.
	anchor := -1
	for i := 1; i < len(t); i++ {
		if isTime(tok(i)) || isCPU(tok(i)) {
			anchor = i
			break
		}
	}
	commEnd, pidIdx := -1, -1
	if len(t) > 0 && isTime(tok(0)) {
		commEnd = 0 // no process name nor pid/tid: -F time,event,ip,sym
	} else if anchor >= 0 {
		commEnd = anchor
		if anchor >= 2 && isPidTid(tok(anchor-1)) {
			commEnd, pidIdx = anchor-1, anchor-1
		}
	} else {
		for i := 1; i < len(t); i++ {
			if isPidTid(tok(i)) {
				commEnd, pidIdx = i, i
				break
			}
		}
		if commEnd < 0 {
			for i := 1; i < len(t); i++ {
				if b := tok(i); b[len(b)-1] == ':' {
					commEnd = i
					break
				}
			}
		}
	}
	switch {
	case commEnd == 0:
		// The frames alone, as for layouts with no header (begin leaves
		// the sample unnamed, and off the sample path, which keys
		// blocks by the process name).
		p.begin()
	case commEnd < 0 && nameAlone && len(line) <= maxComm && bytes.IndexByte(line, '\t') < 0 && !isDigits(line):
		// The process name alone (-F comm,ip,sym); a number alone is a
		// pid or tid (-F tid,ip,sym), which names no process.
		p.named(line, nil)
		p.inRange(nil)
		return nil
	case commEnd < 0:
		p.begin()
		p.skip = true
		p.stats.Skipped++
		return p.malformed(name, lineNo, line, "not a perf script sample header")
	default:
		var pidTid []byte
		if pidIdx >= 0 {
			pidTid = tok(pidIdx)
		}
		p.named(line[t[0][0]:t[commEnd-1][1]], pidTid)
	}

	i := commEnd
	if i == pidIdx {
		i++
	}
	if i < len(t) && isCPU(tok(i)) {
		i++
	}
	var time []byte
	if i < len(t) && isTime(tok(i)) {
		time = tok(i)
		i++
	}
	if i < len(t) && isDigits(tok(i)) {
		if c, err := fold.ParseCount(tok(i)); err == nil && !c.IsZero() && !p.opt.Samples {
			p.weight = c
		}
		i++
	}
	if i < len(t) {
		if b := tok(i); len(b) > 1 && b[len(b)-1] == ':' {
			if !p.keepEvent(b[:len(b)-1]) {
				p.skip = true
				p.stats.Filtered++
				p.clock.seeTime(time)
				return nil
			}
			i++
		}
	}
	if !p.inRange(time) {
		return nil
	}
	if i < len(t) {
		// Without -g, the one frame follows the event on the header
		// line; a tracepoint's arguments are not a frame.
		rest := line[t[i][0]:]
		if first := tok(i); isHex(first) && rest[len(rest)-1] == ')' {
			if err := p.frameLine(name, lineNo, rest); err != nil {
				return err
			}
			return p.End()
		}
	}
	return nil
}

// inRange applies the Range, if any, to the sample whose header has
// just been read, time being its time token (nil when it has none): a
// sample outside it is skipped, and counted.
func (p *Parser) inRange(time []byte) bool {
	if p.skip || p.inWindow(time) {
		return true
	}
	p.skip = true
	return false
}

// inWindow reports whether a sample of time token time (nil when it has
// none) is in the Range, if any, and counts one that is not.
func (p *Parser) inWindow(time []byte) bool {
	switch {
	case p.opt.Range == nil:
		return true
	case time == nil:
		p.stats.Untimed++
		return false
	case !p.clock.see(time):
		p.stats.Outside++
		return false
	}
	return true
}

// named begins a sample named comm, pidTid being its pid/tid field (nil
// when it has none).
func (p *Parser) named(comm, pidTid []byte) {
	p.begin()
	p.hasName = true
	p.pname = appendComm(p.pname[:0], comm)
	if p.opt.PID || p.opt.TID {
		pid, tid := []byte("?"), []byte("?")
		if pidTid != nil {
			var slash bool
			pid, tid, slash = bytes.Cut(pidTid, []byte{'/'})
			if !slash {
				pid, tid = []byte("?"), pid
			}
		}
		if pid[0] == '?' {
			p.noteNoPID()
		}
		p.pname = append(p.pname, '-')
		p.pname = append(p.pname, pid...)
		if p.opt.TID {
			p.pname = append(p.pname, '/')
			p.pname = append(p.pname, tid...)
		}
	}
}

// appendComm appends the process name with its spaces made '_', as the
// folded format has no room for them in the root frame.
func appendComm(dst, comm []byte) []byte {
	for _, c := range comm {
		if c == ' ' {
			c = '_'
		}
		dst = append(dst, c)
	}
	return dst
}

func (p *Parser) keepEvent(ev []byte) bool {
	if p.lastEvent < len(p.events) && p.events[p.lastEvent] == string(ev) {
		// The event of the sample before: the same verdict.
		p.eventCounts[p.lastEvent]++
		return p.lastKept
	}
	known := -1
	for i, e := range p.events {
		if e == string(ev) {
			known = i
			break
		}
	}
	if known < 0 {
		known = len(p.events)
	}
	p.lastEvent = known
	p.lastKept = p.newEvent(ev, known)
	return p.lastKept
}

// newEvent is keepEvent for an event other than the last sample's, known
// being its index in events (len(events) when new).
func (p *Parser) newEvent(ev []byte, known int) bool {
	if known == len(p.events) {
		known = len(p.events)
		p.events = append(p.events, string(ev))
		p.eventCounts = append(p.eventCounts, 0)
		p.stats.Events = len(p.events)
	}
	p.eventCounts[known]++
	if p.opt.EventFilter == "" {
		p.opt.EventFilter = string(ev)
		p.opt.firstEvent = true
		return true
	}
	if eventMatches(ev, p.opt.EventFilter) {
		return true
	}
	// The user who named the event knows the input has others.
	if !p.noted && p.opt.Warn != nil && p.opt.firstEvent {
		p.noted = true
		fmt.Fprintf(p.opt.Warn, "note: several events in the input; folding only %s (choose with --event-filter)\n", p.opt.EventFilter)
	}
	return false
}

// noteNoPID says, once a run, that --pid or --tid found no pid field.
func (p *Parser) noteNoPID() {
	if p.opt.NoPIDNoted == nil {
		p.opt.NoPIDNoted = new(atomic.Bool)
	}
	if p.opt.Warn == nil || p.opt.NoPIDNoted.Swap(true) {
		return
	}
	fmt.Fprintf(p.opt.Warn, "note: the samples have no pid field (perf script prints the thread id alone by default), so --pid and --tid name them comm-?: `perf script -F +pid` adds it\n")
}

// UnknownEventError is returned when the events the user asked for never
// occur: a typo would otherwise give an empty profile and exit 0.
type UnknownEventError struct {
	Filter string
	Seen   map[string]int64 // samples per event seen
}

func (e *UnknownEventError) Error() string {
	names := make([]string, 0, len(e.Seen))
	for n := range e.Seen {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "no sample of event %q (--event-filter); the input has ", e.Filter)
	if len(names) == 0 {
		b.WriteString("no samples with an event name")
	}
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%d samples)", n, e.Seen[n])
	}
	return b.String()
}

// CheckChains says, when every sample folded had no frame, that perf
// script printed no call chain (a tracepoint's samples print none by
// default, and none print without the ip field); and it is an error when
// the samples had no process name either, so nothing was folded.
func CheckChains(w io.Writer, st Stats) error {
	const how = "perf script prints none without the ip field, nor by default for a tracepoint's samples (`perf script -F comm,pid,tid,time,event,ip,sym,dso` prints them), nor for a recording made without -g"
	if st.Samples == 0 && st.Empty > 0 {
		return fmt.Errorf("%d samples have neither a call chain nor a process name: nothing to fold; %s", st.Empty, how)
	}
	if w != nil && st.Samples > 0 && st.Bare == st.Samples {
		fmt.Fprintf(w, "note: no sample has a call chain, so each folds to its process name alone: %s\n", how)
	}
	return nil
}

// CheckEventFilter returns an *UnknownEventError when filter (as given by
// the user) matched no sample of an input that had samples.
func CheckEventFilter(filter string, st Stats) error {
	if filter == "" || st.Samples > 0 || st.Filtered == 0 {
		return nil
	}
	return &UnknownEventError{Filter: filter, Seen: st.EventCounts}
}

// eventMatches compares an event as printed ("cycles:uppp") with a filter
// given with or without its modifiers.
func eventMatches(ev []byte, filter string) bool {
	if string(ev) == filter {
		return true
	}
	base, _, _ := bytes.Cut(ev, []byte{':'})
	fb, _, _ := bytes.Cut([]byte(filter), []byte{':'})
	return bytes.Equal(base, fb) && (len(fb) == len(filter) || len(base) == len(ev))
}

// Fold feeds every line of r to p, ending the sample in
// progress at the end of each input.
func Fold(r *stream.Reader, p *Parser) error {
	for r.Scan() {
		if r.FirstOfInput() {
			if err := p.End(); err != nil {
				return err
			}
		}
		if err := p.Line(r.Name(), r.Line(), r.Bytes()); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	return p.End()
}
