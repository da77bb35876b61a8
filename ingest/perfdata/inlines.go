package perfdata

import (
	"bufio"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/pfold/pfold/ingest/internal/coproc"
)

// Inlined functions, as perf script adds them to the frames it unwinds
// from a sample's stack copy (--call-graph dwarf; perf 6.1's
// append_inlines, in a build without libbfd as Debian's): for a frame
// whose symbol is known, binutils' `addr2line -e FILE -i -f` is asked
// about the frame's address, FILE being the file perf read the symbols
// from (its "symsrc": the debug file, say) or else the binary at its
// recorded path. When addr2line finds the address, the frame becomes
// its answers, innermost first: each function, demangled, names a frame
// printed "(inlined)", unless it is the frame's own symbol, which keeps
// its binary. With no DWARF, addr2line names the function by the symbol
// table (the name perf chose, mostly, or an alias of it). Frames of the
// kernel's call chain, and of frame-pointer chains, get none of this.
//
// pfold asks addr2line as perf does, so the names are binutils' own.
// One process answers a file's every address, asked in batches.

// inlineKey is what an answer depends on: the file and the address in
// its objdump terms.
type inlineKey struct {
	file string
	addr uint64
}

// inlines asks addr2line and keeps its answers.
type inlines struct {
	procs  map[string][]*a2l      // a file's, for parts of its addresses
	cache  map[inlineKey][]string // the functions, innermost first; nil: not found
	warn   func(string)
	warned bool
}

func newInlines(warn func(string)) *inlines {
	return &inlines{procs: map[string][]*a2l{}, cache: map[inlineKey][]string{}, warn: warn}
}

// known reports whether the answer for k is cached.
func (in *inlines) known(k inlineKey) bool {
	_, ok := in.cache[k]
	return ok
}

// lookup returns the functions addr2line gives for k, asking it if need
// be; nil when it found nothing.
func (in *inlines) lookup(k inlineKey) []string {
	if fns, ok := in.cache[k]; ok {
		return fns
	}
	in.askAll(map[string][]uint64{k.file: {k.addr}}, 1)
	return in.cache[k]
}

// askAll asks each file's addr2line about its addresses, on up to jobs
// goroutines, and caches the answers. addr2line takes most of a
// millisecond an address in a large library's DWARF (libpython's), so
// the addresses of a file with many are parted, sorted, among jobs
// processes, each of which then reads mostly DWARF of its own part.
func (in *inlines) askAll(byFile map[string][]uint64, jobs int) {
	type batch struct {
		p     *a2l
		addrs []uint64
		fns   [][]string
	}
	jobs = max(1, jobs)
	var batches []*batch
	for file, addrs := range byFile {
		parts := 1
		if len(addrs) >= 2*minPart {
			parts = min(jobs, len(addrs)/minPart)
			slices.Sort(addrs)
		}
		for i := range parts {
			if len(in.procs[file]) <= i {
				p := startA2L(file)
				in.procs[file] = append(in.procs[file], p)
				if p.err != nil && !in.warned && in.warn != nil {
					in.warn(fmt.Sprintf("no inlined functions: %v (addr2line is in binutils)", p.err))
					in.warned = true
				}
			}
			lo, hi := i*len(addrs)/parts, (i+1)*len(addrs)/parts
			batches = append(batches, &batch{p: in.procs[file][i], addrs: addrs[lo:hi]})
		}
	}
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for _, b := range batches {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			b.fns = b.p.ask(b.addrs)
		}()
	}
	wg.Wait()
	for _, b := range batches {
		for i, a := range b.addrs {
			in.cache[inlineKey{b.p.file, a}] = b.fns[i]
		}
	}
}

// ask asks the process about addrs, all written before the answers are
// read (by a goroutine of its own: the pipes hold only so much), and
// returns the answers, nil for an address it found nothing at.
func (p *a2l) ask(addrs []uint64) [][]string {
	fns := make([][]string, len(addrs))
	if p.bad {
		return fns
	}
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(p.In)
		for _, a := range addrs {
			// The address, then "," that addr2line cannot read: its
			// answer, "??" and "??:0", ends the address's.
			fmt.Fprintf(w, "%016x\n,\n", a)
		}
		werr <- w.Flush()
	}()
	for i := range addrs {
		f, ok := p.answer()
		if !ok {
			p.bad = true
			break
		}
		fns[i] = f
	}
	if err := <-werr; err != nil {
		p.bad = true
	}
	return fns
}

// minPart is the fewest addresses worth a process of their own.
const minPart = 64

// close ends the addr2line processes.
func (in *inlines) close() {
	for _, ps := range in.procs {
		for _, p := range ps {
			p.close()
		}
	}
	in.procs = map[string][]*a2l{}
}

// a2l is one `addr2line -e FILE -i -f` process.
type a2l struct {
	file string
	*coproc.Proc
	bad bool  // it did not start, or stopped: every answer is nothing
	err error // why it did not start
}

func startA2L(file string) *a2l {
	p := &a2l{file: file}
	if p.Proc, p.err = coproc.Start(exec.Command("addr2line", "-e", file, "-i", "-f")); p.err != nil {
		p.bad = true
	}
	return p
}

// answer reads the answer to one address and to the "," after it: the
// functions of its records until the sentinel's (a record is a function
// line and a file:line line; "??:0" is one that found nothing), as
// perf's read_addr2line_record reads them. ok is false when addr2line
// stopped.
func (p *a2l) answer() (fns []string, ok bool) {
	fn, found, ok := p.record()
	if !ok {
		return nil, false
	}
	if !found {
		// Nothing for the address: the next record is the sentinel's.
		_, _, ok = p.record()
		return nil, ok
	}
	fns = append(fns, fn)
	for {
		fn, found, ok := p.record()
		if !ok {
			return nil, false
		}
		if !found {
			return fns, true
		}
		fns = append(fns, fn)
	}
}

// record reads one record: its function (trimmed, as perf's strim) and
// whether its file:line is not "??:0".
func (p *a2l) record() (fn string, found, ok bool) {
	l1, err := p.Out.ReadString('\n')
	if err != nil {
		return "", false, false
	}
	l2, err := p.Out.ReadString('\n')
	if err != nil {
		return "", false, false
	}
	l2 = strings.TrimSuffix(l2, "\n")
	if l2 == "??:0" || !strings.Contains(l2, ":") {
		return "", false, true
	}
	return strings.TrimSpace(l1), true, true
}

func (p *a2l) close() {
	if p.Proc != nil {
		p.Proc.Close()
	}
}

// inlineAt returns where addr2line is asked about site st, as perf's
// dso__name and map__rip_2objdump have it; ok is false for a site perf
// adds no inlined functions to: not unwound, no symbol, or a binary
// addr2line is not asked about (the vdso, a JIT map).
func (rp *replay) inlineAt(st *site) (k inlineKey, ok bool) {
	if rp.inl == nil || !st.unwound() || st.dso == nil || st.sym < 0 {
		return k, false
	}
	d := st.dso
	file := d.tab.symsrc
	if file == "" {
		file = d.name // the recorded path, --symfs or not
	}
	if file == "" || file[0] == '[' || strings.HasPrefix(file, "/tmp/perf-") {
		return k, false
	}
	return inlineKey{file: file, addr: st.addr + d.tab.textOffset}, true
}

// inlined returns the frames perf script prints for site id with its
// inlined functions, innermost first, or nil when it prints the site's
// one frame.
func (rp *replay) inlined(id int32) []Frame {
	st := rp.resolve(id)
	k, ok := rp.inlineAt(st)
	if !ok {
		return nil
	}
	fns := rp.inl.lookup(k)
	if fns == nil {
		return nil
	}
	base := rp.frame(id)
	frames := make([]Frame, 0, len(fns))
	for _, fn := range fns {
		if !rp.sym.opt.NoDemangle && mangledName([]byte(fn)) {
			fn = demangleName(fn)
		}
		f := base
		if fn != base.Sym {
			f.Sym, f.DSO = fn, "inlined" // printed "(inlined)"
		}
		frames = append(frames, f)
	}
	return frames
}

// forgetInlines drops addr2line's answers (its processes stay).
func (rp *replay) forgetInlines() {
	if rp.inl != nil {
		clear(rp.inl.cache)
	}
}

// askInlines asks addr2line, a batch a file, about the unwound sites
// from site from on whose answers are not known yet.
func (rp *replay) askInlines(from int) {
	if rp.inl == nil {
		return
	}
	byFile := map[string][]uint64{}
	seen := map[inlineKey]bool{}
	for id := from; id < len(rp.sites.sites); id++ {
		if k, ok := rp.inlineAt(rp.resolve(int32(id))); ok && !seen[k] && !rp.inl.known(k) {
			seen[k] = true
			byFile[k.file] = append(byFile[k.file], k.addr)
		}
	}
	rp.inl.askAll(byFile, rp.opt.Jobs)
}
