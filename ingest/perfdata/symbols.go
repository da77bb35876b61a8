package perfdata

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ianlancetaylor/demangle"
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
)

// dso is one binary (or kernel, or JIT map) whose symbols name
// addresses. Symbols are loaded on first use.
type dso struct {
	name    string // as perf script prints it
	kind    dsoKind
	buildID []byte
	pid     int32 // JIT maps: the process

	loaded bool
	syms   []symbol // sorted by start, ends fixed up
	// refReloc, refName: the kernel's reference symbol as recorded.
	refReloc uint64
	refName  string
}

type symbol struct {
	start, end uint64
	name       string
	bind       elf.SymBind
	typ        elf.SymType
}

// SymbolOptions say where symbols are read from, as perf's options do.
type SymbolOptions struct {
	Symfs    string // --symfs: a root directory for every file path
	Kallsyms string // --kallsyms: kernel symbols, instead of /proc/kallsyms
	// BuildIDDir is perf's build-id cache ($HOME/.debug by default).
	BuildIDDir string
	// Demangle: C++ and Rust names are demangled, as perf script does
	// by default.
	NoDemangle bool
}

type symbolizer struct {
	opt      SymbolOptions
	dsos     map[string]*dso
	kernel   *dso
	buildIDs map[string][]byte // path -> build id from the header
	warn     func(string)
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
	d := &dso{name: name, kind: dsoELF, buildID: buildID, pid: pid}
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
		s.kernel = &dso{name: "[kernel.kallsyms]", kind: dsoKernel, buildID: s.buildIDs["[kernel.kallsyms]"]}
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
	d := &dso{name: name, kind: dsoModule}
	s.dsos[name] = d
	return d
}

func (s *symbolizer) ksymDSO(name string, addr, length uint64) *dso {
	d := &dso{name: name, kind: dsoKsym, loaded: true,
		syms: []symbol{{start: addr, end: addr + length, name: name}}}
	return d
}

// lookup names addr (file-relative for ELF maps, absolute otherwise).
func (s *symbolizer) lookup(d *dso, addr uint64) (string, uint64, bool) {
	if !d.loaded {
		d.loaded = true
		s.load(d)
	}
	syms := d.syms
	i := sort.Search(len(syms), func(i int) bool { return syms[i].start > addr }) - 1
	for k := i; k >= 0 && k > i-8; k-- {
		sy := &syms[k]
		if addr >= sy.start && (addr < sy.end || addr == sy.start) {
			return sy.name, sy.start, true
		}
	}
	return "", 0, false
}

func (s *symbolizer) load(d *dso) {
	var err error
	switch d.kind {
	case dsoKernel:
		err = s.loadKallsyms(d)
	case dsoModule:
		s.loadModuleFromKallsyms(d)
	case dsoJIT:
		err = s.loadPerfMap(d)
	case dsoVDSO:
		err = s.loadVDSO(d)
	case dsoELF:
		err = s.loadELF(d)
	}
	if err != nil && s.warn != nil {
		s.warn(fmt.Sprintf("no symbols for %s: %v", d.name, err))
	}
}

// --- ELF -------------------------------------------------------------

func (s *symbolizer) root(path string) string {
	if s.opt.Symfs == "" {
		return path
	}
	return filepath.Join(s.opt.Symfs, path)
}

func buildIDHex(id []byte) string { return hex.EncodeToString(id) }

// candidates lists the files perf tries for a dso's symbols, in perf's
// order: the build-id cache, debug files, the binary itself.
func (s *symbolizer) candidates(d *dso) []string {
	var c []string
	if dl := s.debuglink(s.root(d.name)); dl != "" {
		c = append(c, dl)
	}
	if len(d.buildID) > 0 {
		h := buildIDHex(d.buildID)
		if s.opt.BuildIDDir != "" {
			link := filepath.Join(s.opt.BuildIDDir, ".build-id", h[:2], h[2:])
			c = append(c, filepath.Join(link, "elf"), filepath.Join(link, "debug"))
		}
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
		src := &elfSource{f: f, closer: f}
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
			syms := s.elfSymbols(mini.f, runtime.f, false)
			syms = append(syms, s.elfSymbols(runtime.f, runtime.f, true)...)
			d.syms = fixup(syms, false)
			d.syms = append(d.syms, pltSymbols(runtime.f, s)...)
			d.syms = sortSyms(d.syms)
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
	syms := s.elfSymbols(symsSrc.f, runtime.f, !symsSrc.symtab)
	if len(syms) > 0 {
		d.syms = fixup(syms, false)
		d.syms = sortSyms(append(d.syms, pltSymbols(runtime.f, s)...))
	}
	return nil
}

func sortSyms(s []symbol) []symbol {
	sort.SliceStable(s, func(i, j int) bool { return s[i].start < s[j].start })
	return s
}

// elfSymbols reads the function, object and label symbols of f (its
// .dynsym when dynsym, else .symtab), at file offsets as perf keeps them.
func (s *symbolizer) elfSymbols(f, runtime *elf.File, dynsym bool) []symbol {
	var list []elf.Symbol
	var err error
	if dynsym {
		list, err = f.DynamicSymbols()
	} else {
		list, err = f.Symbols()
	}
	if err != nil {
		return nil
	}
	var out []symbol
	for _, sy := range list {
		typ, bind := elf.ST_TYPE(sy.Info), elf.ST_BIND(sy.Info)
		vis := elf.ST_VISIBILITY(sy.Other)
		isFunc := (typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC) && sy.Name != "" && sy.Section != elf.SHN_UNDEF
		isObj := typ == elf.STT_OBJECT && sy.Name != "" && sy.Section != elf.SHN_UNDEF
		isLabel := typ == elf.STT_NOTYPE && sy.Name != "" && sy.Section != elf.SHN_UNDEF && sy.Section != elf.SHN_ABS &&
			vis != elf.STV_HIDDEN && vis != elf.STV_INTERNAL
		if !isLabel && !isFunc && !isObj {
			continue
		}
		if sy.Section == elf.SHN_ABS || int(sy.Section) >= len(f.Sections) {
			continue
		}
		sec := f.Sections[sy.Section]
		if sec.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		if sec.Type == elf.SHT_NOBITS && int(sy.Section) < len(runtime.Sections) {
			sec = runtime.Sections[sy.Section]
		}
		if isLabel && !strings.Contains(sec.Name, "text") && !strings.Contains(sec.Name, "data") {
			continue
		}
		v := sy.Value
		if ph := loadSegment(runtime, v); ph != nil {
			v -= ph.Vaddr - ph.Off
		} else {
			v -= sec.Addr - sec.Offset
		}
		name := sy.Name
		if !s.opt.NoDemangle {
			name = demangleName(name)
		}
		out = append(out, symbol{start: v, end: v + sy.Size, name: name, bind: bind, typ: typ})
	}
	return out
}

func loadSegment(f *elf.File, vaddr uint64) *elf.ProgHeader {
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		sz := max(p.Memsz, p.Filesz)
		if sz == 0 {
			continue
		}
		if vaddr >= p.Vaddr && vaddr < p.Vaddr+sz {
			return &p.ProgHeader
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

// fixup sorts syms, gives zero-sized symbols the room up to the next
// one and drops aliases at the same address but the best, as perf's
// symbols__fixup_end and symbols__fixup_duplicate do.
func fixup(syms []symbol, kallsyms bool) []symbol {
	syms = sortSyms(syms)
	for i := 0; i+1 < len(syms); i++ {
		prev, cur := &syms[i], &syms[i+1]
		if prev.end == prev.start {
			if kallsyms && strings.Contains(prev.name, "[") != strings.Contains(cur.name, "[") {
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
			if !better(&out[n-1], &sy) {
				out[n-1] = sy
			}
			continue
		}
		out = append(out, sy)
	}
	return out
}

func roundUp(x, to uint64) uint64 { return (x + to - 1) / to * to }

// better reports whether a is kept over b (perf's choose_best_symbol).
func better(a, b *symbol) bool {
	la, lb := a.end-a.start, b.end-b.start
	if lb == 0 && la > 0 {
		return true
	}
	if la == 0 && lb > 0 {
		return false
	}
	wa, wb := a.bind == elf.STB_WEAK, b.bind == elf.STB_WEAK
	if wb && !wa {
		return true
	}
	if wa && !wb {
		return false
	}
	ga, gb := a.bind == elf.STB_GLOBAL, b.bind == elf.STB_GLOBAL
	if ga && !gb {
		return true
	}
	if gb && !ga {
		return false
	}
	ua, ub := underscores(a.name), underscores(b.name)
	if ub > ua {
		return true
	}
	if ua > ub {
		return false
	}
	if len(a.name) > len(b.name) {
		return true
	}
	if len(a.name) < len(b.name) {
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

// demangleName demangles C++ and Rust names as perf script shows them:
// without parameter lists.
func demangleName(name string) string {
	if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_R") {
		return name
	}
	out, err := demangle.ToString(name, demangle.NoParams)
	if err != nil {
		return name
	}
	return out
}

// pltSymbols synthesizes "name@plt" symbols for the .plt entries of f,
// as perf does (x86-64 lazy and .plt.sec layouts).
func pltSymbols(f *elf.File, s *symbolizer) []symbol {
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
	syms, err := f.DynamicSymbols()
	if err != nil {
		return nil
	}
	data, err := rel.Data()
	if err != nil {
		return nil
	}
	out := []symbol{{start: plt.Offset, end: plt.Offset + entry, name: ".plt", bind: elf.STB_GLOBAL, typ: elf.STT_FUNC}}
	off := plt.Offset
	lazy := true
	if sec := f.Section(".plt.sec"); sec != nil {
		out[0].end = plt.Offset + plt.Size
		off = sec.Offset
		lazy = false
	}
	n := len(data) / 24
	if lazy {
		if uint64(n)*entry == plt.Size {
			out = out[:0]
		} else {
			off += entry
		}
	}
	type ent struct {
		off uint64
		sym uint32
	}
	ents := make([]ent, n)
	for i := 0; i < n; i++ {
		r := data[i*24:]
		ents[i] = ent{binary.LittleEndian.Uint64(r), uint32(binary.LittleEndian.Uint64(r[8:]) >> 32)}
	}
	// perf 6.1 pairs slots with relocations in .rela.plt order, unsorted
	// (later perfs sort by offset, which names IFUNC slots better).
	for _, e := range ents {
		name := ""
		if e.sym > 0 && int(e.sym) <= len(syms) {
			name = syms[e.sym-1].Name
			if !s.opt.NoDemangle {
				name = demangleName(name)
			}
		}
		name += "@plt" // perf 6.1 names an IFUNC slot with no symbol just "@plt"
		out = append(out, symbol{start: off, end: off + entry, name: name, bind: elf.STB_GLOBAL, typ: elf.STT_FUNC})
		off += entry
	}
	return out
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
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var syms []symbol
	var ref uint64
	refName := d.refName
	if refName == "" {
		refName = "_text"
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		// "ffffffff81000000 T _text" or "ffffffffc0000000 t foo\t[mod]"
		sp1 := strings.IndexByte(line, ' ')
		if sp1 < 0 || len(line) < sp1+4 {
			continue
		}
		addr, err := strconv.ParseUint(line[:sp1], 16, 64)
		if err != nil {
			continue
		}
		typ := line[sp1+1]
		name := line[sp1+3:]
		if name == refName {
			ref = addr
		}
		switch typ | 0x20 {
		case 't', 'w', 'd', 'b':
		default:
			continue
		}
		if strings.HasPrefix(name, "$") {
			continue
		}
		bind := elf.STB_LOCAL
		if typ == 'W' || typ == 'w' {
			bind = elf.STB_WEAK
		} else if typ >= 'A' && typ <= 'Z' {
			bind = elf.STB_GLOBAL
		}
		if i := strings.IndexByte(name, '\t'); i >= 0 {
			continue // module symbols belong to module maps
		}
		syms = append(syms, symbol{start: addr, end: addr, name: name, bind: bind})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if ref != 0 && d.refReloc != 0 && ref != d.refReloc {
		delta := d.refReloc - ref
		for i := range syms {
			syms[i].start += delta
			syms[i].end += delta
		}
	}
	d.syms = fixup(syms, true)
	return nil
}

func (s *symbolizer) loadModuleFromKallsyms(d *dso) {}

func runningKernelBuildID() []byte {
	data, err := os.ReadFile("/sys/kernel/notes")
	if err != nil {
		return nil
	}
	return noteBuildID(data)
}

// --- JIT maps and the vdso ----------------------------------------------

// loadPerfMap reads /tmp/perf-PID.map: "START SIZE name" in hex. Like
// perf, it reads the map at its real path, --symfs or not.
func (s *symbolizer) loadPerfMap(d *dso) error {
	f, err := os.Open(d.name)
	if err != nil {
		return err
	}
	defer f.Close()
	var syms []symbol
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		f1 := strings.IndexByte(line, ' ')
		if f1 < 0 {
			continue
		}
		f2 := strings.IndexByte(line[f1+1:], ' ')
		if f2 < 0 {
			continue
		}
		start, err1 := strconv.ParseUint(strings.TrimPrefix(line[:f1], "0x"), 16, 64)
		size, err2 := strconv.ParseUint(strings.TrimPrefix(line[f1+1:f1+1+f2], "0x"), 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		name := strings.TrimRight(line[f1+1+f2+1:], "\n")
		syms = append(syms, symbol{start: start, end: start + size, name: name, bind: elf.STB_GLOBAL, typ: elf.STT_FUNC})
	}
	d.syms = fixup(syms, false)
	return sc.Err()
}

// loadVDSO reads the vdso perf saved in its build-id cache.
func (s *symbolizer) loadVDSO(d *dso) error {
	if len(d.buildID) == 0 || s.opt.BuildIDDir == "" {
		return fmt.Errorf("no build id for the vdso")
	}
	h := buildIDHex(d.buildID)
	for _, p := range []string{
		filepath.Join(s.opt.BuildIDDir, ".build-id", h[:2], h[2:], "elf"),
		filepath.Join(s.opt.BuildIDDir, "[vdso]", h, "vdso"),
		s.root(filepath.Join("/[vdso]", h, "vdso")),
	} {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		defer f.Close()
		syms := s.elfSymbols(f, f, f.Section(".symtab") == nil)
		d.syms = fixup(syms, false)
		return nil
	}
	return fmt.Errorf("vdso %s not in the build-id cache", h)
}
