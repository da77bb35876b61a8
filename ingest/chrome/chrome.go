package chrome

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/jsonscan"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the Chrome trace event input format.
var Format = format.Format{
	Name:     "chrome",
	Replaces: "stackcollapse-chrome-tracing.py",
	Sniff:    sniff,
	NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		p := &parser{emit: emit, diag: diag, names: map[string]int32{}, threads: map[string]int32{},
			limit: jsonscan.DefaultLimit}
		p.ev.p = p
		return p, nil
	},
}

// event is one complete event as held until its thread is folded.
type event struct {
	ts, dur float64
	name    int32 // index in parser.frames
}

// open is an event on the stack being walked.
type open struct {
	stop, self float64
	n          int // length of the stack text before its frame
}

type parser struct {
	emit format.EmitFunc
	diag *stream.Diag

	// One input's state, reset by Read.
	name    string
	names   map[string]int32 // a name's JSON text → index in frames
	frames  []string         // the names as frames
	threads map[string]int32 // "pid\x00tid" → index in events
	events  [][]event        // per thread, in order of first appearance
	sc      *jsonscan.Scanner
	limit   int // the longest event held
	ev      rawEvent
	key     []byte
	// The thread of the last event, and its pid's and tid's texts
	// (lastThread -1: none yet).
	lastThread       int32
	lastPid, lastTid []byte
	stack            []byte
	open             []open

	// Across inputs, for Stats.
	nEvents, nThreads, noDur, clipped, traces int
}

func (p *parser) reset(name string) {
	p.name = name
	clear(p.names)
	clear(p.threads)
	p.lastThread = -1
	p.frames = p.frames[:0]
	for i := range p.events {
		p.events[i] = p.events[i][:0]
	}
	p.events = p.events[:0]
}

func (p *parser) Read(name string, r io.Reader) error {
	p.reset(name)
	if p.sc == nil {
		p.sc = jsonscan.New(jsonscan.SkipBOM(r), p.limit)
	} else {
		p.sc.Reset(jsonscan.SkipBOM(r), p.limit)
	}
	err := p.read(p.sc)
	var de *jsonscan.DocError
	if errors.As(err, &de) {
		if err := p.malformed(de.Offset, de.Why); err != nil {
			return err
		}
		// Fold the events read before the fault.
	} else if err != nil {
		return err
	}
	p.traces++
	for i := range p.events {
		if err := p.fold(p.events[i]); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) read(sc *jsonscan.Scanner) error {
	k, _, err := sc.Token()
	if err != nil {
		return sc.Describe(err, "a trace")
	}
	switch k {
	case jsonscan.ArrayStart:
		return p.readEvents(sc, true)
	case jsonscan.ObjectStart:
	default:
		return &jsonscan.DocError{Offset: 0, Why: "not a trace: want {\"traceEvents\":[…]} or an array of events"}
	}
	found := false
	for sc.More() {
		_, key, err := sc.Token()
		if err != nil {
			return sc.Describe(err, "a key")
		}
		if string(jsonscan.UnquoteKey(key)) != "traceEvents" {
			if err := sc.Describe(sc.Skip(), "a value"); err != nil {
				return err
			}
			continue
		}
		found = true
		k, _, err := sc.Token()
		if err != nil {
			return sc.Describe(err, "traceEvents")
		}
		if k != jsonscan.ArrayStart {
			if k == jsonscan.ObjectStart {
				if err := sc.Describe(sc.SkipRest(), "a value"); err != nil {
					return err
				}
			}
			if err := p.malformed(sc.InputOffset(), "\"traceEvents\" is not an array"); err != nil {
				return err
			}
			continue
		}
		if err := p.readEvents(sc, false); err != nil {
			return err
		}
	}
	if _, _, err := sc.Token(); err != nil {
		return sc.Describe(err, "the end of the trace")
	}
	if !found {
		return p.malformed(-1, "no \"traceEvents\": not a Chrome trace")
	}
	return nil
}

// readEvents reads the events of an array just opened. In the JSON Array
// Format (bare) the closing ']' may be missing, and a ',' may end the
// input, as a process that stopped mid-trace leaves it. Each event is
// checked whole by the scanner before it is read.
func (p *parser) readEvents(sc *jsonscan.Scanner, bare bool) error {
	for sc.More() {
		p.ev.off = sc.InputOffset()
		raw, members, err := sc.RawObject()
		if err != nil {
			if bare && err == io.EOF {
				return nil
			}
			return sc.Describe(err, "an event")
		}
		if err := p.ev.read(raw, members); err != nil {
			return err
		}
	}
	if _, _, err := sc.Token(); err != nil {
		if bare && err == io.EOF {
			return nil
		}
		return sc.Describe(err, "the events")
	}
	return nil
}

// malformed reports a fault at byte off of the input (-1: no place).
func (p *parser) malformed(off int64, why string) error {
	if off >= 0 {
		why = fmt.Sprintf("at byte %d: %s", off, why)
	}
	return p.diag.Malformed(p.name, 0, nil, why)
}

// rawEvent takes one event's text (checked to be well-formed JSON) and
// picks out the keys the fold needs.
type rawEvent struct {
	p                           *parser
	off                         int64
	ph, name, pid, tid, ts, dur []byte // JSON texts, nil when absent
}

func (e *rawEvent) read(b []byte, members []jsonscan.Member) error {
	e.ph, e.name, e.pid, e.tid, e.ts, e.dur = nil, nil, nil, nil, nil, nil
	if len(b) == 0 || b[0] != '{' {
		return e.p.malformed(e.off, "an event that is not an object")
	}
	for _, m := range members {
		val := b[m.ValStart:m.ValEnd]
		// The key as it is written, the usual case, then unescaped: only
		// a \u escape, 6 bytes, can stand for a letter of the keys read.
		if key := b[m.KeyStart+1 : m.KeyEnd-1]; !e.set(key, val) && len(key) >= 6 && bytes.IndexByte(key, '\\') >= 0 {
			e.set(jsonscan.UnquoteKey(b[m.KeyStart:m.KeyEnd]), val)
		}
	}
	return e.p.event(e)
}

// set takes the value of key when it is one the fold reads.
func (e *rawEvent) set(key, val []byte) bool {
	switch string(key) {
	case "ph":
		e.ph = val
	case "name":
		e.name = val
	case "pid":
		e.pid = val
	case "tid":
		e.tid = val
	case "ts":
		e.ts = val
	case "dur":
		e.dur = val
	default:
		return false
	}
	return true
}

// event takes one event: a complete event with a duration is held.
func (p *parser) event(e *rawEvent) error {
	if e.ph == nil {
		return p.malformed(e.off, "an event without \"ph\"")
	}
	if string(e.ph) != `"X"` && (!jsonscan.IsString(e.ph) || jsonscan.Unquote(e.ph) != "X") {
		return nil
	}
	if e.dur == nil {
		p.noDur++ // as the script, which skips them
		return nil
	}
	if e.name == nil || !jsonscan.IsString(e.name) {
		return p.malformed(e.off, "a complete event without a \"name\" string")
	}
	ts, ok := number(e.ts)
	if !ok {
		return p.malformed(e.off, "a complete event without a \"ts\" number")
	}
	dur, ok := number(e.dur)
	if !ok || dur < 0 {
		return p.malformed(e.off, "a complete event whose \"dur\" is not a number of 0 or more")
	}
	th := p.lastThread
	if th < 0 || !bytes.Equal(e.pid, p.lastPid) || !bytes.Equal(e.tid, p.lastTid) {
		th = p.thread(e.pid, e.tid)
		// The same texts make the same thread: most events are on the
		// thread of the one before.
		p.lastPid = append(p.lastPid[:0], e.pid...)
		p.lastTid = append(p.lastTid[:0], e.tid...)
		p.lastThread = th
	}
	p.events[th] = append(p.events[th], event{ts: ts, dur: dur, name: p.intern(e.name)})
	p.nEvents++
	return nil
}

// thread returns the index in events of the thread of a pid and tid
// (JSON texts, nil when absent), a new one the first time.
func (p *parser) thread(pid, tid []byte) int32 {
	p.key = appendID(p.key[:0], pid)
	p.key = append(p.key, 0)
	p.key = appendID(p.key, tid)
	th, ok := p.threads[string(p.key)]
	if !ok {
		th = int32(len(p.events))
		p.threads[string(p.key)] = th
		if len(p.events) < cap(p.events) {
			p.events = p.events[:len(p.events)+1]
		} else {
			p.events = append(p.events, nil)
		}
		p.nThreads++
	}
	return th
}

// intern returns the index of the frame for a name's JSON text.
func (p *parser) intern(raw []byte) int32 {
	if i, ok := p.names[string(raw)]; ok {
		return i
	}
	i := int32(len(p.frames))
	p.names[string(raw)] = i
	p.frames = append(p.frames, frameName(jsonscan.Unquote(raw)))
	return i
}

// frameName makes an event's name one frame: ';' becomes ':', a line
// break a space, and an empty name "-".
func frameName(s string) string {
	if s == "" {
		return "-"
	}
	return string(lex.AppendFrameLine(nil, s))
}

// fold nests one thread's events by time and emits each stack with its
// leaf's own time, as the script's load_stack_identifiers does.
func (p *parser) fold(evs []event) error {
	// Sort by start; at one start, the longer first (it is the parent).
	slices.SortStableFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.ts, b.ts); c != 0 {
			return c
		}
		return cmp.Compare(b.dur, a.dur)
	})
	st := p.open[:0]
	s := p.stack[:0]
	var err error
	pop := func() {
		top := st[len(st)-1]
		if err == nil && top.self > 0 {
			err = p.emit(s, count(top.self))
		}
		s = s[:top.n]
		st = st[:len(st)-1]
	}
	for _, e := range evs {
		for len(st) > 0 && st[len(st)-1].stop <= e.ts {
			pop()
		}
		stop, dur := e.ts+e.dur, e.dur
		if len(st) > 0 {
			parent := &st[len(st)-1]
			if stop > parent.stop {
				stop, dur = parent.stop, parent.stop-e.ts
				p.clipped++
			}
			parent.self -= dur
		}
		n := len(s)
		if n > 0 {
			s = append(s, ';')
		}
		s = append(s, p.frames[e.name]...)
		st = append(st, open{stop: stop, self: dur, n: n})
	}
	for len(st) > 0 {
		pop()
	}
	p.open, p.stack = st, s
	return err
}

// count is a weight in the trace's unit: an integer when it is one.
func count(f float64) fold.Count {
	if f == math.Trunc(f) && f < 1<<63 {
		return fold.Int(uint64(f))
	}
	return fold.Dec(f)
}

// Stats says how many events were folded.
func (p *parser) Stats() string {
	s := fmt.Sprintf("%d complete events on %d threads in %d traces", p.nEvents, p.nThreads, p.traces)
	if p.noDur > 0 {
		s += fmt.Sprintf(", %d without a duration skipped", p.noDur)
	}
	if p.clipped > 0 {
		s += fmt.Sprintf(", %d cut at their parent's end", p.clipped)
	}
	return s
}

// number parses a JSON number (not a string, as the script's float() would
// also take).
func number(v []byte) (float64, bool) {
	if len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return 0, false
	}
	// Small integers, most timestamps, without strconv.
	if len(v) < 16 {
		var n int64
		i := 0
		if v[0] == '-' {
			i = 1
		}
		j := i
		for ; j < len(v) && v[j] >= '0' && v[j] <= '9'; j++ {
			n = n*10 + int64(v[j]-'0')
		}
		if j == len(v) && j > i {
			if i == 1 {
				n = -n
			}
			return float64(n), true
		}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// appendID appends the text of a pid or tid, the same for 7, "7" and
// 7.0 as the script's int() makes them.
func appendID(dst, v []byte) []byte {
	if plainInt(v) {
		return append(dst, v...) // what strconv.AppendInt would write
	}
	if jsonscan.IsString(v) {
		s := jsonscan.Unquote(v)
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			v = []byte(s)
		} else {
			return append(dst, v...)
		}
	}
	if f, ok := number(v); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return append(dst, v...)
}

// plainInt reports whether v is an integer literal of at most 15 digits
// with no sign but a '-' on a nonzero number: its own decimal text.
func plainInt(v []byte) bool {
	i := 0
	if len(v) > 0 && v[0] == '-' {
		i = 1
	}
	if len(v) == i || len(v) > 15 || v[i] == '0' && len(v) > i+1 || i == 1 && v[1] == '0' {
		return false
	}
	for _, c := range v[i:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// discard takes any JSON value and keeps nothing.
type discard struct{}

func (discard) UnmarshalJSON([]byte) error { return nil }

// sniff is Sure on a JSON object with a "traceEvents" array whose first
// event has a "ph" (or that is empty), and on a JSON array whose first
// element is an event: an object with "ph" and one of "ts", "pid", "tid",
// "name".
func sniff(prefix []byte) format.Score {
	prefix = bytes.TrimPrefix(prefix, []byte(jsonscan.BOM))
	dec := json.NewDecoder(bytes.NewReader(prefix))
	t, err := dec.Token()
	if err != nil {
		return format.No
	}
	var first map[string]json.RawMessage
	switch t {
	case json.Delim('['):
		if !dec.More() || dec.Decode(&first) != nil {
			return format.No
		}
		if _, ok := first["ph"]; !ok {
			return format.No
		}
		for _, k := range []string{"ts", "pid", "tid", "name"} {
			if _, ok := first[k]; ok {
				return format.Sure
			}
		}
		return format.No
	case json.Delim('{'):
	default:
		return format.No
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return format.No
		}
		switch t {
		case "traceEvents":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return format.No
			}
			if !dec.More() {
				return format.Sure
			}
			if dec.Decode(&first) != nil {
				return format.No
			}
			if _, ok := first["ph"]; ok {
				return format.Sure
			}
			return format.No
		case "nodes", "head":
			// A V8 CPU or heap profile.
			return format.No
		}
		if dec.Decode(&discard{}) != nil {
			return format.No
		}
	}
	return format.No
}
