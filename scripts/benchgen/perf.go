package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/cespare/xxhash/v2"
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/perfscript"
	"github.com/pfold/pfold/stream"
)

// event is the event every generated sample carries. pfold, like
// stackcollapse-perf.pl, folds only the first event of a dump, so the
// fixtures recorded on cycles are renamed rather than left out.
const event = "cpu-clock:"

// A source is one recording: the samples a dump draws from it.
type source struct {
	name    string
	samples []sample
}

// A sample is one recorded sample, ready to be written again with a new
// pid, tid and time and, to make a new stack, a suffix on one frame.
type sample struct {
	head []byte // header line, event renamed, without "\n"
	// The byte ranges in head of the pid[/tid] token and of the time
	// (without its ':'); -1 when the layout has none.
	pidAt, pidEnd   int
	timeAt, timeEnd int
	pid, tid        int64
	nsDigits        int    // digits after the time's '.' (6, or 9 with --ns)
	body            []byte // frame lines, each ending in "\n"
	// sites are the offsets in body where a suffix changes a frame name
	// (and so the folded stack), leaf-most first.
	sites []int
	stack int // index of the folded stack among the recorded ones
	// key tells the samples whose suffix v lands on the same frame (same
	// stack, same number of sites), so that they make the same new stack.
	key int
}

// loadSources reads perf script templates: files, or the *.txt files of
// directories, in name order. Samples that pfold does not fold cleanly
// are left out, so a generated dump has no malformed line.
func loadSources(names []string, maxStack int) ([]*source, error) {
	var files []string
	for _, n := range names {
		st, err := os.Stat(n)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, n)
			continue
		}
		m, err := filepath.Glob(filepath.Join(n, "*.txt"))
		if err != nil {
			return nil, err
		}
		slices.Sort(m)
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no template files in %v", names)
	}
	l := &loader{stacks: map[uint64]int{}, keys: map[[2]int]int{}}
	var srcs []*source
	for _, f := range files {
		src, err := l.load(f, maxStack)
		if err != nil {
			return nil, err
		}
		if len(src.samples) == 0 {
			return nil, fmt.Errorf("%s: no perf script sample", f)
		}
		srcs = append(srcs, src)
	}
	return srcs, nil
}

// loader folds template samples with pfold's own parser, to know which
// stack each one makes and where a suffix makes a new one.
type loader struct {
	stacks map[uint64]int // hash of a folded stack → its index
	keys   map[[2]int]int // (stack, number of sites) → key
	folded []byte
	ok     bool
}

func (l *loader) load(name string, maxStack int) (*source, error) {
	r, err := stream.Open(name)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	src := &source{name: name}
	var lines [][]byte
	flush := func() {
		if len(lines) > 0 {
			if s, ok := l.sample(lines, maxStack); ok {
				src.samples = append(src.samples, s)
			}
		}
		lines = lines[:0]
	}
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(bytes.TrimSpace(line)) == 0:
			flush()
		case line[0] == '#':
			// perf script --header lines
		default:
			lines = append(lines, line)
		}
	}
	flush()
	return src, nil
}

// sample makes a template of one recorded sample; ok is false when the
// sample is not one pfold folds into a stack without complaint.
func (l *loader) sample(lines [][]byte, maxStack int) (sample, bool) {
	s := sample{pidAt: -1, timeAt: -1}
	if lines[0][0] == ' ' || lines[0][0] == '\t' {
		return s, false // frames without a header: not a layout we mix in
	}
	s.head = s.parseHeader(lines[0])
	frames := lines[1:]
	if maxStack > 0 && len(frames) > maxStack {
		frames = frames[:maxStack]
	}
	if len(frames) == 0 {
		return s, false
	}
	for _, f := range frames {
		s.body = append(s.body, f...)
		s.body = append(s.body, '\n')
	}
	stack, ok := l.fold(s.head, s.body)
	if !ok {
		return s, false
	}
	h := xxhash.Sum64(stack)
	idx, seen := l.stacks[h]
	if !seen {
		idx = len(l.stacks)
		l.stacks[h] = idx
	}
	s.stack = idx

	// Find up to three frames, leaf-most first, where a suffix shows in
	// the folded stack (not an unknown symbol, not cut off with the
	// arguments), by folding the sample with a trial suffix.
	off := 0
	for _, f := range frames {
		for _, at := range suffixPoints(f) {
			if len(s.sites) == 3 {
				break
			}
			trial := slices.Concat(s.body[:off+at], []byte("_0"), s.body[off+at:])
			if got, ok := l.fold(s.head, trial); ok && renamedOne(stack, got, "_0") {
				s.sites = append(s.sites, off+at)
				break
			}
		}
		off += len(f) + 1
	}
	k := [2]int{s.stack, len(s.sites)}
	if s.key, seen = l.keys[k]; !seen {
		s.key = len(l.keys)
		l.keys[k] = s.key
	}
	return s, true
}

// renamedOne reports whether stack b is stack a with suffix added inside
// one frame name and no other change.
func renamedOne(a, b []byte, suffix string) bool {
	fa, fb := bytes.Split(a, []byte(";")), bytes.Split(b, []byte(";"))
	if len(fa) != len(fb) {
		return false
	}
	diff := 0
	for i := range fa {
		if bytes.Equal(fa[i], fb[i]) {
			continue
		}
		diff++
		j := bytes.Index(fb[i], []byte(suffix))
		if j < 0 || !bytes.Equal(slices.Concat(fb[i][:j], fb[i][j+len(suffix):]), fa[i]) {
			return false
		}
	}
	return diff == 1
}

// fold folds one sample with pfold's default options and returns its
// stack; ok is false when a line is malformed or nothing is folded.
func (l *loader) fold(head, body []byte) ([]byte, bool) {
	var warn bytes.Buffer
	diag := stream.NewDiag(&warn, false)
	l.ok = false
	p := perfscript.New(perfscript.Options{Warn: &warn}, func(stack []byte, c fold.Count) error {
		l.folded = append(l.folded[:0], stack...)
		l.ok = true
		return nil
	}, diag)
	p.Line("template", 1, head)
	n := 2
	for line := range bytes.Lines(body) {
		p.Line("template", n, bytes.TrimSuffix(line, []byte("\n")))
		n++
	}
	p.End()
	if diag.Count() > 0 || warn.Len() > 0 || p.Counts().Samples != 1 {
		return nil, false
	}
	return l.folded, l.ok
}

// suffixPoints returns where in a frame line "ip sym+0xoff (dso)" a
// suffix may go to rename the symbol: before the offset (or at the end of
// the symbol), and before an argument list.
func suffixPoints(f []byte) []int {
	end := len(f)
	if i := moduleStart(f); i >= 0 {
		end = i
	}
	for end > 0 && (f[end-1] == ' ' || f[end-1] == '\t') {
		end--
	}
	start := 0
	for start < end && (f[start] == ' ' || f[start] == '\t') {
		start++
	}
	if isHex(f[start:end]) {
		return nil // an ip and no symbol
	}
	if i := bytes.IndexAny(f[start:end], " \t"); i > 0 && isHex(f[start:start+i]) {
		start += i + 1
	}
	sym := f[start:end]
	if len(sym) == 0 || sym[0] == '[' || sym[0] == '(' {
		return nil
	}
	var pts []int
	if i := bytes.LastIndex(sym, []byte("+0x")); i > 0 {
		pts = append(pts, start+i)
	} else {
		pts = append(pts, end)
	}
	if i := bytes.IndexByte(sym, '('); i > 0 {
		pts = append(pts, start+i)
	}
	return pts
}

// moduleStart returns the index of the '(' opening the trailing "(dso)"
// of a frame line, or -1.
func moduleStart(f []byte) int {
	t := bytes.TrimRight(f, " \t")
	if len(t) == 0 || t[len(t)-1] != ')' {
		return -1
	}
	depth := 0
	for i := len(t) - 1; i >= 0; i-- {
		switch t[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if i > 0 && (t[i-1] == ' ' || t[i-1] == '\t') {
					return i
				}
				return -1
			}
		}
	}
	return -1
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return len(b) > 0
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// parseHeader finds the pid/tid and time of a header line, as perf script
// prints them ("comm  pid/tid [cpu] secs.usecs: period event: ..."), and
// returns the line with its event renamed to event.
func (s *sample) parseHeader(line []byte) []byte {
	line = bytes.TrimRight(line, " \t")
	type tok struct{ at, end int }
	var toks []tok
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j > i {
			toks = append(toks, tok{i, j})
		}
		i = j
	}
	text := func(t tok) []byte { return line[t.at:t.end] }
	isTime := func(b []byte) bool {
		sec, frac, ok := bytes.Cut(bytes.TrimSuffix(b, []byte(":")), []byte("."))
		return ok && b[len(b)-1] == ':' && isDigits(sec) && isDigits(frac)
	}
	isCPU := func(b []byte) bool {
		return len(b) > 2 && b[0] == '[' && b[len(b)-1] == ']' && isDigits(b[1:len(b)-1])
	}
	isPidTid := func(b []byte) bool {
		p, t, slash := bytes.Cut(b, []byte("/"))
		return isDigits(p) && (!slash || isDigits(t))
	}
	// Anchor on the time or cpu field: the comm before it may hold spaces.
	anchor := -1
	for i := 1; i < len(toks); i++ {
		if b := text(toks[i]); isTime(b) || isCPU(b) {
			anchor = i
			break
		}
	}
	pidIdx := -1
	if anchor >= 2 && isPidTid(text(toks[anchor-1])) {
		pidIdx = anchor - 1
	} else if anchor < 0 {
		for i := 1; i < len(toks); i++ {
			if isPidTid(text(toks[i])) {
				pidIdx = i
				break
			}
		}
	}
	next := pidIdx + 1
	if anchor > next {
		next = anchor
	}
	if pidIdx >= 0 {
		p, t, slash := bytes.Cut(text(toks[pidIdx]), []byte("/"))
		s.pid, _ = strconv.ParseInt(string(p), 10, 64)
		s.tid = s.pid
		if slash {
			s.tid, _ = strconv.ParseInt(string(t), 10, 64)
		}
	}
	timeIdx := -1
	for i := next; i < len(toks); i++ {
		b := text(toks[i])
		if isCPU(b) {
			continue
		}
		if isTime(b) {
			timeIdx = i
		}
		break
	}
	// The event follows the time and the period.
	evIdx := -1
	for i := max(next, timeIdx+1); i < len(toks); i++ {
		b := text(toks[i])
		if isCPU(b) || isDigits(b) {
			continue
		}
		if b[len(b)-1] == ':' {
			evIdx = i
		}
		break
	}
	// The event comes after pid and time: their offsets hold.
	var head []byte
	if evIdx >= 0 {
		ev := toks[evIdx]
		head = slices.Concat(line[:ev.at], []byte(event), line[ev.end:])
	} else {
		head = slices.Clone(line)
	}
	// A trailing space, as perf prints after the event.
	head = append(head, ' ')
	if pidIdx >= 0 {
		s.pidAt, s.pidEnd = toks[pidIdx].at, toks[pidIdx].end
	}
	if timeIdx >= 0 {
		t := toks[timeIdx]
		s.timeAt, s.timeEnd = t.at, t.end-1
		_, frac, _ := bytes.Cut(line[t.at:t.end-1], []byte("."))
		s.nsDigits = len(frac)
	}
	return head
}

// Config is what a dump is made of.
type Config struct {
	Size   int64  // bytes to write, at least (the last sample is whole)
	Seed   uint64 // seed of every random choice
	Unique int64  // distinct folded stacks to aim for (0: the recorded ones)
	// Pooled draws samples in the proportions they were recorded in, as
	// if the templates were one recording; otherwise each template is
	// drawn as often as the others, whatever its length.
	Pooled bool
}

// Stats describe a generated dump.
type Stats struct {
	Bytes    int64
	Samples  int64
	Recorded int   // distinct folded stacks among the templates
	Distinct int64 // distinct folded stacks the dump should fold into
}

type generator struct {
	srcs []*source
	cfg  Config
	rng  *rand.Rand

	recorded []bool  // per recorded stack, whether it was written as recorded
	variants []int64 // per key, how many versions were written
	distinct int64

	ids    map[idKey]int64 // recorded (source, id, instance) → new pid or tid
	nextID int64
	now    int64 // time of the last sample, in µs
	buf    []byte
	id     []byte
	time   []byte
	stats  Stats
}

type idKey struct {
	src      int
	id       int64
	instance int
}

func newGenerator(srcs []*source, cfg Config) *generator {
	recorded, keys := 0, 0
	for _, s := range srcs {
		for i := range s.samples {
			recorded = max(recorded, s.samples[i].stack+1)
			keys = max(keys, s.samples[i].key+1)
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	return &generator{
		srcs: srcs, cfg: cfg, rng: rng,
		recorded: make([]bool, recorded),
		variants: make([]int64, keys),
		ids:      map[idKey]int64{},
		nextID:   1000 + rng.Int64N(20000),
		now:      (3600 + rng.Int64N(86400)) * 1e6,
		stats:    Stats{Recorded: recorded},
	}
}

// Generate writes samples until Size bytes are written.
func (g *generator) Generate(w io.Writer) (Stats, error) {
	var pooled []int // pooled[i]: the samples of sources before i
	if g.cfg.Pooled {
		n := 0
		for _, src := range g.srcs {
			pooled = append(pooled, n)
			n += len(src.samples)
		}
		pooled = append(pooled, n)
	}
	for g.stats.Bytes < g.cfg.Size {
		var si, k int
		if pooled != nil {
			i := g.rng.IntN(pooled[len(pooled)-1])
			si = sort.SearchInts(pooled, i+1) - 1
			k = i - pooled[si]
		} else {
			si = g.rng.IntN(len(g.srcs))
			k = g.rng.IntN(len(g.srcs[si].samples))
		}
		src := g.srcs[si]
		s := &src.samples[k]
		g.buf = g.appendSample(g.buf[:0], si, s)
		n, err := w.Write(g.buf)
		g.stats.Bytes += int64(n)
		if err != nil {
			return g.stats, err
		}
		g.stats.Samples++
	}
	g.stats.Distinct = g.distinct
	return g.stats, nil
}

// version picks which version of s's stack to write: 0 is the recorded
// one, v > 0 renames a frame with suffix v. New versions are made while
// the dump has fewer distinct stacks than its share of Unique so far;
// otherwise one already written is repeated.
func (g *generator) version(s *sample) int64 {
	if !g.recorded[s.stack] {
		g.recorded[s.stack] = true
		g.distinct++
		g.variants[s.key] = max(g.variants[s.key], 1)
		return 0
	}
	n := &g.variants[s.key]
	if *n == 0 {
		*n = 1
	}
	if len(s.sites) == 0 {
		return 0
	}
	want := int64(float64(g.cfg.Unique) * float64(g.stats.Bytes) / float64(g.cfg.Size))
	if g.distinct < want {
		v := *n
		*n++
		g.distinct++
		return v
	}
	return g.rng.Int64N(*n)
}

// newID returns the pid or tid that recorded id of source src has in
// process instance inst: the same recorded task appears as several.
func (g *generator) newID(src int, id int64, inst int) int64 {
	k := idKey{src, id, inst}
	if v, ok := g.ids[k]; ok {
		return v
	}
	g.nextID += 1 + g.rng.Int64N(8)
	if g.nextID >= 4194304 { // pid_max
		g.nextID = 300 + g.rng.Int64N(1000)
	}
	g.ids[k] = g.nextID
	return g.nextID
}

const (
	spaces = "                        "
	zeros  = "000000000000000000000000"
)

func (g *generator) appendSample(b []byte, si int, s *sample) []byte {
	g.now += 1 + g.rng.Int64N(1000) // two CPUs sampling at ~1 kHz
	inst := g.rng.IntN(4)
	type edit struct {
		at, end int
		text    []byte
	}
	var edits [2]edit
	ne := 0
	if s.pidAt >= 0 {
		// Threads of one recorded process stay in one new process.
		pid := g.newID(si, s.pid, inst)
		tid := pid
		if s.tid != s.pid {
			tid = g.newID(si, s.tid, inst)
		}
		id := g.id[:0]
		if s.tid != s.pid || bytes.IndexByte(s.head[s.pidAt:s.pidEnd], '/') >= 0 {
			id = strconv.AppendInt(id, pid, 10)
			id = append(id, '/')
		}
		id = strconv.AppendInt(id, tid, 10)
		// perf pads the field to a width: keep the recorded width.
		if pad := s.pidEnd - s.pidAt - len(id); pad > 0 {
			id = append(id, spaces[:pad]...)
			copy(id[pad:], id)
			copy(id, spaces[:pad])
		}
		g.id = id
		edits[ne] = edit{s.pidAt, s.pidEnd, id}
		ne++
	}
	if s.timeAt >= 0 {
		t := strconv.AppendInt(g.time[:0], g.now/1e6, 10)
		t = append(t, '.')
		frac := g.now % 1e6
		if s.nsDigits > 6 {
			for range s.nsDigits - 6 {
				frac *= 10
			}
			frac += g.rng.Int64N(1000)
		}
		start := len(t)
		t = strconv.AppendInt(t, frac, 10)
		if pad := s.nsDigits - (len(t) - start); pad > 0 {
			t = append(t, zeros[:pad]...)
			copy(t[start+pad:], t[start:])
			copy(t[start:], zeros[:pad])
		}
		g.time = t
		edits[ne] = edit{s.timeAt, s.timeEnd, t}
		ne++
	}
	prev := 0
	for _, e := range edits[:ne] {
		b = append(b, s.head[prev:e.at]...)
		b = append(b, e.text...)
		prev = e.end
	}
	b = append(b, s.head[prev:]...)
	b = append(b, '\n')

	if v := g.version(s); v > 0 {
		at := s.sites[int(v)%len(s.sites)]
		b = append(b, s.body[:at]...)
		b = append(b, '_')
		b = strconv.AppendInt(b, v, 10)
		b = append(b, s.body[at:]...)
	} else {
		b = append(b, s.body...)
	}
	return append(b, '\n')
}
