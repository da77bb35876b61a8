package perfdata

import (
	"encoding/binary"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/perfscript"
)

// folder folds samples into stacks without printing them. A sample is
// its header (process, thread, event) and the sites of its call chain,
// and samples that repeat are summed under those numbers. When the
// table fills (the run's memory for the parser), or the recording ends,
// it is flushed: the new sites are looked up in their symbol tables;
// each site is named once, by the perf-script parser's own rules
// (perfscript.Namer) on the line perf script would print for it; the
// samples are summed again by folded stack (names, with --skip-after
// and left-out frames applied); and each distinct stack's text is built
// once and emitted.
type folder struct {
	namer  *perfscript.Namer
	emit   format.EmitFunc
	addrs  bool  // --addrs: an unknown symbol is named by its address
	budget int64 // bytes the table of samples holds before it is flushed
	rp     *replay

	hdrs  []hdr
	hdrOf map[hdrKey]int32

	names  [][]byte // process name frames; a stack's key holds index+1
	nameOf map[string]int32

	// The samples: header id and sites, leaf first → count.
	samples  sums
	resolved int // sites[:resolved] have had their symbols looked up

	// Folded frames, by fid.
	frames []frameName
	text   []byte
	ends   []int32
	fidOf  map[nameKey]int32

	// The stacks of one flush: name and fids, leaf first → count.
	stacks sums

	ips       []uint64
	modes     []uint8
	key, line []byte
	stack     []byte
	fids      []int32
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

type frameName struct {
	off, tlen     uint32 // text[off:off+tlen]
	endOff, nends uint32 // ends[endOff:endOff+nends]
	skipAfter     bool
}

// nameKey is what a site's folded frame depends on: its symbol (or,
// for an unknown one, its binary, and its address with --addrs) and
// whether the process is java's.
type nameKey struct {
	dso  *dso
	sym  int32
	addr uint64
	java bool
}

func newFolder(namer *perfscript.Namer, emit format.EmitFunc, addrs bool, budget int64) *folder {
	return &folder{namer: namer, emit: emit, addrs: addrs, budget: max(budget, 1)}
}

// begin starts a recording: sites, headers and frames are its own.
func (f *folder) begin(rp *replay) {
	f.rp = rp
	f.hdrs, f.hdrOf = f.hdrs[:0], map[hdrKey]int32{}
	f.names, f.nameOf = f.names[:0], map[string]int32{}
	f.frames, f.text, f.ends, f.fidOf = f.frames[:0], f.text[:0], f.ends[:0], map[nameKey]int32{}
	f.samples.reset()
	f.resolved = 0
}

func (f *folder) sample(s *Sample, t *thread) error {
	hid, err := f.header(s, t)
	if err != nil {
		return err
	}
	h := &f.hdrs[hid]
	if h.Skip {
		f.namer.Skipped(1)
		return nil
	}
	if !f.namer.KeepEvent(h.Event) {
		return nil
	}
	f.namer.Folded(1)
	ips, modes := chainFrames(s, f.ips[:0], f.modes[:0])
	f.ips, f.modes = ips, modes
	k := binary.LittleEndian.AppendUint32(f.key[:0], uint32(hid))
	for i, ip := range ips {
		k = binary.LittleEndian.AppendUint32(k, uint32(f.rp.site(t, modes[i], ip)))
	}
	f.key = k
	if err := f.samples.add(k, f.namer.Weight(&h.Header, s.Period), 1); err != nil {
		return err
	}
	if f.samples.size() > f.budget {
		return f.flush()
	}
	return nil
}

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
		if h.Named {
			n, ok := f.nameOf[string(h.Name)]
			if !ok {
				f.names = append(f.names, h.Name)
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
func (f *folder) flush() error {
	if len(f.samples.ents) == 0 {
		return nil
	}
	rp := f.rp
	for id := f.resolved; id < len(rp.sites.sites); id++ {
		rp.resolve(int32(id))
	}
	f.resolved = len(rp.sites.sites)

	for i := range f.samples.ents {
		e := &f.samples.ents[i]
		b := f.samples.key(e)
		h := &f.hdrs[u32(b)]
		java := 0
		if h.Java {
			java = 1
		}
		named := h.name > 0
		fids := f.fids[:0]
		text := 0
		for b = b[4:]; len(b) >= 4; b = b[4:] {
			fid, err := f.fid(int32(u32(b)), java)
			if err != nil {
				return err
			}
			fr := &f.frames[fid]
			if fr.nends > 0 { // else a frame perf-script folding leaves out
				fids = append(fids, fid)
				text += int(fr.tlen)
			}
			if fr.skipAfter {
				named = false // no callers, no process name
				break
			}
		}
		f.fids = fids
		if (!named || len(f.names[h.name-1]) == 0) && text == 0 {
			f.namer.Folded(-e.n) // an empty stack is no sample
			continue
		}
		sk := f.key[:0]
		if named {
			sk = binary.LittleEndian.AppendUint32(sk, uint32(h.name))
		} else {
			sk = binary.LittleEndian.AppendUint32(sk, 0)
		}
		for _, fid := range fids {
			sk = binary.LittleEndian.AppendUint32(sk, uint32(fid))
		}
		f.key = sk
		if err := f.stacks.add(sk, e.w, e.n); err != nil {
			return err
		}
	}
	f.samples.reset()

	for j := range f.stacks.ents {
		e := &f.stacks.ents[j]
		b := f.stacks.key(e)
		s := f.stack[:0]
		if n := u32(b); n > 0 {
			s = append(s, f.names[n-1]...)
		}
		for i := len(b) - 4; i >= 4; i -= 4 {
			fr := &f.frames[u32(b[i:])]
			text := f.text[fr.off : fr.off+fr.tlen]
			start := int32(0)
			for _, end := range f.ends[fr.endOff : fr.endOff+fr.nends] {
				s = perfscript.AppendFrame(s, text[start:end])
				start = end
			}
		}
		f.stack = s
		if err := f.emit(s, e.w); err != nil {
			return err
		}
	}
	f.stacks.reset()
	return nil
}

// fid returns the folded frame of site id in a java process (java 1)
// or not, naming it on first use.
func (f *folder) fid(id int32, java int) (int32, error) {
	rp := f.rp
	st := &rp.sites.sites[id]
	if st.fid[java] >= 0 {
		return st.fid[java], nil
	}
	k := nameKey{dso: st.dso, sym: st.sym, java: java == 1}
	if st.sym < 0 && f.addrs {
		k.addr = st.addr
	}
	fid, ok := f.fidOf[k]
	if !ok {
		line := appendFrameLine(f.line[:0], rp.frame(id))
		f.line = line
		text, ends, skipAfter, err := f.namer.Frame(line[:len(line)-1], java == 1)
		if err != nil {
			return 0, err
		}
		fid = int32(len(f.frames))
		f.frames = append(f.frames, frameName{off: uint32(len(f.text)), tlen: uint32(len(text)),
			endOff: uint32(len(f.ends)), nends: uint32(len(ends)), skipAfter: skipAfter})
		f.text = append(f.text, text...)
		f.ends = append(f.ends, ends...)
		f.fidOf[k] = fid
	}
	st.fid[java] = fid
	return fid, nil
}

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
