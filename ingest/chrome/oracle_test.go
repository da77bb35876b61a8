package chrome

// The parser as it was before it read with jsonscan: encoding/json's
// Decoder, token by token and event by event. FuzzOracle folds every
// input with it and with the parser, and compares. Generated from the
// old chrome.go by renaming its top-level names with the prefix "ref".

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
	"github.com/pfold/pfold/stream"
)

// Format is the Chrome trace event input format.
var refFormat = format.Format{
	Name:     "chrome",
	Replaces: "stackcollapse-chrome-tracing.py",
	Sniff:    refSniff,
	NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		p := &refParser{emit: emit, diag: diag, names: map[string]int32{}, threads: map[string]int32{}}
		p.ev.p = p
		return p, nil
	},
}

// event is one complete event as held until its thread is folded.
type refEvent struct {
	ts, dur float64
	name    int32 // index in parser.frames
}

// open is an event on the stack being walked.
type refOpen struct {
	stop, self float64
	n          int // length of the stack text before its frame
}

type refParser struct {
	emit format.EmitFunc
	diag *stream.Diag

	// One input's state, reset by Read.
	name    string
	names   map[string]int32 // a name's JSON text → index in frames
	frames  []string         // the names as frames
	threads map[string]int32 // "pid\x00tid" → index in events
	events  [][]refEvent     // per thread, in order of first appearance
	ev      refRawEvent
	key     []byte
	stack   []byte
	open    []refOpen

	// Across inputs, for Stats.
	nEvents, nThreads, noDur, clipped, traces int
}

func (p *refParser) reset(name string) {
	p.name = name
	clear(p.names)
	clear(p.threads)
	p.frames = p.frames[:0]
	for i := range p.events {
		p.events[i] = p.events[i][:0]
	}
	p.events = p.events[:0]
	p.ev.err = nil
}

// docError is a document that cannot be read on: not JSON, not a trace,
// cut short.
type refDocError struct {
	off int64
	why string
}

func (e *refDocError) Error() string { return e.why }

func (p *refParser) Read(name string, r io.Reader) error {
	p.reset(name)
	dec := json.NewDecoder(refSkipBOM(r))
	err := p.read(dec)
	var de *refDocError
	if errors.As(err, &de) {
		if err := p.malformed(de.off, de.why); err != nil {
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

func (p *refParser) read(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return refJsonError(dec, err, "a trace")
	}
	switch t {
	case json.Delim('['):
		return p.readEvents(dec, true)
	case json.Delim('{'):
	default:
		return &refDocError{0, "not a trace: want {\"traceEvents\":[…]} or an array of events"}
	}
	found := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return refJsonError(dec, err, "a key")
		}
		if t != "traceEvents" {
			if err := refSkip(dec); err != nil {
				return err
			}
			continue
		}
		found = true
		t, err = dec.Token()
		if err != nil {
			return refJsonError(dec, err, "traceEvents")
		}
		if t != json.Delim('[') {
			if d, ok := t.(json.Delim); ok && d == '{' {
				if err := refSkipRest(dec); err != nil {
					return err
				}
			}
			if err := p.malformed(dec.InputOffset(), "\"traceEvents\" is not an array"); err != nil {
				return err
			}
			continue
		}
		if err := p.readEvents(dec, false); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return refJsonError(dec, err, "the end of the trace")
	}
	if !found {
		return p.malformed(-1, "no \"traceEvents\": not a Chrome trace")
	}
	return nil
}

// readEvents reads the events of an array just opened. In the JSON Array
// Format (bare) the closing ']' may be missing, and a ',' may end the
// input, as a process that stopped mid-trace leaves it.
func (p *refParser) readEvents(dec *json.Decoder, bare bool) error {
	for dec.More() {
		p.ev.off = dec.InputOffset()
		err := dec.Decode(&p.ev)
		if p.ev.err != nil {
			return p.ev.err
		}
		if err != nil {
			if bare && err == io.EOF {
				return nil
			}
			return refJsonError(dec, err, "an event")
		}
	}
	if _, err := dec.Token(); err != nil {
		if bare && err == io.EOF {
			return nil
		}
		return refJsonError(dec, err, "the events")
	}
	return nil
}

// malformed reports a fault at byte off of the input (-1: no place).
func (p *refParser) malformed(off int64, why string) error {
	if off >= 0 {
		why = fmt.Sprintf("at byte %d: %s", off, why)
	}
	return p.diag.Malformed(p.name, 0, nil, why)
}

// rawEvent takes one event from encoding/json (its text checked to be
// well-formed JSON) and picks out the keys the fold needs.
type refRawEvent struct {
	p                           *refParser
	off                         int64
	err                         error
	ph, name, pid, tid, ts, dur []byte // JSON texts, nil when absent
}

func (e *refRawEvent) UnmarshalJSON(b []byte) error {
	e.ph, e.name, e.pid, e.tid, e.ts, e.dur = nil, nil, nil, nil, nil, nil
	if len(b) == 0 || b[0] != '{' {
		e.err = e.p.malformed(e.off, "an event that is not an object")
		return e.err
	}
	refScanObject(b, func(key, val []byte) {
		switch string(refUnquoteKey(key)) {
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
		}
	})
	e.err = e.p.event(e)
	return e.err
}

// event takes one event: a complete event with a duration is held.
func (p *refParser) event(e *refRawEvent) error {
	if e.ph == nil {
		return p.malformed(e.off, "an event without \"ph\"")
	}
	if string(e.ph) != `"X"` && (!refIsString(e.ph) || refUnquote(e.ph) != "X") {
		return nil
	}
	if e.dur == nil {
		p.noDur++ // as the script, which skips them
		return nil
	}
	if e.name == nil || !refIsString(e.name) {
		return p.malformed(e.off, "a complete event without a \"name\" string")
	}
	ts, ok := refNumber(e.ts)
	if !ok {
		return p.malformed(e.off, "a complete event without a \"ts\" number")
	}
	dur, ok := refNumber(e.dur)
	if !ok || dur < 0 {
		return p.malformed(e.off, "a complete event whose \"dur\" is not a number of 0 or more")
	}
	p.key = refAppendID(p.key[:0], e.pid)
	p.key = append(p.key, 0)
	p.key = refAppendID(p.key, e.tid)
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
	p.events[th] = append(p.events[th], refEvent{ts: ts, dur: dur, name: p.intern(e.name)})
	p.nEvents++
	return nil
}

// intern returns the index of the frame for a name's JSON text.
func (p *refParser) intern(raw []byte) int32 {
	if i, ok := p.names[string(raw)]; ok {
		return i
	}
	i := int32(len(p.frames))
	p.names[string(raw)] = i
	p.frames = append(p.frames, refFrameName(refUnquote(raw)))
	return i
}

// frameName makes an event's name one frame: ';' becomes ':', a line
// break a space, and an empty name "-".
func refFrameName(s string) string {
	if s == "" {
		return "-"
	}
	b := []byte(s)
	for i, c := range b {
		switch c {
		case ';':
			b[i] = ':'
		case '\n', '\r':
			b[i] = ' '
		}
	}
	return string(b)
}

// fold nests one thread's events by time and emits each stack with its
// leaf's own time, as the script's load_stack_identifiers does.
func (p *refParser) fold(evs []refEvent) error {
	// Sort by start; at one start, the longer first (it is the parent).
	slices.SortStableFunc(evs, func(a, b refEvent) int {
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
			err = p.emit(s, refCount(top.self))
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
		st = append(st, refOpen{stop: stop, self: dur, n: n})
	}
	for len(st) > 0 {
		pop()
	}
	p.open, p.stack = st, s
	return err
}

// count is a weight in the trace's unit: an integer when it is one.
func refCount(f float64) fold.Count {
	if f == math.Trunc(f) && f < 1<<63 {
		return fold.Int(uint64(f))
	}
	return fold.Dec(f)
}

// Stats says how many events were folded.
func (p *refParser) Stats() string {
	s := fmt.Sprintf("%d complete events on %d threads in %d traces", p.nEvents, p.nThreads, p.traces)
	if p.noDur > 0 {
		s += fmt.Sprintf(", %d without a duration skipped", p.noDur)
	}
	if p.clipped > 0 {
		s += fmt.Sprintf(", %d cut at their parent's end", p.clipped)
	}
	return s
}

func refIsString(v []byte) bool { return len(v) >= 2 && v[0] == '"' }

// unquote returns the string a JSON string literal stands for.
func refUnquote(v []byte) string {
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var s string
	json.Unmarshal(v, &s)
	return s
}

// unquoteKey returns a key's text without its quotes, unescaped when it
// has escapes.
func refUnquoteKey(k []byte) []byte {
	if bytes.IndexByte(k, '\\') < 0 {
		return k[1 : len(k)-1]
	}
	return []byte(refUnquote(k))
}

// number parses a JSON number (not a string, as the script's float() would
// also take).
func refNumber(v []byte) (float64, bool) {
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
func refAppendID(dst, v []byte) []byte {
	if refIsString(v) {
		s := refUnquote(v)
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			v = []byte(s)
		} else {
			return append(dst, v...)
		}
	}
	if f, ok := refNumber(v); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return append(dst, v...)
}

// scanObject calls fn with each key (with its quotes) and value text of
// the well-formed JSON object b.
func refScanObject(b []byte, fn func(key, val []byte)) {
	i := 1
	for {
		i = refSkipSpace(b, i)
		if i >= len(b) || b[i] == '}' {
			return
		}
		if b[i] == ',' {
			i++
			continue
		}
		ks := i
		i = refSkipString(b, i)
		key := b[ks:i]
		i = refSkipSpace(b, i)
		if i < len(b) && b[i] == ':' {
			i++
		}
		i = refSkipSpace(b, i)
		vs := i
		i = refSkipValue(b, i)
		fn(key, b[vs:i])
	}
}

func refSkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i].
func refSkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value starting at b[i].
func refSkipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return refSkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = refSkipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\r' {
		i++
	}
	return i
}

func refIsTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// jsonError turns a decoder error into a docError at its offset.
func refJsonError(dec *json.Decoder, err error, what string) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &refDocError{se.Offset, "not JSON: " + se.Error()}
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return &refDocError{dec.InputOffset(), "the JSON ends before " + what + " does (cut short?)"}
	case refIsTypeError(err):
		return &refDocError{dec.InputOffset(), what + ": " + err.Error()}
	}
	return err
}

// skip reads past the next value. encoding/json holds the value's text
// while it checks it, but nothing of it is kept.
func refSkip(dec *json.Decoder) error {
	if err := dec.Decode(&refDiscard{}); err != nil {
		return refJsonError(dec, err, "a value")
	}
	return nil
}

// discard takes any JSON value and keeps nothing.
type refDiscard struct{}

func (refDiscard) UnmarshalJSON([]byte) error { return nil }

// skipRest reads to the end of the object or array just opened.
func refSkipRest(dec *json.Decoder) error {
	for dec.More() {
		if err := refSkip(dec); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return refJsonError(dec, err, "a value")
	}
	return nil
}

var refBom = []byte("\xef\xbb\xbf")

// skipBOM drops a UTF-8 byte order mark, which encoding/json refuses.
func refSkipBOM(r io.Reader) io.Reader {
	var head [3]byte
	n, _ := io.ReadFull(r, head[:]) // r gives its error again
	if n == 3 && head == [3]byte(refBom) {
		return r
	}
	return io.MultiReader(bytes.NewReader(head[:n]), r)
}

// sniff is Sure on a JSON object with a "traceEvents" array whose first
// event has a "ph" (or that is empty), and on a JSON array whose first
// element is an event: an object with "ph" and one of "ts", "pid", "tid",
// "name".
func refSniff(prefix []byte) format.Score {
	prefix = bytes.TrimPrefix(prefix, refBom)
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
		if refSkip(dec) != nil {
			return format.No
		}
	}
	return format.No
}
