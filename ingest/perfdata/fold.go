package perfdata

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/perfscript"
	"github.com/pfold/pfold/stream"
)

// folder folds samples into stacks without printing them. A sample is
// written down as its header (process, thread, event) and the sites of
// its call chain. When that list fills (the run's memory for the
// parser), or the recording ends, it is flushed: the new sites are
// looked up in their symbol tables;
// each site is named once, by the perf-script parser's own rules
// (perfscript.Namer) on the line perf script would print for it; the
// samples are summed again by folded stack (names, with --skip-after
// and left-out frames applied); and each distinct stack's text is built
// once and emitted.
type folder struct {
	namer  *perfscript.Namer
	emit   format.EmitFunc
	sorted func(stream.SortedRun) error // a recording's last stacks go here whole, when set
	handed bool                         // a run went to sorted, not let go yet
	addrs  bool                         // --addrs: an unknown symbol is named by its address
	inline bool                         // --inline: every frame is named by its address
	budget int64                        // bytes the table of samples holds before it is flushed
	jobs   int                          // goroutines a flush may sort on
	rp     *replay

	hdrs  []hdr
	hdrOf map[hdrKey]int32
	java  bool // some header is a java process's

	names  [][]byte // process name frames; a stack's key holds index+1
	nameOf map[string]int32

	// The samples, in order: header id, number of sites, weight (two
	// words), sites leaf first. Writing them down costs less than summing
	// them by sites, which nearly all differ (the leaf's address).
	recs     [][]uint32
	recsLen  int // words in recs
	resolved int // sites[:resolved] have had their symbols looked up
	asked    int // sites[:asked] have had addr2line asked about them

	// Folded frames, by fid, and the pieces of text they and the
	// process names are made of (tokens), each held once.
	frames   []frameName
	fidFlags []uint8    // by fid
	siteFid  [2][]int32 // the fid of each site, not java's and java's; -1: not named yet
	fidToks  []int32
	fidOf    map[nameKey]int32
	nameTok  []int32 // by index in names
	toks     []tokRef
	tokText  []byte
	tokOf    map[string]int32
	semiTok  bool // some token holds a ';' (sortStacks then compares texts)

	// The stacks of one flush: name and fids, leaf first → count.
	stacks sums
	// The stacks of the later samples of a flush summed apart (sum),
	// and the key buffer of that.
	stacks2 sums
	key2    []byte
	seq2    []int32 // the second table's stacks as tokens, before they join seq
	seqOff2 []uint32

	ips       []uint64
	modes     []uint8
	key, line []byte
	time      []byte // a sample's time token, for --range
	text      stackText
	seq       []int32 // the stacks of a flush as tokens
	seqOff    []uint32
	order     []int32
	merged    []int32
	scratch   [2][]byte // compareSeqs's
	sorter    seqSorter
}

type hdrKey struct {
	comm     string
	pid, tid int32
	attr     *Attr
}

type hdr struct {
	perfscript.Header
	name int32 // index+1 in names; 0: none
}

// frameName is a folded frame: its pieces' tokens, fidToks[tokOff:]
// (nends of them), their text's length, and whether --skip-after names
// it.
type frameName struct {
	tlen, tokOff, nends uint32
	skipAfter           bool
}

type tokRef struct{ off, n uint32 }

// nameKey is what a site's folded frame depends on: its symbol (or,
// for an unknown one, its binary, and its address with --addrs; with
// --inline, its address always) and whether the process is java's.
type nameKey struct {
	dso  *dso
	sym  int32
	addr uint64
	java bool
	inl  bool // named with its inlined functions, by dso and addr
}

func newFolder(namer *perfscript.Namer, emit format.EmitFunc, addrs bool, budget int64, jobs int) *folder {
	return &folder{namer: namer, emit: emit, addrs: addrs, budget: max(budget, 1), jobs: jobs}
}

// begin starts a recording: sites, headers and frames are its own.
func (f *folder) begin(rp *replay) {
	f.rp = rp
	f.hdrs, f.hdrOf, f.java = f.hdrs[:0], map[hdrKey]int32{}, false
	f.names, f.nameOf = f.names[:0], map[string]int32{}
	f.frames, f.fidFlags, f.fidToks, f.fidOf = f.frames[:0], f.fidFlags[:0], f.fidToks[:0], map[nameKey]int32{}
	f.siteFid = [2][]int32{f.siteFid[0][:0], f.siteFid[1][:0]}
	f.nameTok, f.toks, f.tokText, f.tokOf = f.nameTok[:0], f.toks[:0], f.tokText[:0], map[string]int32{}
	f.semiTok = false
	f.recs, f.recsLen = f.recs[:0], 0
	f.resolved, f.asked = 0, 0
}

func (f *folder) sample(s *Sample, t *thread) error {
	ips, modes := chainFrames(s, f.ips[:0], f.modes[:0])
	f.ips, f.modes = ips, modes
	return f.walked(s, t, ips, modes)
}

func (f *folder) walked(s *Sample, t *thread, ips []uint64, modes []uint8) error {
	hid, err := f.header(s, t)
	if err != nil {
		return err
	}
	h := &f.hdrs[hid]
	if h.Skip {
		f.namer.Skipped(1)
		return nil
	}
	if f.namer.Ranged() {
		// The time as perf script prints it, read as its text is.
		var time []byte
		if s.Attr.SampleType&sampleTime != 0 {
			f.time = appendTime(f.time[:0], s.Time)
			time = f.time
		}
		f.namer.Clock(time)
		if !f.namer.KeepEvent(h.Event) || !f.namer.InRange(time) {
			return nil
		}
	} else if !f.namer.KeepEvent(h.Event) {
		return nil
	}
	f.namer.Folded(1)
	w := f.namer.Weight(&h.Header, s.Period).N
	c := len(f.recs) - 1
	if c < 0 || len(f.recs[c])+4+len(ips) > cap(f.recs[c]) {
		f.recs = append(f.recs, make([]uint32, 0, max(min(recChunk, int(f.budget/4)), 4+len(ips))))
		c++
	}
	r := append(f.recs[c], uint32(hid), uint32(len(ips)), uint32(w), uint32(w>>32))
	r = f.sites(r, t, ips, modes)
	f.recs[c] = r
	f.recsLen += 4 + len(ips)
	if int64(f.recsLen)*4 > f.budget {
		return f.flush()
	}
	return nil
}

// sites appends the sites of a sample's frames to r, which has room
// for them: those in the replay's cache of sites are taken from it
// first, the others then found by replay.site.
func (f *folder) sites(r []uint32, t *thread, ips []uint64, modes []uint8) []uint32 {
	rp := f.rp
	n := len(r)
	r = r[:n+len(ips)]
	out := r[n:]
	if rp.siteCache.lookup(out, ips, modes, rp.mach.kernel.gen, t.maps.fresh()) {
		for i, ip := range ips {
			if out[i] == missing {
				out[i] = uint32(rp.site(t, modes[i], ip))
			}
		}
	}
	return r
}

// lookup sets out[i] to the site of ips[i] (of cpumode modes[i], looked
// up in the kernel's maps of gen kgen or the thread's, um) where c holds
// it, to missing elsewhere, and reports whether any is missing. It
// calls nothing, so that the loop's values stay in registers.
func (c *siteCache) lookup(out []uint32, ips []uint64, modes []uint8, kgen uint64, um *maps) bool {
	out, modes = out[:len(ips)], modes[:len(ips)]
	ugen, vlo, vlen := um.gen, um.vlo, um.vhi-um.vlo
	missed := false
	for i, ip := range ips {
		var gen uint64
		switch modes[i] {
		case cpumodeKernel:
			gen = kgen
		case cpumodeUser:
			if ip-vlo >= vlen { // outside the vdso (maps.outside)
				gen = ugen
			}
		case cpumodeUnwound:
			if ip-vlo >= vlen {
				gen = unwoundGen(ugen)
			}
		}
		if e := c.slot(ip, gen); gen != 0 && e.ip == ip && e.tag>>32 == gen {
			out[i] = uint32(e.tag)
			continue
		}
		out[i] = missing
		missed = true
	}
	return missed
}

// missing marks a site not found yet (no site has this id).
const missing = ^uint32(0)

// recChunk is how many words of samples a chunk holds: chunks are never
// copied as one slice growing would be.
const recChunk = 1 << 18

// header returns the id of the sample's header, parsed once per thread
// name, pid, tid and event.
func (f *folder) header(s *Sample, t *thread) (int32, error) {
	if t.hdrAttr == s.Attr && t.hdrComm == t.comm && t.hdrPid == s.Pid && t.hdrTid == s.Tid {
		return t.hdrID, nil
	}
	k := hdrKey{comm: t.comm, pid: s.Pid, tid: s.Tid, attr: s.Attr}
	id, ok := f.hdrOf[k]
	if !ok {
		line := appendHeader(f.line[:0], s.Attr, t.comm, s.Pid, s.Tid, 0, perfscript.HeaderPeriod)
		f.line = line
		h, err := f.namer.Header(line[:len(line)-1])
		if err != nil {
			return 0, err
		}
		h.Name = append([]byte(nil), h.Name...)
		e := hdr{Header: h}
		f.java = f.java || h.Java
		if h.Named {
			n, ok := f.nameOf[string(h.Name)]
			if !ok {
				f.names = append(f.names, h.Name)
				f.nameTok = append(f.nameTok, f.intern(h.Name))
				n = int32(len(f.names))
				f.nameOf[string(h.Name)] = n
			}
			e.name = n
		}
		id = int32(len(f.hdrs))
		f.hdrs = append(f.hdrs, e)
		f.hdrOf[k] = id
	}
	t.hdrAttr, t.hdrComm, t.hdrPid, t.hdrTid, t.hdrID = s.Attr, t.comm, s.Pid, s.Tid, id
	return id, nil
}

// flush names the sites of the samples summed so far, sums them again
// by folded stack, and emits each stack once.
func (f *folder) flush() error { return f.flushing(false) }

// flushing is flush; last says the recording has ended: once its
// samples are named, its symbol tables and sites are let go and
// collected, so that the stacks emitted reuse their memory.
func (f *folder) flushing(last bool) error {
	if f.recsLen == 0 {
		return nil
	}
	if f.handed {
		// A recording's run before: let go before this one's memory adds
		// to it.
		f.handed = false
		if err := f.sorted(nil); err != nil {
			return err
		}
	}
	rp := f.rp
	for id := f.resolved; id < len(rp.sites.sites); id++ {
		rp.resolve(int32(id))
	}
	f.resolved = len(rp.sites.sites)
	if err := f.nameSites(); err != nil {
		return err
	}
	if err := f.sum(); err != nil {
		return err
	}
	if last {
		// A collection costs a few milliseconds: worth it for tables of
		// megabytes (a small recording's go with the next cycle).
		if f.rp.release()+int64(f.recsLen)*4 > 16<<20 {
			f.siteFid = [2][]int32{}
			clear(f.recs)
			f.recs = f.recs[:0]
			runtime.GC()
		}
		f.siteFid = [2][]int32{}
	}
	// The chunks go: the next flush may be far off, the memory better
	// used meanwhile.
	clear(f.recs)
	f.recs, f.recsLen = f.recs[:0], 0

	// Each stack as its pieces of text (tokens), root first; emitted in
	// the order of their text, which is the output's: the aggregator's
	// sort then finds them in order.
	ents := f.stacks.ents
	if len(f.stacks2.ents) > 0 {
		// The stacks of both tables, numbered on: the run's entries.
		ents = append(ents, f.stacks2.ents...)
		f.stacks.ents = ents
	}
	seq, offs := f.seq[:0], f.seqOff[:0]
	if n := len(ents) + 1; cap(offs) < n {
		offs = make([]uint32, 0, n)
	}
	if n := int((f.stacks.used + f.stacks2.used) / 4); cap(seq) < n { // a token a word of the keys, about
		seq = make([]int32, 0, n+n/8)
	}
	if n2 := len(f.stacks2.ents); n2 > 0 {
		// Each table's on a goroutine, the second's then appended.
		var (
			seq2  []int32
			offs2 []uint32
			done  = make(chan struct{})
		)
		go func() {
			seq2, offs2 = f.appendSeqs(f.seq2[:0], f.seqOff2[:0], &f.stacks2, n2)
			close(done)
		}()
		seq, offs = f.appendSeqs(seq, offs, &f.stacks, len(ents)-n2)
		<-done
		base := uint32(len(seq))
		for _, o := range offs2 {
			offs = append(offs, base+o)
		}
		seq = append(seq, seq2...)
		f.seq2, f.seqOff2 = seq2, offs2
	} else {
		seq, offs = f.appendSeqs(seq, offs, &f.stacks, len(ents))
	}
	f.stacks2.reset()
	offs = append(offs, uint32(len(seq)))
	f.seq, f.seqOff = seq, offs
	order := f.order[:0]
	for j := range ents {
		order = append(order, int32(j))
	}
	order = f.sortStacks(order, seq, offs)
	f.order = order
	if last && f.sorted != nil && !f.semiTok {
		// The recording's last stacks are handed over as they are, their
		// text built as they are read: the arrays are the run's now.
		// Stacks of different frames may have the same text (two
		// binaries' [unknown]): in order they are neighbours, and with no
		// ';' in a token, of equal tokens. They are summed here.
		n := 0
		for i, j := range order {
			if n > 0 {
				k := order[n-1]
				if slices.Equal(seq[offs[j]:offs[j+1]], seq[offs[k]:offs[k+1]]) {
					sum, err := ents[k].w.Add(ents[j].w)
					if err != nil {
						b := stackText{toks: f.toks, tokText: f.tokText}
						return fmt.Errorf("stack %.80q…: %w", b.next(seq[offs[k]:offs[k+1]]), err)
					}
					ents[k].w = sum
					continue
				}
			}
			order[n] = order[i]
			n++
		}
		r := &sortedRun{order: order[:n], seq: seq, offs: offs, ents: ents, added: int64(len(order))}
		r.text.toks, r.text.tokText = f.toks, f.tokText
		f.order, f.seq, f.seqOff, f.stacks.ents = nil, nil, nil, nil
		f.seq2, f.seqOff2 = nil, nil
		f.toks, f.tokText, f.tokOf = nil, nil, map[string]int32{}
		f.stacks.reset()
		f.handed = true
		return f.sorted(r)
	}
	f.text.toks, f.text.tokText, f.text.prev = f.toks, f.tokText, nil
	for _, j := range order {
		if err := f.emit(f.text.next(seq[offs[j]:offs[j+1]]), ents[j].w); err != nil {
			return err
		}
	}
	f.text.toks, f.text.tokText, f.text.prev = nil, nil, nil
	f.stacks.reset()
	return nil
}

// appendSeqs appends the tokens of the first n stacks of st to seq,
// root first, and where each begins to offs.
func (f *folder) appendSeqs(seq []int32, offs []uint32, st *sums, n int) ([]int32, []uint32) {
	for j := range n {
		b := st.key(j)
		offs = append(offs, uint32(len(seq)))
		lead := true // a stack's leading empty pieces leave no text and no ';'
		if n := u32(b); n > 0 {
			tok := f.nameTok[n-1]
			if f.toks[tok].n > 0 {
				seq, lead = append(seq, tok), false
			}
		}
		for i := len(b) - 4; i >= 4; i -= 4 {
			fr := &f.frames[u32(b[i:])]
			toks := f.fidToks[fr.tokOff : fr.tokOff+fr.nends]
			if !lead {
				seq = append(seq, toks...)
				continue
			}
			for _, tok := range toks {
				if lead && f.toks[tok].n == 0 {
					continue
				}
				seq, lead = append(seq, tok), false
			}
		}
	}
	return seq, offs
}

// stackText builds the texts of stacks in their order from their
// tokens. Stacks in order share long beginnings: each one's text keeps
// that of the tokens it shares with the one before, where each of them
// ended (ends), and only the rest is joined.
type stackText struct {
	toks    []tokRef
	tokText []byte
	stack   []byte
	ends    []int // where each token of stack ends
	prev    []int32
}

// next returns the text of the stack of toks, valid until the next call.
func (b *stackText) next(toks []int32) []byte {
	prev, ends, stack := b.prev, b.ends, b.stack
	n := 0
	for m := min(len(prev), len(toks)); n < m && prev[n] == toks[n]; n++ {
	}
	ends = ends[:n]
	stack = stack[:0]
	if n > 0 {
		stack = stack[:ends[n-1]]
	}
	for _, tok := range toks[n:] {
		if len(ends) > 0 {
			stack = append(stack, ';')
		}
		t := b.toks[tok]
		stack = append(stack, b.tokText[t.off:t.off+t.n]...)
		ends = append(ends, len(stack))
	}
	b.prev, b.ends, b.stack = toks, ends, stack
	return stack
}

// sortedRun is a recording's last stacks, sorted, handed over whole
// (stream.SortedRun): the stacks order numbers in their order, their
// tokens and weights, and how many stacks the flush summed into them.
type sortedRun struct {
	order []int32
	seq   []int32
	offs  []uint32
	ents  []sumEntry
	text  stackText
	i     int
	added int64 // stacks summed into it
}

func (r *sortedRun) Added() int64 { return r.added }

func (r *sortedRun) Next() ([]byte, fold.Count, bool) {
	if r.i == len(r.order) {
		return nil, fold.Count{}, false
	}
	j := r.order[r.i]
	r.i++
	return r.text.next(r.seq[r.offs[j]:r.offs[j+1]]), r.ents[j].w, true
}

// sortStacks sorts the stacks order numbers by their text. With more
// than one job, each half is sorted on its own goroutine, then merged.
func (f *folder) sortStacks(order, seq []int32, offs []uint32) []int32 {
	if !f.semiTok {
		f.sorter.f, f.sorter.seq, f.sorter.offs = f, seq, offs
		f.sorter.sort(order, 0, f.jobs > 1)
		f.sorter.wg.Wait()
		return order
	}
	sortPart := func(part []int32, scratch *[2][]byte) {
		slices.SortFunc(part, func(a, b int32) int {
			return f.compareSeqs(seq[offs[a]:offs[a+1]], seq[offs[b]:offs[b+1]], scratch)
		})
	}
	if f.jobs < 2 || len(order) < 1<<12 {
		sortPart(order, &f.scratch)
		return order
	}
	half := len(order) / 2
	done := make(chan struct{})
	go func() {
		var scratch [2][]byte
		sortPart(order[half:], &scratch)
		close(done)
	}()
	sortPart(order[:half], &f.scratch)
	<-done
	merged := f.merged[:0]
	a, b := order[:half], order[half:]
	for len(a) > 0 && len(b) > 0 {
		if f.compareSeqs(seq[offs[b[0]]:offs[b[0]+1]], seq[offs[a[0]]:offs[a[0]+1]], &f.scratch) < 0 {
			merged, b = append(merged, b[0]), b[1:]
		} else {
			merged, a = append(merged, a[0]), a[1:]
		}
	}
	merged = append(append(merged, a...), b...)
	f.merged = order // the arrays trade places
	return merged
}

// sort sorts the stacks order numbers, whose tokens are equal
// before depth, by their text, when no token holds a ';': a radix sort
// by the token at each depth, with no text read but to order the
// distinct tokens found at one depth of one group. A stack's text ended
// by END (below every byte) is the concatenation of its tokens each
// followed by ';', the last by END; without a ';' in a token these
// pieces are prefix-free, so stacks compare as their sequences of
// pieces do, each piece compared as text (comparePieces). Comparing whole
// stacks walked their long shared prefixes token by token, from random
// places, at every comparison.
//
// With par, the groups of a node of many stacks but its largest are
// sorted on a goroutine of their own when they are a quarter of its
// stacks or more; the caller waits for them (wg).
func (x *seqSorter) sort(order []int32, depth int, par bool) {
	f, seq, offs := x.f, x.seq, x.offs
	for len(order) > 1 {
		if len(order) <= 12 {
			slices.SortFunc(order, func(a, b int32) int {
				return f.compareSeqs(seq[offs[a]+uint32(depth):offs[a+1]], seq[offs[b]+uint32(depth):offs[b+1]], &x.scratch)
			})
			return
		}
		// Skip the tokens all share, but for the last of each, by
		// comparing each with the first: one random read per stack,
		// where going a depth at a time made one per stack and depth.
		first := seq[offs[order[0]]+uint32(depth) : offs[order[0]+1]]
		m := len(first) - 1
		for _, j := range order[1:] {
			if m <= 0 {
				break
			}
			b := seq[offs[j]+uint32(depth) : offs[j+1]]
			m = min(m, len(b)-1)
			for i, tok := range b[:max(m, 0)] {
				if tok != first[i] {
					m = i
					break
				}
			}
		}
		depth += max(m, 0)
		// Each stack's piece at depth, above its order number: its
		// token<<1, 1 when it is its last; pieceEnded when it has none
		// (an empty stack: the others end in a last piece, not followed
		// further).
		ds := x.digits[:0]
		same := true
		for _, j := range order {
			k := uint64(pieceEnded)
			if p := offs[j] + uint32(depth); p < offs[j+1] {
				k = uint64(seq[p])<<1 | b2u(p+1 == offs[j+1])
			}
			ds = append(ds, k<<32|uint64(uint32(j)))
			same = same && k == ds[0]>>32
		}
		x.digits = ds
		if same {
			if k := ds[0] >> 32; k&1 != 0 { // equal stacks (pieceEnded is odd)
				return
			}
			depth++
			continue
		}
		// The stacks grouped by piece, counted in an array by piece
		// (zero between uses): the groups in the order of the pieces'
		// text, each where the counts before it end.
		nt := len(f.toks)
		if len(x.count) < 2*nt+1 {
			x.count = make([]int32, 2*nt+1)
		}
		count, kinds := x.count, x.kinds[:0]
		for _, d := range ds {
			c := pieceIndex(d>>32, nt)
			if count[c] == 0 {
				kinds = append(kinds, d>>32)
			}
			count[c]++
		}
		slices.SortFunc(kinds, func(a, b uint64) int { return f.comparePieces(uint32(a), uint32(b)) })
		x.kinds = kinds
		base := len(x.subRuns)
		at := int32(0)
		for _, k := range kinds {
			c := pieceIndex(k, nt)
			n := count[c]
			count[c] = at
			if n > 1 && k&1 == 0 { // stacks that go on
				x.subRuns = append(x.subRuns, [2]int{int(at), int(at + n)})
			}
			at += n
		}
		for _, d := range ds {
			c := pieceIndex(d>>32, nt)
			order[count[c]] = int32(uint32(d))
			count[c]++
		}
		for _, k := range kinds {
			count[pieceIndex(k, nt)] = 0
		}
		runs := x.subRuns[base:]
		if par && len(order) >= parSort && len(runs) > 1 {
			// The largest group goes on here, with par; the others, when
			// they hold a quarter of the stacks or more, are sorted on a
			// goroutine of their own (which the sort's caller waits for).
			big := 0
			for i, r := range runs {
				if r[1]-r[0] > runs[big][1]-runs[big][0] {
					big = i
				}
			}
			r := runs[big]
			runs[big] = runs[len(runs)-1]
			runs = runs[:len(runs)-1]
			if len(order)-(r[1]-r[0]) >= len(order)/4 {
				theirs, o, d := append([][2]int(nil), runs...), order, depth+1
				x.wg.Add(1)
				go func() {
					defer x.wg.Done()
					y := &seqSorter{f: f, seq: seq, offs: offs}
					for _, r := range theirs {
						y.sort(o[r[0]:r[1]], d, false)
					}
				}()
			} else {
				x.subRuns = x.subRuns[:base+len(runs)]
				for i := base; i < len(x.subRuns); i++ {
					r := x.subRuns[i]
					x.sort(order[r[0]:r[1]], depth+1, false)
				}
			}
			x.subRuns = x.subRuns[:base]
			order, depth = order[r[0]:r[1]], depth+1
			continue
		}
		for i := base; i < len(x.subRuns); i++ {
			r := x.subRuns[i]
			x.sort(order[r[0]:r[1]], depth+1, false)
		}
		x.subRuns = x.subRuns[:base]
		return
	}
}

// seqSorter sorts stacks by their tokens: the stacks, and its scratch.
type seqSorter struct {
	f       *folder
	seq     []int32
	offs    []uint32
	digits  []uint64
	kinds   []uint64
	count   []int32 // by pieceIndex; zero but within a node of sort
	subRuns [][2]int
	scratch [2][]byte // compareSeqs's
	wg      sync.WaitGroup
}

// parSort is how many stacks a node of seqSorter.sort has at least for its
// groups to be sorted on two goroutines.
const parSort = 1 << 12

// pieceEnded is seqSorter's piece of a stack that has ended.
const pieceEnded = 1<<32 - 1

// pieceIndex numbers piece k of a recording of nt tokens: its own value,
// and 2nt for pieceEnded.
func pieceIndex(k uint64, nt int) int {
	if k == pieceEnded {
		return 2 * nt
	}
	return int(k)
}

// comparePieces compares two of seqSorter's pieces: a token's text
// followed by ';', or by END (below every byte) when it is its stack's
// last; pieceEnded is END alone.
func (f *folder) comparePieces(a, b uint32) int {
	if a == pieceEnded || b == pieceEnded {
		return cmp.Compare(b2i(a != pieceEnded), b2i(b != pieceEnded))
	}
	x, y := f.token(int32(a>>1)), f.token(int32(b>>1))
	n := min(len(x), len(y))
	if c := bytes.Compare(x[:n], y[:n]); c != 0 {
		return c
	}
	// The byte after x[:n] and y[:n]; END is -1.
	next := func(t []byte, last uint32) int {
		if len(t) > n {
			return int(t[n])
		}
		if last != 0 {
			return -1
		}
		return ';'
	}
	return cmp.Compare(next(x, a&1), next(y, b&1))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func b2i(b bool) int { return int(b2u(b)) }

// join appends the text of a stack's tokens, root first: joined by ';',
// as perfscript.AppendFrame joins frames once the leading empty ones
// are gone.
func (f *folder) join(dst []byte, toks []int32) []byte {
	for i, tok := range toks {
		if i > 0 {
			dst = append(dst, ';')
		}
		dst = append(dst, f.token(tok)...)
	}
	return dst
}

// compareSeqs compares two stacks' texts, as bytes.Compare would, from
// their tokens: equal tokens are skipped whole, and the first differing
// one decides, but where one token is the start of the other (then the
// next byte is the shorter one's ';', or its end).
func (f *folder) compareSeqs(a, b []int32, scratch *[2][]byte) int {
	for i := 0; ; i++ {
		if i == len(a) || i == len(b) {
			return cmp.Compare(len(a), len(b))
		}
		if a[i] == b[i] {
			continue
		}
		x, y := f.token(a[i]), f.token(b[i])
		n := min(len(x), len(y))
		if c := bytes.Compare(x[:n], y[:n]); c != 0 {
			return c
		}
		// One is a start of the other (tokens are interned: not equal).
		if len(x) < len(y) {
			if i+1 == len(a) {
				return -1
			}
			if c := cmp.Compare(';', y[n]); c != 0 {
				return c
			}
		} else {
			if i+1 == len(b) {
				return 1
			}
			if c := cmp.Compare(x[n], ';'); c != 0 {
				return c
			}
		}
		// A ';' within a token (a process name may hold one): compare the
		// texts.
		scratch[0], scratch[1] = f.join(scratch[0][:0], a), f.join(scratch[1][:0], b)
		return bytes.Compare(scratch[0], scratch[1])
	}
}

// intern returns the token of a piece of text.
func (f *folder) intern(b []byte) int32 {
	if tok, ok := f.tokOf[string(b)]; ok {
		return tok
	}
	tok := int32(len(f.toks))
	f.semiTok = f.semiTok || bytes.IndexByte(b, ';') >= 0
	f.toks = append(f.toks, tokRef{off: uint32(len(f.tokText)), n: uint32(len(b))})
	f.tokText = append(f.tokText, b...)
	f.tokOf[string(b)] = tok
	return tok
}

// token returns the text of a token.
func (f *folder) token(tok int32) []byte {
	t := f.toks[tok]
	return f.tokText[t.off : t.off+t.n]
}

// fid returns the folded frame of site id in a java process (java 1)
// or not, naming it on first use.
func (f *folder) fid(id int32, java int) (int32, error) {
	rp := f.rp
	if n := len(rp.sites.sites); len(f.siteFid[java]) < n {
		grown := append(f.siteFid[java], make([]int32, n-len(f.siteFid[java]))...)
		for i := len(f.siteFid[java]); i < n; i++ {
			grown[i] = -1
		}
		f.siteFid[java] = grown
	}
	if fid := f.siteFid[java][id]; fid >= 0 {
		return fid, nil
	}
	st := &rp.sites.sites[id]
	k := nameKey{dso: st.dso, sym: st.sym, java: java == 1}
	if st.sym < 0 && f.addrs || f.inline {
		k.addr = st.addr
	}
	inl := rp.inlined(id)
	if inl != nil {
		k.addr, k.inl = st.addr, true
	}
	fid, ok := f.fidOf[k]
	if !ok {
		var (
			text      []byte
			ends      []int32
			skipAfter bool
			err       error
		)
		if inl == nil {
			line := appendFrameLine(f.line[:0], rp.frame(id))
			f.line = line
			text, ends, skipAfter, err = f.namer.Frame(line[:len(line)-1], java == 1)
		} else {
			text, ends, skipAfter, err = f.nameInlined(inl, java == 1)
		}
		if err != nil {
			return 0, err
		}
		fid = int32(len(f.frames))
		f.frames = append(f.frames, frameName{tlen: uint32(len(text)), tokOff: uint32(len(f.fidToks)), nends: uint32(len(ends)), skipAfter: skipAfter})
		var fl uint8
		if len(ends) > 0 {
			fl |= fidPieces
		}
		if len(text) > 0 {
			fl |= fidText
		}
		if skipAfter {
			fl |= fidSkipAfter
		}
		f.fidFlags = append(f.fidFlags, fl)
		start := int32(0)
		for _, end := range ends {
			f.fidToks = append(f.fidToks, f.intern(text[start:end]))
			start = end
		}
		f.fidOf[k] = fid
	}
	f.siteFid[java][id] = fid
	return fid, nil
}

// nameInlined folds a site's frames with its inlined functions
// (innermost first) as the perf-script parser folds their lines: each
// line's pieces, the lines root first, the leafmost up to the first
// that --skip-after names.
func (f *folder) nameInlined(frames []Frame, java bool) (text []byte, ends []int32, skipAfter bool, err error) {
	type piece struct {
		text []byte
		ends []int32
	}
	lines := make([]piece, 0, len(frames))
	for _, fr := range frames {
		f.line = appendFrameLine(f.line[:0], fr)
		t, e, skip, err := f.namer.Frame(f.line[:len(f.line)-1], java)
		if err != nil {
			return nil, nil, false, err
		}
		lines = append(lines, piece{append([]byte(nil), t...), append([]int32(nil), e...)})
		if skip {
			skipAfter = true
			break
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		base := int32(len(text))
		text = append(text, lines[i].text...)
		for _, e := range lines[i].ends {
			ends = append(ends, base+e)
		}
	}
	return text, ends, skipAfter, nil
}

// nameSites names each site the samples written down use, as the
// process it is sampled in (java's or not) has it. With no java process
// in the recording that is every site not named yet, in order: the
// sites are interned from the samples kept and nothing else, and a
// walk of the samples would read every frame.
func (f *folder) nameSites() error {
	// The inlined functions of the sites new since the last flush, a
	// batch of addresses to each addr2line; forgotten once the sites
	// are named, which is all they are for.
	f.rp.askInlines(f.asked)
	f.asked = len(f.rp.sites.sites)
	defer f.rp.forgetInlines()
	if !f.java {
		sf := f.siteFid[0]
		for site := range f.rp.sites.sites {
			if site < len(sf) && sf[site] >= 0 {
				continue
			}
			if _, err := f.fid(int32(site), 0); err != nil {
				return err
			}
			sf = f.siteFid[0]
		}
		return nil
	}
	for _, r := range f.recs {
		for len(r) > 0 {
			java := 0
			if f.hdrs[r[0]].Java {
				java = 1
			}
			n := int(r[1])
			sites := r[4 : 4+n]
			r = r[4+n:]
			for _, site := range sites {
				if sf := f.siteFid[java]; int(site) < len(sf) && sf[site] >= 0 {
					continue
				}
				if _, err := f.fid(int32(site), java); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// sum sums the samples written down by folded stack, their sites
// named: into f.stacks, and with more than one job and more than one
// chunk of samples, into f.stacks2 too, on a goroutine of its own. The
// two then take the stacks whose leaf frame is even and odd, so that no
// stack is in both: each goroutine reads every sample, and builds the
// key of and sums only its own.
func (f *folder) sum() error {
	if f.jobs < 2 || len(f.recs) < 2 {
		n, err := f.sumPart(&f.stacks, &f.key, -1)
		f.namer.Folded(-n.empty)
		f.namer.Bare(n.bare)
		return err
	}
	var (
		n2   sumCounts
		err2 error
		done = make(chan struct{})
	)
	go func() {
		n2, err2 = f.sumPart(&f.stacks2, &f.key2, 1)
		close(done)
	}()
	n, err := f.sumPart(&f.stacks, &f.key, 0)
	<-done
	f.namer.Folded(-n.empty - n2.empty)
	f.namer.Bare(n.bare + n2.bare)
	if err == nil {
		err = err2
	}
	return err
}

// sumCounts are the samples sumPart found with no frame: those that
// fold to an empty stack (no sample) and those that fold to their
// process name alone.
type sumCounts struct{ empty, bare int64 }

// sumPart adds the samples written down to st by folded stack, those
// whose stack's leaf frame (fid) has the parity part (or all, for part
// -1), and counts those with no frame.
// A stack of no frame, the process name alone, is even. It reads the
// folder's names and frames and writes only st and *key, so that two
// may run at once.
func (f *folder) sumPart(st *sums, key *[]byte, part int32) (c sumCounts, err error) {
	sk := *key
	defer func() { *key = sk }()
	for _, r := range f.recs {
		for len(r) > 0 {
			h := &f.hdrs[r[0]]
			n := int(r[1])
			w := fold.Int(uint64(r[2]) | uint64(r[3])<<32)
			sites := r[4 : 4+n]
			r = r[4+n:]
			java := 0
			if h.Java {
				java = 1
			}
			sf := f.siteFid[java]
			if part >= 0 {
				// The key's first fid, as the loop below finds it.
				leaf := int32(0)
				for _, site := range sites {
					fid := sf[site]
					if fl := f.fidFlags[fid]; fl&fidPieces != 0 {
						leaf = fid
						break
					} else if fl&fidSkipAfter != 0 {
						break
					}
				}
				if leaf&1 != part {
					continue
				}
			}
			named := h.name > 0
			sk = append(sk[:0], 0, 0, 0, 0)
			text := false
			for _, site := range sites {
				fid := sf[site]
				fl := f.fidFlags[fid]
				if fl&fidPieces != 0 { // else a frame perf-script folding leaves out
					sk = binary.LittleEndian.AppendUint32(sk, uint32(fid))
					text = text || fl&fidText != 0
				}
				if fl&fidSkipAfter != 0 {
					named = false // no callers, no process name
					break
				}
			}
			if named {
				binary.LittleEndian.PutUint32(sk, uint32(h.name))
				if !text && len(f.names[h.name-1]) > 0 {
					c.bare++ // the process name alone, as the Parser counts it
					text = true
				}
			}
			if !text {
				c.empty++ // an empty stack is no sample
				continue
			}
			if err := st.add(sk, w, 1); err != nil {
				return c, err
			}
		}
	}
	return c, nil
}

// The flags of a folded frame (fidFlags).
const (
	fidPieces    = 1 << iota // it has pieces (else it is left out)
	fidText                  // some piece has text
	fidSkipAfter             // --skip-after names it
)

// u32 reads a little-endian uint32 at the start of a key.
func u32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// mixKey spreads every bit of k over the result (murmur3's finalizer).
func mixKey(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	return k ^ k>>33
}
