package perfdata

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/frame"
	"github.com/go-delve/delve/pkg/dwarf/op"
)

// Unwinding a sample recorded with --call-graph dwarf: the sample holds
// the user registers and a copy of the user stack from the stack
// pointer up, and perf script (6.1, with libunwind 1.6) walks it by the
// call frame information of each binary, .eh_frame, found through
// .eh_frame_hdr (there is no .debug_frame fallback in Debian's build).
// pfold walks it the same way, quirks included, so that the frames are
// those perf script prints with --no-inline:
//
//   - the first frame is the sampled ip; each caller's is its return
//     address less one (perf names it there, inside the call), but the
//     frame a signal trampoline returns to (its CIE says S);
//   - the stack copy is read where it holds the word (not its last
//     word); elsewhere the file of the mapping there is read, and what
//     it cannot give reads 0 (perf's access_mem then reports success: a
//     return address beyond the copy is a frame of its own, printed as
//     ffffffffffffffff); no mapping there is an error;
//   - rules are looked up in the table of .eh_frame_hdr, placed by the
//     process's lowest mapping of the binary (perf keeps a parent's maps
//     in its child after exec, so a shell's lower libc leaves a child no
//     rules for its own); no mapping, no binary or no .eh_frame_hdr ends
//     the walk, while an address the table misses is walked by the
//     frame pointer where it looks like one (libunwind's fallback), or
//     as a PLT entry;
//   - rules are cached per process by the address looked up for, a
//     return address or not, 128 of them, emptied at exec (libunwind's
//     cache, which perf keeps per address space);
//   - the walk ends where the return address is undefined, where the
//     frame pointer's location is, where neither the address nor the CFA
//     changes, on an error, and at maxStack frames.
//
// perf script also adds the inlined functions of each frame from the
// binaries' DWARF (addr2line) unless --no-inline; pfold does not read
// DWARF line tables, so it folds as perf script --no-inline does.

// perf's x86-64 register numbers (perf_event_x86_regs) of the DWARF
// registers 0-16: rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15, and
// the return address column, rip.
var dwarfToPerfReg = [17]uint{0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8}

const (
	dwRBP = 6
	dwRSP = 7
	dwRIP = 16
)

// A location of a register's value in the frame being unwound, as
// libunwind keeps it: read only when the value is needed.
type locKind uint8

const (
	locNull locKind = iota // undefined
	locReg                 // the sampled register (v: a DWARF register)
	locMem                 // the memory at v
	locVal                 // v itself
)

type regLoc struct {
	kind locKind
	v    uint64
}

// unwinder keeps the call frame tables of the binaries of a replay,
// and libunwind's cache of rules of each process.
type unwinder struct {
	sym    *symbolizer
	tables map[*dso]*cfiTable
	ctx    map[ctxKey]*frame.FrameContext
	caches map[*maps]*rsCache
}

// maxCtx bounds the rules kept by address (each a few hundred bytes).
const maxCtx = 1 << 16

type ctxKey struct {
	t  *cfiTable
	pc uint64
}

func newUnwinder(sym *symbolizer) *unwinder {
	return &unwinder{sym: sym, tables: map[*dso]*cfiTable{}, ctx: map[ctxKey]*frame.FrameContext{}, caches: map[*maps]*rsCache{}}
}

// cfiTable is one binary's call frame information, and the binary, to
// read what the stack copy does not hold.
type cfiTable struct {
	f    *os.File // the binary, open for the replay; nil for the vdso
	r    io.ReaderAt
	size int64
	fdes frame.FrameDescriptionEntries // by start
	rel  []int32                       // each FDE's start from .eh_frame_hdr, as its table has it
	// hdrAddr is the link-time address of .eh_frame_hdr, 0 for none:
	// perf finds rules only through it. elfBase is the first loadable
	// segment's address, page-aligned.
	hdrAddr, elfBase uint64
	err              error
}

// table returns d's call frame table, loading it on first use: from the
// file perf reads a binary's data from (its build-id cache copy, else
// its path, under --symfs).
func (u *unwinder) table(d *dso) *cfiTable {
	if t, ok := u.tables[d]; ok {
		return t
	}
	t := &cfiTable{}
	u.tables[d] = t
	var f *os.File
	var err error
	switch d.kind {
	case dsoELF:
		f, err = u.openData(d)
	case dsoVDSO:
		var ef *elf.File
		if ef, err = u.sym.openVDSO(d); err == nil {
			t.load(ef)
			return t
		}
	default:
		err = fmt.Errorf("%s: no binary", d.name)
	}
	if err != nil {
		t.err = err
		return t
	}
	// The file stays open for the replay, as perf keeps it.
	t.f = f
	fi, err := f.Stat()
	if err != nil {
		t.err = err
		return t
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		t.err = err
		return t
	}
	t.r, t.size = f, fi.Size()
	t.load(ef)
	return t
}

// close closes the binaries the unwinder read.
func (u *unwinder) close() {
	for _, t := range u.tables {
		if t.f != nil {
			t.f.Close()
		}
	}
}

// openData opens the file perf reads d's data from: its copy in the
// build-id cache, else d's path (under --symfs).
func (u *unwinder) openData(d *dso) (*os.File, error) {
	if link := u.sym.buildIDLink(d.buildID); link != "" {
		if f, err := os.Open(filepath.Join(link, "elf")); err == nil {
			return f, nil
		}
	}
	return os.Open(u.sym.root(d.name))
}

// load reads f's .eh_frame, and what perf reads of its headers.
func (t *cfiTable) load(f *elf.File) {
	first := true
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			if t.r == nil && p.Off == 0 {
				// The vdso, read from memory: its segment is its file.
				t.r, t.size = p.Open().(io.ReaderAt), int64(p.Filesz)
			}
			if first {
				t.elfBase, first = p.Vaddr&^0xfff, false
			}
		}
	}
	hdr := f.Section(".eh_frame_hdr")
	sec := f.Section(".eh_frame")
	if hdr == nil || hdr.Offset == 0 || sec == nil || sec.Type == elf.SHT_NOBITS {
		return
	}
	t.hdrAddr = hdr.Addr
	data, err := sec.Data()
	if err != nil {
		t.err = err
		return
	}
	defer func() {
		// delve's parser panics on some malformed input.
		if r := recover(); r != nil {
			t.fdes, t.err = nil, fmt.Errorf("malformed .eh_frame: %v", r)
		}
	}()
	fdes, err := frame.Parse(data, binary.LittleEndian, 0, 8, sec.Addr)
	if err != nil {
		t.err = err
		return
	}
	// The search table of .eh_frame_hdr: each FDE by its start, as an
	// int32 from the header, in that order.
	t.fdes = fdes
	for _, fde := range fdes {
		t.rel = append(t.rel, int32(fde.Begin()-t.hdrAddr))
	}
	sort.Stable(byRel{t})
}

type byRel struct{ t *cfiTable }

func (b byRel) Len() int           { return len(b.t.rel) }
func (b byRel) Less(i, j int) bool { return b.t.rel[i] < b.t.rel[j] }
func (b byRel) Swap(i, j int) {
	b.t.rel[i], b.t.rel[j] = b.t.rel[j], b.t.rel[i]
	b.t.fdes[i], b.t.fdes[j] = b.t.fdes[j], b.t.fdes[i]
}

// fde returns the FDE libunwind's search of the table finds for ip, the
// table placed at segbase: the last that starts at or before it (by
// int32 offsets), if it covers ip.
func (t *cfiTable) fde(ip, base uint64) *frame.FrameDescriptionEntry {
	rel := int32(ip - base - t.hdrAddr)
	i := sort.Search(len(t.rel), func(i int) bool { return t.rel[i] > rel })
	if i == 0 {
		return nil
	}
	fde := t.fdes[i-1]
	if ip-base-fde.Begin() >= fde.End()-fde.Begin() {
		return nil
	}
	return fde
}

// rsCache is libunwind's cache of rules, one per process (perf's
// address space of its maps): by the address the rules were looked up
// for, whether it was a return address or not, 128 of them replaced in
// turn, emptied at exec.
type rsCache struct {
	ip     [rsCacheSize]uint64
	fc     [rsCacheSize]*frame.FrameContext
	base   [rsCacheSize]uint64
	signal [rsCacheSize]bool
	n      int
	at     map[uint64]int
}

const rsCacheSize = 128

func (c *rsCache) lookup(ip uint64) (int, bool) {
	i, ok := c.at[ip]
	return i, ok
}

func (c *rsCache) add(ip, base uint64, fc *frame.FrameContext, signal bool) {
	i := c.n % rsCacheSize
	if c.n >= rsCacheSize {
		delete(c.at, c.ip[i])
	}
	c.ip[i], c.base[i], c.fc[i], c.signal[i] = ip, base, fc, signal
	c.at[ip] = i
	c.n++
}

// exec empties the cache of the process whose maps are ms: perf flushes
// libunwind's at exec.
func (u *unwinder) exec(ms *maps) { delete(u.caches, ms) }

// cursor is libunwind's cursor over one sample's frames.
type cursor struct {
	u       *unwinder
	t       *thread
	s       *Sample
	sp      uint64 // the sampled stack pointer: where the copy starts
	ip, cfa uint64
	loc     [17]regLoc
	usePrev bool // look the rules up at ip-1 (a return address)
	// signal: the last step was from a signal trampoline (its CIE says
	// S): the frame it returns to was interrupted, not calling, so its
	// address is its own, not a return address.
	signal bool
}

// What libunwind's steps return.
type stepResult int8

const (
	stepError  stepResult = -1 // ends the walk
	stepNoInfo stepResult = -2 // no rule for the address
	stepEnd    stepResult = 0  // no caller
	stepFrame  stepResult = 1  // a caller's frame
)

// unwind appends to ips the user frames of dwarf-mode sample s of thread
// t, leaf first, at most max of them.
func (u *unwinder) unwind(s *Sample, t *thread, ips []uint64, max int) []uint64 {
	c := cursor{u: u, t: t, s: s}
	ip, ok := c.reg(dwRIP)
	if !ok {
		return ips
	}
	if ip != 0 { // perf skips a zero address
		ips = append(ips, ip)
	}
	if max <= 1 {
		return ips
	}
	sp, ok := c.reg(dwRSP)
	if !ok {
		return ips
	}
	c.sp, c.ip, c.cfa = sp, ip, sp
	for i := range c.loc {
		c.loc[i] = regLoc{locReg, uint64(i)}
	}
	for n := 1; n < max && c.step() == stepFrame; n++ {
		// Each caller's address less one: within the call.
		ip := c.ip - 1
		if c.signal {
			ip = c.ip
		}
		if ip != 0 {
			ips = append(ips, ip)
		}
	}
	return ips
}

// reg returns sampled DWARF register r.
func (c *cursor) reg(r int) (uint64, bool) {
	pr := dwarfToPerfReg[r]
	mask := c.s.Attr.RegsUser
	if mask&(1<<pr) == 0 || c.s.UserRegs == nil {
		return 0, false
	}
	i := bits.OnesCount64(mask & (1<<pr - 1))
	if 8*i+8 > len(c.s.UserRegs) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(c.s.UserRegs[8*i:]), true
}

// null reports whether l is libunwind's null location (a memory
// location at address 0 is one).
func (l regLoc) null() bool { return l.kind == locNull || l.kind == locMem && l.v == 0 }

// get reads the value at location l.
func (c *cursor) get(l regLoc) (uint64, bool) {
	switch {
	case l.null():
		return 0, false
	case l.kind == locReg:
		if l.v == dwRSP {
			return c.cfa, true
		}
		return c.reg(int(l.v))
	case l.kind == locMem:
		return c.read(l.v)
	}
	return l.v, true
}

// value returns DWARF register r in the current frame: rsp is the CFA,
// as libunwind has it on x86-64.
func (c *cursor) value(r int) (uint64, bool) {
	if r == dwRSP {
		return c.cfa, true
	}
	return c.get(c.loc[r])
}

// read reads the word at addr as perf's access_mem does: from the stack
// copy if it lies within it (not its last word), else from the file of
// the mapping there. No mapping there is an error; a mapping whose file
// cannot give the word reads 0 (perf's access_mem then reports success:
// a return address beyond the copy is 0, a frame of its own).
func (c *cursor) read(addr uint64) (uint64, bool) {
	if addr+8 < addr {
		return 0, false
	}
	end := c.sp + uint64(len(c.s.UserStack))
	if addr >= c.sp && addr+8 < end {
		return binary.LittleEndian.Uint64(c.s.UserStack[addr-c.sp:]), true
	}
	mp := c.t.maps.find(addr)
	if mp == nil || mp.dso == nil {
		return 0, false
	}
	if mp.identity {
		return 0, true
	}
	t := c.u.table(mp.dso)
	off := addr - mp.start + mp.pgoff
	var b [8]byte
	if t.r == nil || off >= uint64(t.size) || uint64(t.size)-off < 8 {
		return 0, true
	}
	if _, err := t.r.ReadAt(b[:], int64(off)); err != nil {
		return 0, true
	}
	return binary.LittleEndian.Uint64(b[:]), true
}

// step moves the cursor to the caller's frame as libunwind's unw_step
// does on x86-64.
func (c *cursor) step() stepResult {
	prevIP, prevCFA := c.ip, c.cfa
	c.signal = false
	ret := c.dwarfStep()
	if ret == stepError {
		return ret
	}
	if ret != stepNoInfo {
		if c.loc[dwRBP].null() {
			c.ip = 0
			return stepEnd // the ABI's end of the chain
		}
		return ret
	}
	// No rule for the address.
	switch {
	case c.pltEntry():
		c.loc[dwRIP] = regLoc{locMem, c.cfa}
		c.cfa += 8
	case c.loc[dwRBP].null():
		c.loc = [17]regLoc{}
	default:
		// The frame pointer, if it looks like one.
		rbp, ok := c.get(c.loc[dwRBP])
		if !ok {
			return stepError
		}
		var rbpLoc, ripLoc regLoc
		if rbp != 0 {
			rbpLoc, ripLoc = regLoc{locMem, rbp}, regLoc{locMem, rbp + 8}
			if _, ok := c.get(rbpLoc); !ok || rbp < c.cfa || rbp-c.cfa > 0x4000 {
				rbpLoc, ripLoc = regLoc{}, regLoc{}
			}
			c.cfa += 16
		}
		c.loc = [17]regLoc{}
		c.loc[dwRBP], c.loc[dwRIP] = rbpLoc, ripLoc
		c.usePrev = true
	}
	if c.loc[dwRBP].null() {
		return stepEnd
	}
	ret = stepNoInfo
	if c.loc[dwRIP].null() {
		c.ip = 0
	} else {
		ip, ok := c.get(c.loc[dwRIP])
		if !ok {
			return stepError
		}
		c.ip, ret = ip, stepFrame
	}
	if c.ip == prevIP && c.cfa == prevCFA {
		return stepError
	}
	return ret
}

// pltEntry reports whether the code at ip is a PLT entry, jmp *x(%rip);
// push $n; jmp: libunwind's test where it finds no rule.
func (c *cursor) pltEntry() bool {
	w0, ok0 := c.read(c.ip)
	w1, ok1 := c.read(c.ip + 8)
	return ok0 && ok1 && w0&0xffff == 0x25ff && (w0>>48)&0xff == 0x68 && (w1>>24)&0xff == 0xe9
}

// dwarfStep applies the rules of the current frame's address: libunwind's
// dwarf_step, with perf's search for them.
func (c *cursor) dwarfStep() stepResult {
	cache := c.u.caches[c.t.maps]
	if cache == nil {
		cache = &rsCache{at: map[uint64]int{}}
		c.u.caches[c.t.maps] = cache
	}
	var fc *frame.FrameContext
	var base uint64
	var signal bool
	if i, ok := cache.lookup(c.ip); ok {
		fc, base, signal = cache.fc[i], cache.base[i], cache.signal[i]
	} else {
		pc := c.ip
		if c.usePrev {
			pc--
		}
		mp := c.t.maps.find(pc)
		if mp == nil || mp.dso == nil {
			return stepError
		}
		t := c.u.table(mp.dso)
		if t.hdrAddr == 0 || t.err != nil {
			return stepError // no .eh_frame_hdr: perf's search fails
		}
		// perf places the table by the process's lowest mapping of the
		// binary, wherever that comes from (a parent's, left over after
		// an exec, is lower at times: then nothing is found).
		base = ^uint64(0)
		for _, m := range c.t.maps.m {
			if m.dso == mp.dso && m.start < base {
				base = m.start - m.pgoff
			}
		}
		base -= t.elfBase
		fde := t.fde(pc, base)
		if fde == nil {
			return stepNoInfo
		}
		if fc = c.u.frameContext(t, fde, pc-base); fc == nil {
			return stepError // malformed, or rules of more than 17 registers
		}
		signal = strings.ContainsRune(fde.CIE.Augmentation, 'S')
		cache.add(c.ip, base, fc, signal)
	}
	// The CFA.
	var cfa uint64
	switch fc.CFA.Rule {
	case frame.RuleCFA:
		if fc.CFA.Reg > dwRIP {
			return stepError
		}
		v, ok := c.value(int(fc.CFA.Reg))
		if !ok {
			return stepError
		}
		cfa = v + uint64(fc.CFA.Offset)
	case frame.RuleExpression:
		v, ok := c.eval(fc.CFA.Expression, base)
		if !ok {
			return stepError
		}
		cfa = v
	default:
		return stepError
	}

	// Where each register of the caller is: libunwind fills them in
	// order, a register's rule reading those before it as updated.
	next := c.loc
	for r := range next {
		rule, ok := fc.Regs[uint64(r)]
		if !ok {
			continue
		}
		switch rule.Rule {
		case frame.RuleUndefined:
			next[r] = regLoc{}
		case frame.RuleSameVal:
		case frame.RuleOffset:
			next[r] = regLoc{locMem, cfa + uint64(rule.Offset)}
		case frame.RuleValOffset:
			next[r] = regLoc{locVal, cfa + uint64(rule.Offset)}
		case frame.RuleRegister:
			if rule.Reg > dwRIP {
				return stepError
			}
			next[r] = next[rule.Reg]
		case frame.RuleExpression, frame.RuleValExpression:
			v, ok := c.eval(rule.Expression, base)
			if !ok {
				return stepError
			}
			kind := locMem
			if rule.Rule == frame.RuleValExpression {
				kind = locVal
			}
			next[r] = regLoc{kind, v}
		default:
			return stepError
		}
	}
	prevIP, prevCFA := c.ip, c.cfa
	c.loc, c.cfa = next, cfa
	ra := fc.RetAddrReg
	if ra > dwRIP {
		return stepError
	}
	ret := stepFrame
	if c.loc[ra].null() {
		c.ip, ret = 0, stepEnd // the return address is undefined
	} else {
		ip, ok := c.get(c.loc[ra])
		if !ok {
			return stepError
		}
		c.ip = ip
	}
	if c.ip == prevIP && c.cfa == prevCFA {
		return stepError
	}
	c.usePrev, c.signal = !signal, signal
	return ret
}

// frameContext returns the rules of fde at link address pc, cached.
func (u *unwinder) frameContext(t *cfiTable, fde *frame.FrameDescriptionEntry, pc uint64) (fc *frame.FrameContext) {
	k := ctxKey{t, pc}
	if fc, ok := u.ctx[k]; ok {
		return fc
	}
	if len(u.ctx) >= maxCtx {
		clear(u.ctx) // a bound on the memory of a long recording's rules
	}
	defer func() {
		if r := recover(); r != nil {
			fc = nil // a malformed program: delve's interpreter panics
		}
		u.ctx[k] = fc
	}()
	fc, err := fde.EstablishFrame(pc)
	if err != nil {
		return nil
	}
	for r := range fc.Regs {
		if r > dwRIP {
			return nil // libunwind keeps rules of 17 registers: an error
		}
	}
	return fc
}

// eval evaluates a DWARF expression of the current frame's registers
// (rsp is the CFA, rip the frame's address, as in libunwind).
func (c *cursor) eval(expr []byte, base uint64) (uint64, bool) {
	regs := make([]*op.DwarfRegister, dwRIP+1)
	for r := range regs {
		if v, ok := c.value(r); ok {
			regs[r] = &op.DwarfRegister{Uint64Val: v}
		}
	}
	regs[dwRIP] = &op.DwarfRegister{Uint64Val: c.ip}
	dr := op.NewDwarfRegisters(base, regs, binary.LittleEndian, dwRIP, dwRSP, dwRBP, 0)
	v, _, err := op.ExecuteStackProgram(*dr, expr, 8, func(b []byte, addr uint64) (int, error) {
		w, ok := c.read(addr)
		if !ok || len(b) > 8 {
			return 0, fmt.Errorf("unreadable")
		}
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], w)
		return copy(b, buf[:]), nil
	})
	if err != nil {
		return 0, false
	}
	return uint64(v), true
}
