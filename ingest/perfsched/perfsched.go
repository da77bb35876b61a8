package perfsched

import (
	"bytes"
	"math"
	"strconv"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is perf script text of scheduler events, folded to off-CPU time.
var Format = format.Format{
	Name:     "perf-sched",
	Within:   "perf-script", // its other events
	Replaces: "stackcollapse-perf-sched.awk",
	Sniff:    sniff,
	Flags: []format.Flag{
		{Name: "record_tid", Aliases: []string{"record-tid"}, Kind: format.Bool, Default: "false",
			Usage: "perf-sched: a stack per thread, under comm-tid"},
		{Name: "record_wake_stack", Aliases: []string{"record-wake-stack"}, Kind: format.Bool, Default: "false",
			Usage: "perf-sched: add the waker's stack (leaf first) and command above the sleeper's"},
		{Name: "recurse", Kind: format.Bool, Default: "false",
			Usage: "perf-sched: add the chain of wakers as far as known (implies --record_wake_stack)"},
	},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &parser{
			emit: emit, diag: diag,
			recordTid:  opts.Bool("record_tid"),
			recordWake: opts.Bool("record_wake_stack"),
			recurse:    opts.Bool("recurse"),
		}, nil
	},
}

// maxFrames bounds one event's call chain (perf's is at most 127 deep
// by default, a few thousand at most): past it the input is not perf
// script.
const maxFrames = 1 << 16

type parser struct {
	format.Passed // comments, other events, other text
	emit          format.EmitFunc
	diag          *stream.Diag
	inSched       bool // in a sched:sched_* event, before the blank line that ends it

	recordTid, recordWake, recurse bool

	// The pending sched_switch: the awk's switchpid and switchstack.
	switchOn  bool
	switchPid []byte
	switchFr  frames

	// The pending sched_stat_*: stat_next_pid, stat_next_command,
	// wakecommand, wakepid, waketime, stat_delay_ns and wakestack.
	statOn   bool
	statPid  []byte
	statCmd  []byte
	wakeCmd  []byte
	wakePid  []byte
	wakeTime bool // a timestamp was found (the awk keeps it as a string, compared with "")
	delay    float64
	wakeFr   frames

	// The awk's arrays indexed by pid, kept per thread so that their
	// buffers are reused: switch_stacks, last_switch_stacks and
	// last_wake_time (true where not "").
	threads map[string]*thread
	times   map[string]*float64
	order   []string // keys of times, in first-seen order

	stack   []byte
	scratch []byte
}

// thread is what the awk's arrays hold for one pid.
type thread struct {
	switchStack     []byte
	hasSwitch       bool // switch_stacks[pid] exists
	lastSwitchStack []byte
	lastWakeTime    bool
}

func (p *parser) thread(pid []byte) *thread {
	if t, ok := p.threads[string(pid)]; ok {
		return t
	}
	if p.threads == nil {
		p.threads = map[string]*thread{}
	}
	t := &thread{}
	p.threads[string(pid)] = t
	return t
}

// frames gathers the function names of one call chain, as read.
type frames struct {
	names [][]byte
	arena []byte
	full  bool // reported too deep
}

func (f *frames) reset() { f.names, f.arena, f.full = f.names[:0], f.arena[:0], false }

func (f *frames) add(name []byte) {
	s := len(f.arena)
	f.arena = append(f.arena, name...)
	f.names = append(f.names, f.arena[s:len(f.arena):len(f.arena)])
}

// first is the index of the first non-empty name: the awk starts its
// string with it (an empty name on an empty string leaves it empty).
func (f *frames) first() int {
	for i, n := range f.names {
		if len(n) > 0 {
			return i
		}
	}
	return len(f.names)
}

// prepended appends to dst the awk's "name ; stack" built name by name:
// the chain root first.
func (f *frames) prepended(dst []byte) []byte {
	k := f.first()
	for i := len(f.names) - 1; i >= k; i-- {
		dst = append(dst, f.names[i]...)
		if i > k {
			dst = append(dst, ';')
		}
	}
	return dst
}

// appended appends to dst the awk's "stack ; name": the chain leaf first.
func (f *frames) appended(dst []byte) []byte {
	k := f.first()
	for i := k; i < len(f.names); i++ {
		if i > k {
			dst = append(dst, ';')
		}
		dst = append(dst, f.names[i]...)
	}
	return dst
}

var (
	markSched   = []byte("sched:sched_")
	markSwitch  = []byte("sched:sched_switch")
	markSleep   = []byte("sched:sched_stat_sleep")
	markBlocked = []byte("sched:sched_stat_blocked")
)

func (p *parser) Line(name string, n int, line []byte) error {
	line = lex.TrimCR(line)
	comment := len(line) > 0 && line[0] == '#'
	sched := !comment && hasSched(line)
	spaced := len(line) > 0 && lex.IsSpace(line[0])

	// The awk's rules, in its order, each on the same line.
	if sched && bytes.Contains(line, markSwitch) {
		p.switchPid = append(p.switchPid[:0], capture(line, "prev_pid")...)
		p.switchOn = string(p.switchPid) != "0"
		p.switchFr.reset()
	}
	if p.switchOn && spaced {
		if err := p.addFrame(&p.switchFr, name, n, line); err != nil {
			return err
		}
	}
	if p.switchOn && len(line) == 0 {
		t := p.thread(p.switchPid)
		t.switchStack = p.switchFr.prepended(t.switchStack[:0])
		t.hasSwitch = true
		t.lastSwitchStack = t.lastSwitchStack[:0]
		p.switchOn = false
		p.switchFr.reset()
	}
	if sched && (bytes.Contains(line, markSleep) || bytes.Contains(line, markBlocked)) {
		f1, f2 := fields2(line)
		p.wakeCmd = append(p.wakeCmd[:0], f1...)
		p.wakePid = append(p.wakePid[:0], f2...)
		p.wakeTime = hasTimestamp(line)
		p.statCmd = append(p.statCmd[:0], capture(line, "comm")...)
		p.statPid = append(p.statPid[:0], capture(line, "pid")...)
		p.delay = awkInt(capture(line, "delay"))
		p.statOn = string(p.statPid) != "0"
		p.wakeFr.reset()
	}
	if p.statOn && spaced {
		if err := p.addFrame(&p.wakeFr, name, n, line); err != nil {
			return err
		}
	}
	if p.statOn && len(line) == 0 {
		p.stat()
		p.statOn = false
		p.wakeFr.reset()
	}
	switch {
	case len(line) == 0:
		p.inSched = false
	case sched:
		p.inSched = true
	case !spaced || !p.inSched:
		p.Pass() // not a sched event's line
	}
	return nil
}

// addFrame adds the function name of a call chain line (the awk's
// get_function_name: the fields but the address and the last, the dso).
func (p *parser) addFrame(f *frames, name string, n int, line []byte) error {
	if len(f.names) >= maxFrames {
		if !f.full {
			f.full = true
			return p.diag.Malformed(name, n, line, "a call chain deeper than perf records")
		}
		return nil
	}
	f.add(functionName(line, &p.scratch))
	return nil
}

// stat ends a sched_stat_* event: the sleeper's pending switch stack
// gets the delay.
func (p *parser) stat() {
	t, ok := p.threads[string(p.statPid)]
	if !ok || !t.hasSwitch {
		return
	}
	t.lastWakeTime = p.wakeTime
	s := append(p.stack[:0], p.statCmd...)
	if p.recordTid {
		s = append(s, '-')
		s = append(s, p.statPid...)
	}
	s = append(s, ';')
	at := len(s) // the awk's stack starts here
	s = append(s, t.switchStack...)
	if p.recurse || p.recordWake {
		s = append(s, ';')
		s = p.wakeFr.appended(s)
		s = append(s, ';')
		s = append(s, p.wakeCmd...)
		if p.recordTid {
			s = append(s, '-')
			s = append(s, p.wakePid...)
		}
	}
	if p.recurse {
		// last_wake_time[wakepid] > last_switch_time[stat_next_pid]: the
		// latter is never set, so this holds once the waker was woken
		// (with a timestamp) since the input began.
		if w, ok := p.threads[string(p.wakePid)]; ok && w.lastWakeTime {
			s = append(s, ";-;"...)
			s = append(s, w.lastSwitchStack...)
		}
		t.lastSwitchStack = append(t.lastSwitchStack[:0], s[at:]...)
	}
	t.hasSwitch = false
	p.stack = s
	if v, ok := p.times[string(s)]; ok {
		*v += p.delay
		return
	}
	if p.times == nil {
		p.times = map[string]*float64{}
	}
	k := string(s)
	d := p.delay
	p.times[k] = &d
	p.order = append(p.order, k)
}

// End emits each stack's time off CPU in microseconds (the awk's END),
// and forgets the input.
func (p *parser) End() error {
	var err error
	for _, k := range p.order {
		us := math.Trunc(*p.times[k] / 1000)
		if !(us > 0) {
			continue
		}
		c := fold.Dec(us)
		if us < math.MaxUint64 {
			c = fold.Int(uint64(us))
		}
		if err = p.emit([]byte(k), c); err != nil {
			break
		}
	}
	*p = parser{Passed: p.Passed, emit: p.emit, diag: p.diag, recordTid: p.recordTid, recordWake: p.recordWake, recurse: p.recurse}
	return err
}

// hasSched is bytes.Contains(line, markSched), looked for at each ':'
// of the line: a call chain's lines seldom have one, and bytes.Index
// stops at each 's' of theirs ("sched", "sys_").
func hasSched(line []byte) bool {
	const colon = len("sched")
	for i := 0; ; i++ {
		j := bytes.IndexByte(line[i:], ':')
		if j < 0 {
			return false
		}
		if i += j; i >= colon && bytes.HasPrefix(line[i-colon:], markSched) {
			return true
		}
	}
}

// isBlank separates awk's default fields.
func isBlank(c byte) bool { return blank[c] }

// blank[c] is whether c is ' ', '\t' or '\n': a load, not three compares.
var blank = [256]bool{' ': true, '\t': true, '\n': true}

// capture is the awk's get_perf_captured_variable: the value after the
// first "name=" that has one (match(variable "=[^[:space:]]+")).
func capture(line []byte, name string) []byte {
	for off := 0; ; {
		i := bytes.Index(line[off:], []byte(name))
		if i < 0 {
			return nil
		}
		i += off
		v := i + len(name)
		if v < len(line) && line[v] == '=' {
			e := v + 1
			for e < len(line) && !lex.IsSpace(line[e]) {
				e++
			}
			if e > v+1 {
				return line[v+1 : e]
			}
		}
		off = i + 1
	}
}

// hasTimestamp reports whether the awk's get_perf_timestamp finds one:
// match($0, " [^ :]+:").
func hasTimestamp(line []byte) bool {
	for i := 0; i < len(line); i++ {
		if line[i] != ' ' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != ' ' && line[j] != ':' {
			j++
		}
		if j > i+1 && j < len(line) && line[j] == ':' {
			return true
		}
	}
	return false
}

// fields2 returns the awk's $1 and $2.
func fields2(line []byte) (f1, f2 []byte) {
	var f [2][]byte
	i := 0
	for k := 0; k < 2; k++ {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		s := i
		for i < len(line) && !isBlank(line[i]) {
			i++
		}
		f[k] = line[s:i]
	}
	return f[0], f[1]
}

// functionName is the awk's get_function_name: $2 to $(NF-1), joined by
// single spaces (the address and the dso go). The result may live in
// scratch.
func functionName(line []byte, scratch *[]byte) []byte {
	// $2 from the front, past the address; its end, or $(NF-1)'s, from
	// the back, before the dso: the name between is read once, by
	// needsSqueeze.
	i := 0
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	for i < len(line) && !isBlank(line[i]) {
		i++
	}
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	if i == len(line) {
		return nil // NF < 2
	}
	j := len(line)
	for isBlank(line[j-1]) { // line[i] is not
		j--
	}
	k := j
	for k > i && !isBlank(line[k-1]) {
		k--
	}
	if k > i { // $NF is not $2: it goes, and the blanks before it
		for isBlank(line[k-1]) {
			k--
		}
		j = k
	}
	if span := line[i:j]; !needsSqueeze(span) {
		return span
	}
	return squeezedName(line, scratch)
}

// squeezedName is functionName for a name whose fields are apart by
// more than a single space: it splits the line into its fields.
func squeezedName(line []byte, scratch *[]byte) []byte {
	var b [16][2]int
	bounds := b[:0]
	for i := 0; ; {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) {
			break
		}
		s := i
		for i < len(line) && !isBlank(line[i]) {
			i++
		}
		bounds = append(bounds, [2]int{s, i})
	}
	nf := len(bounds)
	if nf < 2 {
		return nil
	}
	last := max(nf-2, 1)
	span := line[bounds[1][0]:bounds[last][1]]
	if !needsSqueeze(span) {
		return span
	}
	out := (*scratch)[:0]
	for k := 1; k <= last; k++ {
		if k > 1 {
			out = append(out, ' ')
		}
		out = append(out, line[bounds[k][0]:bounds[k][1]]...)
	}
	*scratch = out
	return out
}

// needsSqueeze reports whether span has a blank other than a single space.
func needsSqueeze(span []byte) bool {
	for i, c := range span {
		if isBlank(c) && (c != ' ' || i > 0 && span[i-1] == ' ') {
			return true
		}
	}
	return false
}

// awkInt is int() of a string as gawk converts it: leading blanks, an
// optional sign, digits, a fraction, an exponent; anything else is 0.
func awkInt(b []byte) float64 {
	i := 0
	for i < len(b) && lex.IsSpace(b[i]) {
		i++
	}
	s := i
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	d := i
	i += lex.Digits(b[i:])
	if i < len(b) && b[i] == '.' {
		i++
		i += lex.Digits(b[i:])
	}
	if i == d || i == d+1 && b[d] == '.' {
		return 0
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		j := i + 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j += lex.Digits(b[j:])
			i = j
		}
	}
	v, err := strconv.ParseFloat(string(b[s:i]), 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0
	}
	return math.Trunc(v)
}

// sniff is Sure on a perf script event line of sched:sched_stat_sleep or
// sched:sched_stat_blocked ("comm tid [cpu] 12.345678: sched:…") with the
// fields the script reads (comm=, pid=, delay=): only an off-CPU
// recording has them.
func sniff(prefix []byte) format.Score {
	for l := range format.Lines(prefix) {
		if len(l) == 0 || l[0] == '#' || lex.IsSpace(l[0]) {
			continue
		}
		for _, m := range [][]byte{markSleep, markBlocked} {
			j := bytes.Index(l, m)
			// A header has no ';' before its event: a folded line
			// whose frames hold such a line is not one.
			if j <= 0 || !bytes.HasPrefix(l[j+len(m):], []byte(": ")) || l[j-1] != ' ' || bytes.IndexByte(l[:j], ';') >= 0 {
				continue
			}
			if !afterTimestamp(l[:j]) {
				continue
			}
			rest := l[j+len(m)+2:]
			if bytes.HasPrefix(rest, []byte("comm=")) && bytes.Contains(rest, []byte(" pid=")) && bytes.Contains(rest, []byte(" delay=")) {
				return format.Sure
			}
		}
	}
	return format.No
}

// afterTimestamp reports whether head ends in perf script's time field,
// "SECONDS.FRACTION:" and blanks.
func afterTimestamp(head []byte) bool {
	head = bytes.TrimRight(head, " ")
	tok := head[bytes.LastIndexByte(head, ' ')+1:]
	if len(tok) < 4 || tok[len(tok)-1] != ':' {
		return false
	}
	tok = tok[:len(tok)-1]
	dot := bytes.IndexByte(tok, '.')
	if dot <= 0 || dot == len(tok)-1 {
		return false
	}
	for i, c := range tok {
		if i != dot && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
