package perfdata

import (
	"bufio"
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ianlancetaylor/demangle"
	"github.com/pfold/pfold/ingest/internal/rustname"
	"github.com/ulikunitz/xz"
)

type dsoKind int

const (
	dsoELF dsoKind = iota
	dsoKernel
	dsoModule
	dsoJIT
	dsoVDSO
	dsoKsym
	dsoData // anonymous memory that is not code ("//anon", "[heap]"): no symbols
)

// dso is one binary (or kernel, or JIT map) whose symbols name
// addresses. Symbols are loaded on first use.
type dso struct {
	name    string // as perf script prints it
	kind    dsoKind
	buildID []byte
	pid     int32 // JIT maps: the process
	id      uint32

	state   dsoState
	done    chan struct{} // closed when a load on another goroutine ends
	snap    *dso          // what a prefetched load reads of it
	claimed atomic.Bool   // a goroutine took its prefetched load
	loadErr error
	tab     symtab           // sorted by start, ends fixed up
	shown   map[int32]string // names shown, by symbol
	// refReloc, refName: the kernel's reference symbol as recorded.
	refReloc uint64
	refName  string
}

type dsoState uint8

const (
	dsoNew     dsoState = iota
	dsoLoading          // on another goroutine
	dsoLoaded
)

// symbol is one symbol of a binary. Its name is in its table's names
// (the file's string table, kallsyms' text), so that a symbol holds no
// pointer and the collector never scans the tables.
type symbol struct {
	start, end uint64
	name, nlen uint32 // names[name:name+nlen]
	bind, typ  uint8  // elf.SymBind, elf.SymType
	// mangled: a C++, Rust, OCaml or JVM name, demangled when it is
	// first shown (most never are).
	mangled bool
	// covered: an earlier symbol overlaps this one (see markCovered).
	covered bool
	seq     uint32 // the order perf inserted it into its tree
}

// symtab is symbols and the bytes their names are in, and what it takes
// to build perf's tree of them (symtree.go).
type symtab struct {
	syms  []symbol
	names []byte
	// symsrc is the file the symbols were read from when it has a
	// .symtab (perf's symsrc_filename), and textOffset the runtime
	// file's .text address less its offset: where addr2line is asked
	// about inlined functions, and the address it is asked (inlines.go).
	symsrc     string
	textOffset uint64
	// inserted: the symbols of seq below it came before fixup, whose
	// erasures are erased (in order); the rest were added after.
	inserted int
	erased   []symbol
	rb       *symTree // built at the first lookup that needs it
}

func (t *symtab) raw(sy *symbol) []byte { return t.names[sy.name : sy.name+sy.nlen] }

// size returns about how many bytes t holds.
func (t *symtab) size() int64 {
	n := int64(len(t.names)) + int64(len(t.syms)+len(t.erased))*int64(unsafe.Sizeof(symbol{}))
	if t.rb != nil {
		n += int64(len(t.rb.left)+len(t.rb.right)) * 4
	}
	return n
}

// addName appends a name to the table's names and returns where it is.
func (t *symtab) addName(name string) (uint32, uint32) {
	off := len(t.names)
	t.names = append(t.names, name...)
	return uint32(off), uint32(len(name))
}

// nameOf returns the name perf script prints for sy: demangled.
func (t *symtab) nameOf(sy *symbol) string {
	if sy.mangled {
		return demangleName(string(t.raw(sy)))
	}
	return string(t.raw(sy))
}

// display returns the name perf script prints for symbol i of d, made
// once.
func (d *dso) display(i int32) string {
	if name, ok := d.shown[i]; ok {
		return name
	}
	if d.shown == nil {
		d.shown = map[int32]string{}
	}
	name := d.tab.nameOf(&d.tab.syms[i])
	d.shown[i] = name
	return name
}

// SymbolOptions say where symbols are read from, as perf's options do.
type SymbolOptions struct {
	Symfs    string // --symfs: a root directory for every file path
	Kallsyms string // --kallsyms: kernel symbols, instead of /proc/kallsyms
	// BuildIDDir is perf's build-id cache ($HOME/.debug by default).
	BuildIDDir string
	// Demangle: C++, Rust, OCaml and JVM names are demangled, as perf
	// script does by default.
	NoDemangle bool
}

type symbolizer struct {
	opt      SymbolOptions
	dsos     map[string]*dso
	kernel   *dso
	buildIDs map[string][]byte // path -> build id from the header
	warn     func(string)
	nextID   uint32
	// sem, when set, bounds the loads running on their own goroutines
	// (Prefetch); without it symbols are loaded at first use.
	sem chan struct{}
	// The prefetched loads not yet begun, oldest first: one that waits
	// for a load takes them meanwhile (see ensure).
	mu      sync.Mutex
	pending []*dso
}

func newSymbolizer(opt SymbolOptions, h *Header, warn func(string)) *symbolizer {
	if opt.BuildIDDir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			opt.BuildIDDir = filepath.Join(home, ".debug")
		}
	}
	s := &symbolizer{opt: opt, dsos: map[string]*dso{}, buildIDs: map[string][]byte{}, warn: warn}
	for _, b := range h.BuildIDs {
		s.buildIDs[b.Path] = b.ID
	}
	return s
}

func (s *symbolizer) dso(name string, buildID []byte, pid int32) *dso {
	if d := s.dsos[name]; d != nil {
		if d.buildID == nil && buildID != nil {
			d.buildID = buildID
		}
		return d
	}
	d := s.newDSO(&dso{name: name, kind: dsoELF, buildID: buildID, pid: pid})
	if d.buildID == nil {
		d.buildID = s.buildIDs[name]
	}
	switch {
	case strings.HasPrefix(name, "/tmp/perf-") && strings.HasSuffix(name, ".map"):
		d.kind = dsoJIT
	case name == "[vdso]":
		d.kind = dsoVDSO
	}
	s.dsos[name] = d
	return d
}

func (s *symbolizer) kernelDSO() *dso {
	if s.kernel == nil {
		s.kernel = s.newDSO(&dso{name: "[kernel.kallsyms]", kind: dsoKernel, buildID: s.buildIDs["[kernel.kallsyms]"]})
	}
	return s.kernel
}

func (s *symbolizer) moduleDSO(path string) *dso {
	name := filepath.Base(path)
	if i := strings.Index(name, ".ko"); i >= 0 {
		name = name[:i]
	}
	name = "[" + strings.ReplaceAll(name, "-", "_") + "]"
	if d := s.dsos[name]; d != nil {
		return d
	}
	d := s.newDSO(&dso{name: name, kind: dsoModule})
	s.dsos[name] = d
	return d
}

func (s *symbolizer) ksymDSO(name string, addr, length uint64) *dso {
	d := s.newDSO(&dso{name: name, kind: dsoKsym, state: dsoLoaded})
	off, n := d.tab.addName(name)
	d.tab.syms = []symbol{{start: addr, end: addr + length, name: off, nlen: n}}
	return d
}

func (s *symbolizer) newDSO(d *dso) *dso {
	s.nextID++
	d.id = s.nextID
	return d
}

// lookup returns the index in d.tab.syms of the symbol holding addr
// (file-relative for ELF maps, absolute otherwise), or -1: the last
// symbol starting at or before addr, unless others overlap it, when
// perf's tree says which.
func (s *symbolizer) lookup(d *dso, addr uint64) int32 {
	s.ensure(d)
	syms := d.tab.syms
	lo, hi := 0, len(syms) // the first symbol starting past addr
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if syms[m].start > addr {
			hi = m
		} else {
			lo = m + 1
		}
	}
	i := lo - 1
	switch {
	case i < 0:
		return -1
	case syms[i].covered:
		return d.tab.find(addr)
	case addr < syms[i].end || addr == syms[i].start:
		return int32(i)
	}
	return -1
}

// prefetch starts loading d's symbols on a goroutine of their own, when
// the symbolizer has room for them (sem); lookup waits for the load.
// What the load reads of d is copied now: the replay goes on changing
// the dso (a later mmap's build id) as loading at first use would not
// see.
func (s *symbolizer) prefetch(d *dso) {
	if s.sem == nil || d.state != dsoNew {
		return
	}
	d.state = dsoLoading
	d.done = make(chan struct{})
	d.snap = d.snapshot()
	s.mu.Lock()
	s.pending = append(s.pending, d)
	s.mu.Unlock()
	go func() {
		s.sem <- struct{}{}
		s.loadPrefetched(d)
		<-s.sem
	}()
}

// loadPrefetched runs d's prefetched load, unless another goroutine took
// it.
func (s *symbolizer) loadPrefetched(d *dso) {
	if !d.claimed.CompareAndSwap(false, true) {
		return
	}
	snap := d.snap
	snap.loadErr = s.load(snap)
	d.tab, d.loadErr, d.snap = snap.tab, snap.loadErr, nil
	close(d.done)
}

// await waits for d's prefetched load to end. sem leaves the core of the
// goroutine that prefetched to it; when that goroutine waits, as the
// fold does for the kernel's symbols (reading /proc/kallsyms takes tens
// of milliseconds), it runs the loads still waiting for sem, d's first.
func (s *symbolizer) await(d *dso) {
	s.loadPrefetched(d)
	for {
		select {
		case <-d.done:
			return
		default:
		}
		s.mu.Lock()
		var next *dso
		for len(s.pending) > 0 && next == nil {
			if o := s.pending[0]; !o.claimed.Load() {
				next = o
			}
			s.pending = s.pending[1:]
		}
		s.mu.Unlock()
		if next == nil {
			<-d.done
			return
		}
		s.loadPrefetched(next)
	}
}

// ensure loads d's symbols, or waits for the load prefetch began, and
// says once when there are none.
func (s *symbolizer) ensure(d *dso) {
	switch d.state {
	case dsoLoaded:
		return
	case dsoNew:
		snap := d.snapshot()
		d.loadErr = s.load(snap)
		d.tab = snap.tab
	case dsoLoading:
		s.await(d)
	}
	d.state = dsoLoaded
	if d.loadErr != nil && s.warn != nil {
		s.warn(fmt.Sprintf("no symbols for %s: %v", d.name, d.loadErr))
	}
}

// snapshot copies what loading reads of d.
func (d *dso) snapshot() *dso {
	return &dso{name: d.name, kind: d.kind, buildID: d.buildID, pid: d.pid, id: d.id, refReloc: d.refReloc, refName: d.refName}
}

// load reads d's symbols into d.tab. It touches nothing but d and
// reads the symbolizer's options only, so loads may run concurrently.
func (s *symbolizer) load(d *dso) error {
	switch d.kind {
	case dsoKernel:
		return s.loadKallsyms(d)
	case dsoModule:
		s.loadModuleFromKallsyms(d)
	case dsoJIT:
		return s.loadPerfMap(d)
	case dsoVDSO:
		return s.loadVDSO(d)
	case dsoELF:
		return s.loadELF(d)
	}
	return nil
}

// --- ELF -------------------------------------------------------------

func (s *symbolizer) root(path string) string {
	if s.opt.Symfs == "" {
		return path
	}
	return filepath.Join(s.opt.Symfs, path)
}

func buildIDHex(id []byte) string { return hex.EncodeToString(id) }

// buildIDLink returns the directory of perf's build-id cache where the
// files of build id id are ("elf", "debug"), or "" without a cache or
// an id.
func (s *symbolizer) buildIDLink(id []byte) string {
	if len(id) == 0 || s.opt.BuildIDDir == "" {
		return ""
	}
	h := buildIDHex(id)
	return filepath.Join(s.opt.BuildIDDir, ".build-id", h[:2], h[2:])
}

// candidates lists the files perf tries for a dso's symbols, in perf's
// order: the build-id cache, debug files, the binary itself.
func (s *symbolizer) candidates(d *dso) []string {
	var c []string
	if dl := s.debuglink(s.root(d.name)); dl != "" {
		c = append(c, dl)
	}
	if link := s.buildIDLink(d.buildID); link != "" {
		c = append(c, filepath.Join(link, "elf"), filepath.Join(link, "debug"))
	}
	c = append(c, s.root("/usr/lib/debug"+d.name+".debug"), s.root("/usr/lib/debug"+d.name))
	if len(d.buildID) > 0 {
		h := buildIDHex(d.buildID)
		c = append(c, s.root("/usr/lib/debug/.build-id/"+h[:2]+"/"+h[2:]+".debug"))
	}
	c = append(c, s.root(d.name))
	return c
}

// debuglink returns the path .gnu_debuglink of file names, if it exists:
// beside the file, in its .debug directory, or under /usr/lib/debug.
func (s *symbolizer) debuglink(file string) string {
	f, err := elf.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sec := f.Section(".gnu_debuglink")
	if sec == nil {
		return ""
	}
	data, err := sec.Data()
	if err != nil {
		return ""
	}
	name := string(cstring(data))
	if name == "" {
		return ""
	}
	dir := filepath.Dir(file)
	for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, ".debug", name), s.root(filepath.Join("/usr/lib/debug", strings.TrimPrefix(dir, s.opt.Symfs), name))} {
		if p == file {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// elfSource is one opened candidate.
type elfSource struct {
	f      *elf.File
	path   string
	closer io.Closer
	symtab bool
	dynsym bool
}

func (s *symbolizer) loadELF(d *dso) error {
	if len(d.buildID) == 0 {
		// As perf does: the file's own build id finds its debug file.
		if f, err := elf.Open(s.root(d.name)); err == nil {
			d.buildID = elfBuildID(f)
			f.Close()
		}
	}
	var symsSrc, runtime *elfSource
	var opened []*elfSource
	defer func() {
		for _, o := range opened {
			o.closer.Close()
		}
	}()
	for _, path := range s.candidates(d) {
		f, err := elf.Open(path)
		if err != nil {
			continue
		}
		if len(d.buildID) > 0 {
			if id := elfBuildID(f); id == nil || !bytes.Equal(id, d.buildID) {
				f.Close()
				continue
			}
		}
		src := &elfSource{f: f, path: path, closer: f}
		if sec := f.Section(".symtab"); sec != nil && sec.Type == elf.SHT_SYMTAB {
			src.symtab = true
		}
		if sec := f.Section(".dynsym"); sec != nil && sec.Type == elf.SHT_DYNSYM {
			src.dynsym = true
		}
		used := false
		if symsSrc == nil && src.symtab {
			symsSrc, used = src, true
		}
		if runtime == nil && src.dynsym {
			runtime, used = src, true
		}
		if used {
			opened = append(opened, src)
			if symsSrc != nil && runtime != nil {
				break
			}
		} else {
			f.Close()
		}
	}
	// MiniDebugInfo: an xz-compressed ELF with a .symtab inside.
	if symsSrc == nil && runtime != nil {
		if mini := miniDebugInfo(runtime.f); mini != nil {
			opened = append(opened, mini)
			tab := s.elfSymbols(mini.f, runtime.f, false)
			dyn := s.elfSymbols(runtime.f, runtime.f, true)
			base := uint32(len(tab.names))
			tab.names = append(tab.names, dyn.names...)
			for _, sy := range dyn.syms {
				sy.name += base
				tab.syms = append(tab.syms, sy)
			}
			fixup(&tab, false)
			tab.add(pltSymbols(runtime.f, s, &tab))
			tab.textOffset = textOffset(runtime.f)
			d.tab = tab
			return nil
		}
	}
	if symsSrc == nil && runtime == nil {
		return fmt.Errorf("no readable ELF file (tried %s)", strings.Join(s.candidates(d), ", "))
	}
	if symsSrc == nil {
		symsSrc = runtime
	}
	if runtime == nil {
		runtime = symsSrc
	}
	tab := s.elfSymbols(symsSrc.f, runtime.f, !symsSrc.symtab)
	if len(tab.syms) > 0 {
		fixup(&tab, false)
		tab.add(pltSymbols(runtime.f, s, &tab))
		if symsSrc.symtab {
			tab.symsrc = symsSrc.path
		}
		tab.textOffset = textOffset(runtime.f)
		d.tab = tab
	}
	return nil
}

// textOffset is f's .text address less its offset in the file (perf's
// dso->text_offset), 0 without one.
func textOffset(f *elf.File) uint64 {
	if text := f.Section(".text"); text != nil {
		return text.Addr - text.Offset
	}
	return 0
}

// sortSyms sorts s by start, keeping the order of equal starts, as
// perf's insertion in its tree does. Symbol tables are often sorted
// already; others are sorted by a stable radix sort of their starts, 16
// bits a pass (passes over bits all symbols share are skipped), which
// moves indices, not symbols, until the end.
func sortSyms(s []symbol) []symbol {
	byStart := func(a, b symbol) int { return cmp.Compare(a.start, b.start) }
	if slices.IsSortedFunc(s, byStart) {
		return s
	}
	if len(s) < 1<<10 {
		slices.SortStableFunc(s, byStart)
		return s
	}
	idx := make([]uint32, len(s))
	tmp := make([]uint32, len(s))
	for i := range idx {
		idx[i] = uint32(i)
	}
	var or, and uint64 = 0, ^uint64(0)
	for i := range s {
		or |= s[i].start
		and &= s[i].start
	}
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		if (or^and)>>shift&0xffff == 0 {
			continue // every start has the same bits here
		}
		clear(count[:])
		for _, i := range idx {
			count[s[i].start>>shift&0xffff]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, i := range idx {
			d := s[i].start >> shift & 0xffff
			tmp[count[d]] = i
			count[d]++
		}
		idx, tmp = tmp, idx
	}
	out := make([]symbol, len(s))
	for j, i := range idx {
		out[j] = s[i]
	}
	return out
}

// add adds more symbols to the sorted table, as perf adds the PLT's
// after fixup: after the table's at equal starts, what sorting them
// appended would give.
func (t *symtab) add(more []symbol) {
	if len(more) == 0 {
		return
	}
	for j := range more {
		more[j].seq = uint32(t.inserted + j)
	}
	more = sortSyms(more)
	syms := t.syms
	out := make([]symbol, 0, len(syms)+len(more))
	i, j := 0, 0
	for i < len(syms) && j < len(more) {
		if more[j].start < syms[i].start {
			out = append(out, more[j])
			j++
		} else {
			out = append(out, syms[i])
			i++
		}
	}
	out = append(out, syms[i:]...)
	t.syms = append(out, more[j:]...)
	markCovered(t.syms)
}

// elfSymbols reads the function, object and label symbols of f (its
// .dynsym when dynsym, else .symtab), at file offsets as perf keeps them.
// C++, Rust, OCaml and JVM names are marked to be demangled at first
// use. The names stay in the file's string table.
func (s *symbolizer) elfSymbols(f, runtime *elf.File, dynsym bool) symtab {
	list, strs, err := rawSymbols(f, dynsym)
	if err != nil {
		return symtab{}
	}
	loads := loadSegments(runtime)
	out := make([]symbol, 0, len(list))
	for _, sy := range list {
		typ, bind := elf.ST_TYPE(sy.info), elf.ST_BIND(sy.info)
		vis := elf.ST_VISIBILITY(sy.other)
		if sy.nlen == 0 || sy.shndx == elf.SHN_UNDEF {
			continue
		}
		isFunc := typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC
		isObj := typ == elf.STT_OBJECT
		isLabel := typ == elf.STT_NOTYPE && sy.shndx != elf.SHN_ABS &&
			vis != elf.STV_HIDDEN && vis != elf.STV_INTERNAL
		if !isLabel && !isFunc && !isObj {
			continue
		}
		if sy.shndx == elf.SHN_ABS || int(sy.shndx) >= len(f.Sections) {
			continue
		}
		sec := f.Sections[sy.shndx]
		if sec.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		if sec.Type == elf.SHT_NOBITS && int(sy.shndx) < len(runtime.Sections) {
			sec = runtime.Sections[sy.shndx]
		}
		if isLabel && !strings.Contains(sec.Name, "text") && !strings.Contains(sec.Name, "data") {
			continue
		}
		v := sy.value
		if ph := loads.find(v); ph != nil {
			v -= ph.Vaddr - ph.Off
		} else {
			v -= sec.Addr - sec.Offset
		}
		name := strs[sy.name : sy.name+sy.nlen]
		mangled := !s.opt.NoDemangle && mangledName(name)
		out = append(out, symbol{start: v, end: v + sy.size, name: sy.name, nlen: sy.nlen, bind: uint8(bind), typ: uint8(typ), mangled: mangled})
	}
	return symtab{syms: out, names: strs}
}

// rawSymbol is an ELF symbol as the table holds it; its name is at
// name, nlen of the string table rawSymbols returns.
type rawSymbol struct {
	name, nlen  uint32
	info, other byte
	shndx       elf.SectionIndex
	value, size uint64
}

// rawSymbols reads f's .symtab (or .dynsym) as it is, and returns it
// with its string table: a little-endian 64-bit table is walked in
// place, its names left in the string table (debug/elf allocates each);
// other files go through debug/elf.
func rawSymbols(f *elf.File, dynsym bool) ([]rawSymbol, []byte, error) {
	typ := elf.SHT_SYMTAB
	if dynsym {
		typ = elf.SHT_DYNSYM
	}
	var sec *elf.Section
	for _, sc := range f.Sections {
		if sc.Type == typ {
			sec = sc
			break
		}
	}
	if sec == nil {
		return nil, nil, elf.ErrNoSymbols
	}
	if f.Class != elf.ELFCLASS64 || f.ByteOrder != binary.LittleEndian || int(sec.Link) >= len(f.Sections) {
		var list []elf.Symbol
		var err error
		if dynsym {
			list, err = f.DynamicSymbols()
		} else {
			list, err = f.Symbols()
		}
		var names []byte
		out := make([]rawSymbol, len(list))
		for i, sy := range list {
			out[i] = rawSymbol{name: uint32(len(names)), nlen: uint32(len(sy.Name)), info: sy.Info, other: sy.Other, shndx: sy.Section, value: sy.Value, size: sy.Size}
			names = append(names, sy.Name...)
		}
		return out, names, err
	}
	data, err := sec.Data()
	if err != nil {
		return nil, nil, err
	}
	strs, err := f.Sections[sec.Link].Data()
	if err != nil {
		return nil, nil, err
	}
	const entSize = 24
	if len(data) < entSize || len(strs) >= 1<<32 {
		return nil, strs, nil
	}
	out := make([]rawSymbol, 0, len(data)/entSize-1)
	for p := data[entSize:]; len(p) >= entSize; p = p[entSize:] {
		le := binary.LittleEndian
		var off, n uint32
		if o := le.Uint32(p); int(o) < len(strs) {
			off = o
			n = uint32(len(strs) - int(o))
			if i := bytes.IndexByte(strs[o:], 0); i >= 0 {
				n = uint32(i)
			}
		}
		out = append(out, rawSymbol{name: off, nlen: n, info: p[4], other: p[5], shndx: elf.SectionIndex(le.Uint16(p[6:])),
			value: le.Uint64(p[8:]), size: le.Uint64(p[16:])})
	}
	return out, strs, nil
}

// loads are a file's PT_LOAD segments.
type loads []*elf.ProgHeader

func loadSegments(f *elf.File) loads {
	var l loads
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && max(p.Memsz, p.Filesz) > 0 {
			l = append(l, &p.ProgHeader)
		}
	}
	return l
}

// find returns the segment holding vaddr.
func (l loads) find(vaddr uint64) *elf.ProgHeader {
	for _, p := range l {
		if vaddr >= p.Vaddr && vaddr < p.Vaddr+max(p.Memsz, p.Filesz) {
			return p
		}
	}
	return nil
}

func elfBuildID(f *elf.File) []byte {
	for _, name := range []string{".note.gnu.build-id", ".notes", ".note"} {
		sec := f.Section(name)
		if sec == nil {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			return nil
		}
		return noteBuildID(data)
	}
	return nil
}

// noteBuildID returns the GNU build id among ELF notes.
func noteBuildID(data []byte) []byte {
	for len(data) >= 12 {
		nsz, dsz, typ := binary.LittleEndian.Uint32(data), binary.LittleEndian.Uint32(data[4:]), binary.LittleEndian.Uint32(data[8:])
		nA, dA := (int(nsz)+3)&^3, (int(dsz)+3)&^3
		if 12+nA+dA > len(data) {
			return nil
		}
		if typ == 3 && nsz == 4 && string(data[12:15]) == "GNU" {
			return append([]byte(nil), data[12+nA:12+nA+int(min(dsz, 20))]...)
		}
		data = data[12+nA+dA:]
	}
	return nil
}

func miniDebugInfo(f *elf.File) *elfSource {
	sec := f.Section(".gnu_debugdata")
	if sec == nil || sec.Type == elf.SHT_NOBITS {
		return nil
	}
	data, err := sec.Data()
	if err != nil {
		return nil
	}
	r, err := xz.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(r, 256<<20))
	if err != nil {
		return nil
	}
	mf, err := elf.NewFile(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	return &elfSource{f: mf, closer: io.NopCloser(nil), symtab: true}
}

// fixup sorts the symbols, gives zero-sized symbols the room up to the
// next one and drops aliases at the same address but the best, as
// perf's symbols__fixup_end and symbols__fixup_duplicate do; it keeps
// the order perf inserted them in and what it erased, for its tree.
func fixup(t *symtab, kallsyms bool) {
	number(t)
	syms := sortSyms(t.syms)
	for i := 0; i+1 < len(syms); i++ {
		prev, cur := &syms[i], &syms[i+1]
		if prev.end == prev.start {
			if kallsyms && bytes.IndexByte(t.raw(prev), '[') >= 0 != (bytes.IndexByte(t.raw(cur), '[') >= 0) {
				prev.end = roundUp(prev.end+4096, 4096)
			} else {
				prev.end = cur.start
			}
		}
	}
	if n := len(syms); n > 0 && syms[n-1].end == syms[n-1].start {
		syms[n-1].end = roundUp(syms[n-1].start, 4096) + 4096
	}
	out := syms[:0]
	for _, sy := range syms {
		if n := len(out); n > 0 && out[n-1].start == sy.start {
			if better(t, &out[n-1], &sy) {
				t.erased = append(t.erased, sy)
			} else {
				t.erased = append(t.erased, out[n-1])
				out[n-1] = sy
			}
			continue
		}
		out = append(out, sy)
	}
	t.syms = out
	markCovered(t.syms)
}

// number gives t's symbols, in the order perf inserts them, their seq.
func number(t *symtab) {
	for i := range t.syms {
		t.syms[i].seq = uint32(i)
	}
	t.inserted = len(t.syms)
}

func roundUp(x, to uint64) uint64 { return (x + to - 1) / to * to }

// better reports whether a is kept over b (perf's choose_best_symbol).
func better(t *symtab, a, b *symbol) bool {
	la, lb := a.end-a.start, b.end-b.start
	if lb == 0 && la > 0 {
		return true
	}
	if la == 0 && lb > 0 {
		return false
	}
	wa, wb := elf.SymBind(a.bind) == elf.STB_WEAK, elf.SymBind(b.bind) == elf.STB_WEAK
	if wb && !wa {
		return true
	}
	if wa && !wb {
		return false
	}
	ga, gb := elf.SymBind(a.bind) == elf.STB_GLOBAL, elf.SymBind(b.bind) == elf.STB_GLOBAL
	if ga && !gb {
		return true
	}
	if gb && !ga {
		return false
	}
	// perf compares the names as it shows them: demangled.
	an, bn := t.nameOf(a), t.nameOf(b)
	ua, ub := underscores(an), underscores(bn)
	if ub > ua {
		return true
	}
	if ua > ub {
		return false
	}
	if len(an) > len(bn) {
		return true
	}
	if len(an) < len(bn) {
		return false
	}
	return true
}

func underscores(s string) int {
	n := 0
	for n < len(s) && s[n] == '_' {
		n++
	}
	return n
}

// mangledName reports whether perf may demangle name: a C++ or Rust name
// ("_Z", "_R"), an OCaml one ("caml" and a capital) or, with a ')', a
// JVM method's.
func mangledName(name []byte) bool {
	return len(name) >= 2 && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R') ||
		len(name) >= 5 && isOCaml(string(name[:5])) || bytes.IndexByte(name, ')') >= 0
}

// demangleName demangles a name as perf script shows it: C++ and Rust
// names as libiberty does (Rust's rules first, as there), without
// parameter lists; then, what libiberty does not take, by perf's own
// rules for OCaml and for the JVM.
func demangleName(name string) string {
	if out, ok := libibertyName(name); ok {
		return out
	}
	if isOCaml(name) {
		return ocamlName(name)
	}
	if out, ok := javaName(name); ok {
		return out
	}
	return name
}

// libibertyName demangles a Rust or C++ name as perf 6.1's libiberty
// does, or says it does not.
func libibertyName(name string) (string, bool) {
	if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_R") {
		return "", false
	}
	if out, ok := rustname.Demangle(name); ok {
		return out, true
	}
	if strings.HasPrefix(name, "_Z") {
		a, err := demangle.ToAST(name, demangle.NoParams)
		if err != nil || qualifiedArgs(a) {
			return "", false
		}
		for _, fix := range []func(demangle.AST) demangle.AST{addressOfFunction, emptyPacks} {
			if b := a.Copy(fix, func(demangle.AST) bool { return false }); b != nil {
				a = b
			}
		}
		out := demangle.ASTToString(a, demangle.NoParams)
		if strings.ContainsAny(out, packMarks) {
			out = strings.ReplaceAll(strings.ReplaceAll(out, ", "+trailingPacks, ""), emptyPack, "")
		}
		return out, true
	}
	return "", false
}

// qualifiedArgs reports whether a has a template argument that comes
// with its parameter's declaration ("Tn <type> <arg>", Itanium ABI issue
// 47, which GCC 14 and clang 18 write). perf 6.1's libiberty (binutils
// 2.40) does not read them and leaves such a name mangled.
func qualifiedArgs(a demangle.AST) bool {
	found := false
	a.Traverse(func(x demangle.AST) bool {
		if _, ok := x.(*demangle.TemplateParamQualifiedArg); ok {
			found = true
		}
		return !found
	})
	return found
}

// GNU's demangler prints a template's arguments as a list in which an
// empty argument pack prints nothing but keeps its ", " when an argument
// follows ("f<, int>", "f<A, , int>"); after the last argument that
// prints, the empty packs and their ", " are taken back, but the
// demangler then takes the last character written for a ' ', and
// writes no space between two '>' ("A<B<int>>" where it writes
// "A<B<int> >" otherwise). Go's demangler leaves empty packs out. So
// emptyPacks marks the empty packs before the last argument that prints
// with emptyPack, and the packs after it with one trailingPacks, which
// demangleName takes out again with the ", " before it.
const (
	emptyPack     = "\x00"
	trailingPacks = "\x01"
	packMarks     = emptyPack + trailingPacks
)

func emptyPacks(x demangle.AST) demangle.AST {
	t, ok := x.(*demangle.Template)
	if !ok {
		return nil
	}
	last := -1 // the last argument that prints
	for i, a := range t.Args {
		if !isEmptyPack(a) {
			last = i
		}
	}
	if last < 0 || last == len(t.Args)-1 && !slices.ContainsFunc(t.Args[:last], isEmptyPack) {
		return nil
	}
	args := make([]demangle.AST, 0, last+2)
	for _, a := range t.Args[:last+1] {
		if isEmptyPack(a) {
			a = &demangle.Name{Name: emptyPack}
		}
		args = append(args, a)
	}
	if last < len(t.Args)-1 {
		args = append(args, &demangle.Name{Name: trailingPacks})
	}
	return &demangle.Template{Name: t.Name, Args: args}
}

// isEmptyPack reports whether a prints nothing: Go's demangler's test.
func isEmptyPack(a demangle.AST) bool {
	switch a := a.(type) {
	case *demangle.ArgumentPack:
		return !slices.ContainsFunc(a.Args, func(a demangle.AST) bool { return !isEmptyPack(a) })
	case *demangle.ExprList:
		return len(a.Exprs) == 0
	case *demangle.PackExpansion:
		return a.Pack != nil && isEmptyPack(a.Base)
	}
	return false
}

// addressOfFunction prints the address of a function taken in a template
// argument as GNU's demangler does (perf's): the argument list is left
// out only for a qualified name ("f<&ns::g>"), others print whole and in
// parentheses ("f<&(g(int))>", "f<&(void g<int>(int))>"), where Go's
// demangler leaves every argument list out.
func addressOfFunction(x demangle.AST) demangle.AST {
	u, ok := x.(*demangle.Unary)
	if !ok {
		return nil
	}
	if op, ok := u.Op.(*demangle.Operator); !ok || op.Name != "&" {
		return nil
	}
	t, ok := u.Expr.(*demangle.Typed)
	if !ok {
		return nil
	}
	if _, ok := t.Type.(*demangle.FunctionType); !ok {
		return nil
	}
	if _, ok := t.Name.(*demangle.Qualified); ok {
		return nil
	}
	return &demangle.Unary{Op: u.Op, Expr: &demangle.Name{Name: "(" + demangle.ASTToString(t) + ")"}, Suffix: u.Suffix, SizeofType: u.SizeofType}
}

// pltSymbols synthesizes "name@plt" symbols for the .plt entries of f,
// as perf 6.1 does on x86-64: one entry of the section's entry size per
// .rela.plt relocation, in relocation order, after a header of that size.
// It names no header (".plt") and reads no .plt.sec: samples there are
// [unknown] to perf 6.1 (later perfs name both; checked with the
// recordings of testdata/perfdata/plt).
func pltSymbols(f *elf.File, s *symbolizer, t *symtab) []symbol {
	plt := f.Section(".plt")
	if plt == nil || f.Machine != elf.EM_X86_64 {
		return nil
	}
	rel := f.Section(".rela.plt")
	if rel == nil || rel.Type != elf.SHT_RELA {
		return nil
	}
	entry := plt.Entsize
	if entry != 8 && entry != 16 {
		entry = 16
		if plt.Addralign == 8 {
			entry = 8
		}
	}
	syms, strs, err := rawSymbols(f, true)
	if err != nil {
		return nil
	}
	data, err := rel.Data()
	if err != nil {
		return nil
	}
	n := len(data) / 24
	out := make([]symbol, 0, n)
	off := plt.Offset + entry // past the header
	// perf 6.1 pairs slots with relocations in .rela.plt order, unsorted
	// (later perfs sort by offset, which names IFUNC slots better).
	for i := 0; i < n; i++ {
		sym := uint32(binary.LittleEndian.Uint64(data[i*24+8:]) >> 32)
		name := ""
		if sym > 0 && int(sym) <= len(syms) {
			name = string(strs[syms[sym-1].name : syms[sym-1].name+syms[sym-1].nlen])
			if !s.opt.NoDemangle {
				name = demangleName(name)
			}
		}
		name += "@plt" // perf 6.1 names an IFUNC slot with no symbol just "@plt"
		no, nn := t.addName(name)
		out = append(out, symbol{start: off, end: off + entry, name: no, nlen: nn, bind: uint8(elf.STB_GLOBAL), typ: uint8(elf.STT_FUNC)})
		off += entry
	}
	return out
}

// runningVDSO returns the image of this process's vdso, which is the
// running kernel's.
func runningVDSO() ([]byte, error) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(maps), "\n") {
		if !strings.HasSuffix(line, " [vdso]") {
			continue
		}
		var start, end uint64
		if _, err := fmt.Sscanf(line, "%x-%x", &start, &end); err != nil || end <= start || end-start > 1<<20 {
			return nil, fmt.Errorf("/proc/self/maps: bad vdso line %q", line)
		}
		mem, err := os.Open("/proc/self/mem")
		if err != nil {
			return nil, err
		}
		defer mem.Close()
		image := make([]byte, end-start)
		if _, err := mem.ReadAt(image, int64(start)); err != nil {
			return nil, err
		}
		return image, nil
	}
	return nil, fmt.Errorf("no vdso in /proc/self/maps")
}

// --- kernel ------------------------------------------------------------

// loadKallsyms reads the kernel's symbols from --kallsyms or, when the
// recording's kernel build id is that of the running kernel (or the
// recording has none), from /proc/kallsyms.
func (s *symbolizer) loadKallsyms(d *dso) error {
	path := s.opt.Kallsyms
	if path == "" {
		if len(d.buildID) > 0 {
			running := runningKernelBuildID()
			if running == nil || !bytes.Equal(running, d.buildID) {
				return fmt.Errorf("the recording's kernel (build id %x) is not the running one; give --kallsyms", d.buildID)
			}
		}
		path = "/proc/kallsyms"
	}
	data, err := readAll(path)
	if err != nil {
		return err
	}
	if len(data) >= 1<<32 {
		return fmt.Errorf("%s: %d bytes of kernel symbols", path, len(data))
	}
	// The names stay in the text read.
	syms := make([]symbol, 0, bytes.Count(data, []byte{'\n'})+1)
	var ref uint64
	refName := d.refName
	if refName == "" {
		refName = "_text"
	}
	for pos := 0; pos < len(data); {
		line := data[pos:]
		start := pos
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
			pos += i + 1
		} else {
			pos = len(data)
		}
		// "ffffffff81000000 T _text" or "ffffffffc0000000 t foo\t[mod]"
		sp1 := bytes.IndexByte(line, ' ')
		if sp1 < 0 || len(line) < sp1+4 {
			continue
		}
		addr, ok := parseHex(line[:sp1])
		if !ok {
			continue
		}
		typ := line[sp1+1]
		name := line[sp1+3:]
		if string(name) == refName {
			ref = addr
		}
		switch typ | 0x20 {
		case 't', 'w', 'd', 'b':
		default:
			continue
		}
		if len(name) > 0 && name[0] == '$' {
			continue
		}
		bind := elf.STB_LOCAL
		if typ == 'W' || typ == 'w' {
			bind = elf.STB_WEAK
		} else if typ >= 'A' && typ <= 'Z' {
			bind = elf.STB_GLOBAL
		}
		if bytes.IndexByte(name, '\t') >= 0 {
			continue // module symbols belong to module maps
		}
		syms = append(syms, symbol{start: addr, end: addr, name: uint32(start + sp1 + 3), nlen: uint32(len(name)), bind: uint8(bind)})
	}
	if ref != 0 && d.refReloc != 0 && ref != d.refReloc {
		delta := d.refReloc - ref
		for i := range syms {
			syms[i].start += delta
			syms[i].end += delta
		}
	}
	d.tab = symtab{syms: syms, names: data}
	fixup(&d.tab, true)
	return nil
}

func (s *symbolizer) loadModuleFromKallsyms(d *dso) {}

// readAll reads a file whole. Files of /proc say they are empty: they
// are read into a buffer that starts large (os.ReadFile grows one from
// 512 bytes, copying /proc/kallsyms's megabytes a dozen times).
func readAll(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := 8 << 20
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		n = int(st.Size()) + 1
	}
	buf := make([]byte, 0, n)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		k, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// parseHex parses a hexadecimal number as strconv.ParseUint(x, 16, 64)
// does, without its error value.
func parseHex(x []byte) (uint64, bool) {
	if len(x) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range x {
		d := hexDigit(c)
		if d < 0 || v>>60 != 0 {
			return 0, false // not hex, or past 64 bits
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

func runningKernelBuildID() []byte {
	data, err := os.ReadFile("/sys/kernel/notes")
	if err != nil {
		return nil
	}
	return noteBuildID(data)
}

// --- JIT maps and the vdso ----------------------------------------------

// loadPerfMap reads /tmp/perf-PID.map: "START SIZE name" in hex. Like
// perf, it reads the map at its real path, --symfs or not, and reads each
// line as dso__load_perf_map does: the numbers by strtoull (blanks before
// them, a sign and 0x allowed), one character skipped after each, the
// rest the name, up to a NUL; the line's last character is taken for its
// newline and dropped, whatever it is, and a line whose name would be
// under three characters is skipped.
func (s *symbolizer) loadPerfMap(d *dso) error {
	f, err := os.Open(d.name)
	if err != nil {
		return err
	}
	defer f.Close()
	var t symtab
	r := bufio.NewReader(f)
	var readErr error // the symbols read before it are kept, as perf keeps them
	for {
		line, err := r.ReadBytes('\n')
		if err != nil && err != io.EOF {
			readErr = err
			break
		}
		if len(line) == 0 {
			break // the end
		}
		line = line[:len(line)-1]
		n, start := strtoull16(line)
		if n++; n+2 >= len(line) {
			continue
		}
		m, size := strtoull16(line[n:])
		if n += m + 1; n+2 >= len(line) {
			continue
		}
		name := line[n:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		end := start
		if size != 0 {
			end = start + size
		}
		off, nlen := t.addName(string(name))
		t.syms = append(t.syms, symbol{start: start, end: end, name: off, nlen: nlen, bind: uint8(elf.STB_GLOBAL), typ: uint8(elf.STT_FUNC)})
	}
	// perf fixes up no JIT map: a zero size names its start alone, and
	// a range named twice keeps both names, for its tree to choose.
	number(&t)
	t.syms = sortSyms(t.syms)
	markCovered(t.syms)
	d.tab = t
	return readErr
}

// strtoull16 reads a number as C's strtoull(s, &end, 16) does: blanks
// first, a sign, 0x before a hex digit, as many hex digits as follow
// (past 64 bits the value is all ones; a minus negates it). It returns
// the bytes read, none when no digit follows, and the value.
func strtoull16(s []byte) (int, uint64) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i+2 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x' && hexDigit(s[i+2]) >= 0 {
		i += 2
	}
	digits := i
	var v uint64
	over := false
	for ; i < len(s) && hexDigit(s[i]) >= 0; i++ {
		if v>>60 != 0 {
			over = true
		}
		v = v<<4 | uint64(hexDigit(s[i]))
	}
	if i == digits {
		return 0, 0
	}
	if over {
		return i, ^uint64(0)
	}
	if neg {
		v = -v
	}
	return i, v
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return -1
}

// loadVDSO reads the vdso perf saved in its build-id cache. A recording
// with no build id for it (perf record --no-buildid; perf 6.1's -z
// records none) is read as perf script reads it: with the running
// kernel's vdso, as with /proc/kallsyms, unless --symfs says the
// recording is another machine's.
func (s *symbolizer) loadVDSO(d *dso) error {
	f, err := s.openVDSO(d)
	if err != nil {
		return err
	}
	defer f.Close()
	d.tab = s.elfSymbols(f, f, f.Section(".symtab") == nil)
	fixup(&d.tab, false)
	return nil
}

// openVDSO opens the vdso's image for loadVDSO.
func (s *symbolizer) openVDSO(d *dso) (*elf.File, error) {
	if len(d.buildID) == 0 {
		if s.opt.Symfs != "" {
			return nil, fmt.Errorf("no build id for the vdso")
		}
		image, err := runningVDSO()
		if err == nil {
			var f *elf.File
			if f, err = elf.NewFile(bytes.NewReader(image)); err == nil {
				return f, nil
			}
		}
		return nil, fmt.Errorf("no build id for the vdso, and the running one: %v", err)
	}
	if s.opt.BuildIDDir == "" {
		return nil, fmt.Errorf("no build-id cache to read the vdso from")
	}
	h := buildIDHex(d.buildID)
	for _, p := range []string{
		filepath.Join(s.buildIDLink(d.buildID), "elf"),
		filepath.Join(s.opt.BuildIDDir, "[vdso]", h, "vdso"),
		s.root(filepath.Join("/[vdso]", h, "vdso")),
	} {
		if f, err := elf.Open(p); err == nil {
			return f, nil
		}
	}
	return nil, fmt.Errorf("vdso %s not in the build-id cache", h)
}
