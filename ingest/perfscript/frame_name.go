package perfscript

import (
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// Namer gives a reader that decodes perf's samples itself (perf.data,
// ingest/perfdata) the names the Parser gives them in perf script's
// text: it runs the Parser's own code on one frame line or one sample
// header at a time, so that both paths fold alike with every option.
// The reader calls it once per distinct frame and per distinct header,
// not per sample.
type Namer struct {
	p  *Parser // frames, the event filter and the counts
	hp *Parser // headers, parsed apart so that they count nothing
}

// NewNamer returns a Namer with the options of a Parser (Srcline
// aside: frame lines come without source lines).
func NewNamer(opt Options, diag *stream.Diag) *Namer {
	opt.Srcline, opt.Batch = false, 0
	hopt := opt
	hopt.Warn, hopt.Folded = nil, nil
	// Headers are parsed once per thread and event, timeless: InRange
	// applies the Range to each sample.
	hopt.Range = nil
	// Nothing is emitted: a header line naming a frame of its own (a
	// process name that looks like one) would end its sample there.
	discard := func([]byte, fold.Count) error { return nil }
	return &Namer{p: New(opt, discard, diag), hp: New(hopt, discard, diag)}
}

// Frame folds one frame line as perf script prints it ("IP SYM+0xOFF
// (DSO)") in a process named java… or not. It returns the text of the
// frame's pieces (inlined frames "a->b" are pieces), which ends delimit,
// in the line's order, which is the folded stack's (root first); and
// whether --skip-after names the frame. No piece means the frame is
// left out. The results are reused by the next call.
func (n *Namer) Frame(line []byte, java bool) (text []byte, ends []int32, skipAfter bool, err error) {
	p := n.p
	p.pname = p.pname[:0]
	if java {
		p.pname = append(p.pname, "java"...)
	}
	p.noIP = false
	p.pend, p.pendEnds = p.pend[:0], p.pendEnds[:0]
	skipAfter, err = p.parseFrame("", 0, line)
	return p.pend, p.pendEnds, skipAfter, err
}

// Close ends the addr2line processes of --inline.
func (n *Namer) Close() error { return n.p.Close() }

// Header is what a sample's header line tells the Parser.
type Header struct {
	// Name is the process name frame ("comm", "comm-PID", "comm-PID/TID"
	// as the options ask); Named is false when the sample has none (the
	// line is read as a comment or an event that is not a sample, and
	// the frames that follow fold without a name).
	Name  []byte
	Named bool
	// Java: the sample's frames are tidied as Java's.
	Java bool
	// Skip: the line is not a header; the sample is left out.
	Skip bool
	// Event is the sample's event as the line names it; "" when it
	// names none (the event filter then keeps the sample).
	Event string
	// Period: the line's period field weighs the sample (it has one,
	// and --samples is off).
	Period bool
}

// HeaderPeriod is the period to print in the header lines given to
// Header, when the sample has one: Header tells it from the default
// weight (1). The sample's own period is applied by Weight.
const HeaderPeriod = 2

// Header parses one sample header line, printed as perf script prints
// it with HeaderPeriod for the period. The result is reused by the next
// call.
func (n *Namer) Header(line []byte) (Header, error) {
	p := n.hp
	p.inSample, p.hasName, p.skip = false, false, false
	p.pname = p.pname[:0]
	p.events, p.eventCounts = p.events[:0], p.eventCounts[:0]
	p.opt.EventFilter = ""
	if err := p.Line("", 0, line); err != nil {
		return Header{}, err
	}
	h := Header{}
	switch {
	case !p.inSample:
		// A comment or a PERF_RECORD_ line: the frames that follow
		// begin a sample of their own, without a name.
	case p.skip:
		h.Skip = true
	case p.hasName:
		h.Name, h.Named = p.pname, true
		h.Java = p.java()
		h.Period = p.weight == fold.Int(HeaderPeriod)
	}
	if len(p.events) > 0 {
		h.Event = p.events[0]
	}
	// The sample is ended here: its frames are the caller's.
	p.inSample = false
	p.frames, p.ends = p.frames[:0], p.ends[:0]
	p.pend, p.pendEnds = p.pend[:0], p.pendEnds[:0]
	return h, nil
}

// Weight is the count of a sample whose header h carries period.
func (n *Namer) Weight(h *Header, period uint64) fold.Count {
	if h.Period && period != 0 {
		return fold.Int(period)
	}
	return fold.Int(1)
}

// KeepEvent reports whether samples of event ev are folded: those
// --event-filter names, or those of the first event seen. It counts
// the sample as the Parser does, kept or filtered out.
func (n *Namer) KeepEvent(ev string) bool {
	if ev == "" {
		return true
	}
	if n.p.keepEvent([]byte(ev)) {
		return true
	}
	n.p.stats.Filtered++
	return false
}

// Clock starts the Range's clock, if it has not started, at a sample
// of a perf.data recording: time is its time token as perf script
// prints it ("SECONDS.MICROSECONDS:"), nil when it has none. Call it
// for every sample, kept by the event filter or not, before InRange.
func (n *Namer) Clock(time []byte) { n.p.clock.seeTime(time) }

// InRange applies the Range, if any, to a sample of a perf.data
// recording that the event filter keeps, time being its time token as
// for Clock: as the Parser does to perf script's text of it, it counts
// a sample it leaves out.
func (n *Namer) InRange(time []byte) bool { return n.p.inWindow(time) }

// Ranged reports whether a Range is given: the sample's times matter.
func (n *Namer) Ranged() bool { return n.p.opt.Range != nil }

// Folded counts k samples folded.
func (n *Namer) Folded(k int64) {
	n.p.stats.Samples += k
	if n.p.opt.Folded != nil {
		n.p.opt.Folded.Add(k)
	}
}

// Bare counts k samples folded to their process name alone, which
// CheckChains asks about.
func (n *Namer) Bare(k int64) { n.p.stats.Bare += k }

// Skipped counts k samples left out for their header.
func (n *Namer) Skipped(k int64) { n.p.stats.Skipped += k }

// Counts returns what the Namer counted, as Parser.Counts does.
func (n *Namer) Counts() Stats { return n.p.Counts() }

// AppendFrame appends frame to a folded stack, root first, as the
// Parser joins them: a ';' goes between frames, not before the first
// non-empty one.
func AppendFrame(stack, frame []byte) []byte {
	if len(stack) > 0 {
		stack = append(stack, ';')
	}
	return append(stack, frame...)
}
