package perfdata

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
)

// machine tracks what perf's machine tracks while it replays a
// recording: threads with their names, each process's memory maps, and
// the kernel's maps, so that an address in a sample can be named.
type machine struct {
	threads map[int32]*thread
	last    *thread // the thread last found
	kernel  *maps   // kernel and module maps, shared by every thread
	syms    *symbolizer
	gens    genTable // the gens of processes' maps
}

type thread struct {
	pid, tid int32
	comm     string
	commSet  bool // a COMM event named it (forks inherit only such names)
	maps     *maps

	// The header id of the thread's last sample, for the direct fold.
	hdrAttr        *Attr
	hdrComm        string
	hdrPid, hdrTid int32
	hdrID          int32
}

// maps is one address space: mappings sorted by start, not overlapping.
type maps struct {
	m []*mapping
	// gen changes with every change of m: what was found in the maps of
	// one gen, at an address outside [vlo, vhi), holds while it lasts.
	// The kernel's maps share their gen with no other. A process's maps
	// (tab) share theirs with every maps of the same mappings but those
	// of the vdso, which the kernel places anew in each process: what
	// is found outside both vdsos is found the same in either. So the
	// many processes of one binary (a build's compilers) share what was
	// found in them, instead of each finding it anew.
	gen      uint64
	vlo, vhi uint64 // the vdso mappings' span; empty without one
	tab      *genTable
	// stale: m changed since gen was found. A process's gen is found
	// when a sample asks for it (fresh), not at each change: with its
	// data mappings (--call-graph dwarf, -d) a process maps memory
	// thousands of times between samples, and finding a gen hashes all
	// its mappings.
	stale bool
}

var mapsGen atomic.Uint64

func newMaps(tab *genTable) *maps {
	ms := &maps{tab: tab}
	ms.changed()
	return ms
}

func (ms *maps) changed() {
	if ms.tab == nil {
		ms.gen = mapsGen.Add(1)
		return
	}
	ms.stale = true
}

// fresh returns ms with its gen found, should it have changed since.
func (ms *maps) fresh() *maps {
	if ms.stale {
		ms.gen, ms.vlo, ms.vhi = ms.tab.gen(ms.m)
		ms.stale = false
	}
	return ms
}

// outside reports whether addr is outside the span of ms's vdso
// mappings, where what was found in maps of its gen holds.
func (ms *maps) outside(addr uint64) bool { return addr-ms.vlo >= ms.vhi-ms.vlo }

// genTable gives processes' maps their gens: one for each set of
// mappings but the vdso's.
type genTable struct {
	gens map[uint64][]genEntry // by hash of the mappings
}

type genEntry struct {
	gen uint64
	m   []mapping
}

// gen returns the gen of maps holding m, and its vdso mappings' span.
func (t *genTable) gen(m []*mapping) (gen, vlo, vhi uint64) {
	var h uint64
	n := 0
	vlo = ^uint64(0)
	for _, mp := range m {
		if mp.dso != nil && mp.dso.kind == dsoVDSO {
			vlo, vhi = min(vlo, mp.start), max(vhi, mp.end)
			continue
		}
		n++
		h = mixKey(h ^ mp.start)
		h = mixKey(h ^ mp.end ^ mp.pgoff<<1)
		if mp.dso != nil {
			h = mixKey(h ^ uint64(mp.dso.id)<<1 ^ b2u(mp.identity))
		}
	}
	h = mixKey(h ^ uint64(n))
	if vhi == 0 {
		vlo = 0
	}
	if t.gens == nil {
		t.gens = map[uint64][]genEntry{}
	}
next:
	for _, e := range t.gens[h] {
		if len(e.m) != n {
			continue
		}
		i := 0
		for _, mp := range m {
			if mp.dso != nil && mp.dso.kind == dsoVDSO {
				continue
			}
			if e.m[i] != *mp {
				continue next
			}
			i++
		}
		return e.gen, vlo, vhi
	}
	e := genEntry{gen: mapsGen.Add(1), m: make([]mapping, 0, n)}
	for _, mp := range m {
		if mp.dso == nil || mp.dso.kind != dsoVDSO {
			e.m = append(e.m, *mp)
		}
	}
	t.gens[h] = append(t.gens[h], e)
	return e.gen, vlo, vhi
}

type mapping struct {
	start, end, pgoff uint64
	dso               *dso
	identity          bool // addresses are not file-relative (JIT maps, kallsyms)
}

func newMachine(sym *symbolizer) *machine {
	m := &machine{threads: map[int32]*thread{}, kernel: newMaps(nil), syms: sym}
	// perf names the idle thread "swapper".
	m.threads[0] = &thread{pid: 0, tid: 0, comm: "swapper", maps: newMaps(&m.gens)}
	return m
}

// findThread returns the thread tid of process pid, making it up (named
// ":tid", as perf does) when no event introduced it.
func (m *machine) findThread(pid, tid int32) *thread {
	t := m.last
	if t == nil || t.tid != tid {
		t = m.threads[tid]
	}
	if t != nil {
		if t.pid == -1 && pid != -1 {
			t.pid = pid
		}
		m.last = t
		return t
	}
	t = &thread{pid: pid, tid: tid, comm: fmt.Sprintf(":%d", tid)}
	m.threads[tid] = t
	if pid != tid && pid > 0 {
		t.maps = m.findThread(pid, pid).maps // threads share their leader's maps
	} else {
		t.maps = newMaps(&m.gens)
	}
	return t
}

func (m *machine) comm(pid, tid int32, comm string) {
	t := m.findThread(pid, tid)
	t.comm, t.commSet = comm, true
}

// fork starts thread tid of process pid from thread ptid of ppid. A
// new process starts with a copy of its parent's maps, unless the fork
// is one perf record synthesized for a process already running
// (miscForkExec): its own mappings follow, and perf's machine__process_
// fork_event copies nothing then, so an address in none of them is
// unknown rather than the parent's.
func (m *machine) fork(pid, ppid, tid, ptid int32, misc uint16) {
	parent := m.findThread(ppid, ptid)
	delete(m.threads, tid) // a new thread reusing an old tid replaces it
	m.last = nil
	t := m.findThread(pid, tid)
	if parent.commSet {
		t.comm, t.commSet = parent.comm, true
	}
	if pid != ppid && t.maps != parent.maps && misc&miscForkExec == 0 {
		t.maps.m = append(t.maps.m[:0:0], parent.maps.m...) // a new process: a copy of the parent's maps
		t.maps.changed()
	}
}

// insert adds mp, cutting or removing the mappings it overlaps, as
// perf's maps__fixup_overlappings does.
func (ms *maps) insert(mp *mapping) {
	out := make([]*mapping, 0, len(ms.m)+3)
	for _, o := range ms.m {
		if o.end <= mp.start || o.start >= mp.end {
			out = append(out, o)
			continue
		}
		if o.start < mp.start {
			before := *o
			before.end = mp.start
			out = append(out, &before)
		}
		if o.end > mp.end {
			after := *o
			if !after.identity {
				after.pgoff += mp.end - o.start
			}
			after.start = mp.end
			out = append(out, &after)
		}
	}
	// The others are in order, mp goes among them. Where starts tie (a
	// mapping of no length), the sort decides, as it always did.
	i, _ := slices.BinarySearchFunc(out, mp.start, func(o *mapping, start uint64) int { return cmp.Compare(o.start, start) })
	if i < len(out) && out[i].start == mp.start || i > 0 && out[i-1].start == mp.start || !increasing(out) {
		out = append(out, mp)
		sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	} else {
		out = slices.Insert(out, i, mp)
	}
	ms.m = out
	ms.changed()
}

// increasing reports whether the mappings' starts increase strictly.
func increasing(m []*mapping) bool {
	for i := 1; i < len(m); i++ {
		if m[i].start <= m[i-1].start {
			return false
		}
	}
	return true
}

// find returns the mapping that holds addr.
func (ms *maps) find(addr uint64) *mapping {
	m := ms.m
	lo, hi := 0, len(m) // the first mapping ending past addr
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if m[h].end > addr {
			hi = h
		} else {
			lo = h + 1
		}
	}
	if lo < len(m) && m[lo].start <= addr {
		return m[lo]
	}
	return nil
}

const (
	protExec   = 0x4     // PROT_EXEC
	mapHugeTLB = 0x40000 // MAP_HUGETLB
)

const (
	miscMmapData    = 1 << 13
	miscCommExec    = 1 << 13
	miscForkExec    = 1 << 13
	miscMmapBuildID = 1 << 14
)

// mmap handles MMAP and MMAP2 records.
func (m *machine) mmap(typ uint32, misc uint16, body []byte, off int64) error {
	le := binary.LittleEndian
	if len(body) < 32 {
		return errAt(off, "mmap record too short")
	}
	pid, tid := int32(le.Uint32(body)), int32(le.Uint32(body[4:]))
	start, length, pgoff := le.Uint64(body[8:]), le.Uint64(body[16:]), le.Uint64(body[24:])
	p := body[32:]
	var buildID []byte
	// A data mapping (perf record -d, --call-graph dwarf) is not
	// executable: perf names anonymous memory after the JIT map only
	// where it is.
	exec, huge := misc&miscMmapData == 0, false
	if typ == recMMAP2 {
		if len(p) < 32 {
			return errAt(off, "mmap2 record too short")
		}
		exec = le.Uint32(p[24:])&protExec != 0
		huge = le.Uint32(p[28:])&mapHugeTLB != 0
		if misc&miscMmapBuildID != 0 {
			n := int(p[0])
			if n > 20 {
				n = 20
			}
			buildID = append([]byte(nil), p[4:4+n]...)
		}
		p = p[32:]
	}
	name := string(cstring(p))
	// Data mappings (perf record -d) hold no code, but perf keeps them
	// with the others: a stray address in one names its binary.
	cpumode := misc & 7
	if pid == -1 || cpumode == cpumodeKernel {
		m.kernelMmap(name, start, length, pgoff)
		return nil
	}
	t := m.findThread(pid, tid)
	mp := &mapping{start: start, end: start + length, pgoff: pgoff}
	if isAnon(name) || huge || isNoDSO(name) {
		if exec {
			name = fmt.Sprintf("/tmp/perf-%d.map", pid)
		}
		mp.identity = true
	}
	mp.dso = m.syms.dso(name, buildID, pid)
	if mp.dso.kind == dsoJIT {
		mp.identity = true
	}
	if mp.identity && !exec {
		mp.dso.kind = dsoData // perf looks for no symbols there
	}
	t.maps.insert(mp)
	return nil
}

func isAnon(name string) bool {
	return name == "//anon" || strings.HasPrefix(name, "/dev/zero") || strings.HasPrefix(name, "/anon_hugepage")
}

func isNoDSO(name string) bool {
	return strings.HasPrefix(name, "[stack") || strings.HasPrefix(name, "/SYSV") || name == "[heap]"
}

// kernelMmap records the kernel's text ("[kernel.kallsyms]_text") and
// module mappings.
func (m *machine) kernelMmap(name string, start, length, pgoff uint64) {
	if strings.HasPrefix(name, "[kernel.kallsyms]") || strings.HasPrefix(name, "[guest.kernel.kallsyms") {
		d := m.syms.kernelDSO()
		d.refReloc = pgoff // the address of the reference symbol (_text or _stext)
		d.refName = strings.TrimPrefix(name, "[kernel.kallsyms]")
		end := start + length
		if length == 0 || end < start {
			end = ^uint64(0)
		}
		m.kernel.insert(&mapping{start: start, end: end, dso: d, identity: true})
		m.fixupKernelEnd()
		return
	}
	d := m.syms.moduleDSO(name)
	m.kernel.insert(&mapping{start: start, end: start + length, dso: d, identity: true})
	m.fixupKernelEnd()
}

// kernelStart is where kernel addresses begin, as perf's
// machine__kernel_start has it: the kernel map's start, or 2^63.
func (m *machine) kernelStart() uint64 {
	for _, mp := range m.kernel.m {
		if mp.dso.kind == dsoKernel {
			return mp.start
		}
	}
	return 1 << 63
}

// fixupKernelEnd stretches each kernel map to the next one's start, and
// the last to the end of the address space (perf's maps__fixup_end).
func (m *machine) fixupKernelEnd() {
	ms := m.kernel.m
	for i, mp := range ms {
		if mp.dso.kind != dsoKernel {
			continue
		}
		if i+1 < len(ms) {
			mp.end = ms[i+1].start
		} else {
			mp.end = ^uint64(0)
		}
	}
}

// ksymbol handles KSYMBOL records (BPF programs, trampolines).
func (m *machine) ksymbol(body []byte, off int64) error {
	le := binary.LittleEndian
	if len(body) < 16 {
		return errAt(off, "ksymbol record too short")
	}
	addr, length, flags := le.Uint64(body), uint64(le.Uint32(body[8:])), le.Uint16(body[14:])
	name := string(cstring(body[16:]))
	if flags&1 != 0 { // PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER
		return nil
	}
	d := m.syms.ksymDSO(name, addr, length)
	m.kernel.insert(&mapping{start: addr, end: addr + length, dso: d, identity: true})
	return nil
}
