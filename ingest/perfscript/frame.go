package perfscript

import (
	"bytes"
	"strconv"
)

// kernelStart is where the x86-64 kernel address range begins; used to
// tell kernel frames when the layout has no module field.
const kernelStart = 0xffff800000000000

// splitFrame splits a frame line "ip sym+off (dso)" into its fields;
// any of them may be missing. mod is nil when the line has no module.
func (p *Parser) splitFrame(line []byte) (pc, sym, mod []byte, ok bool) {
	s := bytes.Trim(line, " \t\r")
	if len(s) == 0 {
		return nil, nil, nil, false
	}
	// The module is the last top-level parenthesised group, after a space.
	// Module paths may hold spaces and parentheses: ([JIT app cache]),
	// (/tmp/x (deleted)).
	if s[len(s)-1] == ')' {
		depth := 0
		for i := len(s) - 1; i >= 0; i-- {
			switch s[i] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				if i == 0 || s[i-1] == ' ' || s[i-1] == '\t' {
					mod = s[i+1 : len(s)-1]
					if mod == nil {
						mod = []byte{}
					}
					s = s[:i] // trailing spaces tell an empty symbol field
				}
				break
			}
		}
	}
	if len(s) > 0 && !p.noIP {
		first := s
		if i := bytes.IndexAny(s, " \t"); i >= 0 {
			first = s[:i]
		}
		if isHex(first) {
			pc = first
			rest := s[len(first):]
			s = bytes.TrimLeft(rest, " \t")
			if len(s) == 0 && mod != nil && len(rest) >= 2 {
				// "ip  (dso)": the symbol field was printed, empty. Both
				// stackcollapse-perf.pl and inferno name the frame " ".
				s = []byte{' '}
			}
		} else if len(bytes.TrimRight(s, " \t")) > len(first) || mod != nil {
			// A name in front of more fields: this layout has no ip.
			p.noIP = true
		}
	}
	if pc == nil || len(s) != 1 || s[0] != ' ' {
		s = bytes.Trim(s, " \t")
	}
	return pc, s, mod, true
}

func isHex(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// frameLine folds one frame line into the pending pieces. Frame lines
// repeat a great deal (the same function at the same address), so their
// folded form is cached by the line's text: the parse below runs once per
// distinct line. When batching, a frame is kept as its cache entry's
// index, and its text is copied out only once per distinct sample.
func (p *Parser) frameLine(name string, lineNo int, line []byte) error {
	key := trimSpace(line)
	return p.frameKey(name, lineNo, line, key, hashLine(p.java(), key))
}

// java reports whether frames are tidied as Java's: the cache keys them
// apart.
func (p *Parser) java() bool { return bytes.HasPrefix(p.pname, []byte("java")) }

// frameKey is frameLine with the line's key (the trimmed line) and its
// hash already computed.
func (p *Parser) frameKey(name string, lineNo int, line, key []byte, h uint64) error {
	p.noFrame = false
	p.commit()
	if p.skip || p.skipRest {
		return nil
	}
	if p.cache.limit == 0 {
		p.cache.limit = p.cacheLimit()
	}
	idx := p.cache.lookup(h, key)
	if idx == 0 {
		noIP := p.noIP
		skipAfter, err := p.parseFrame(name, lineNo, line)
		if err != nil {
			return err
		}
		if p.noIP != noIP {
			// The layout turned out to have no ip field: what the cache
			// holds was parsed under the other assumption.
			if err := p.resetCache(); err != nil {
				return err
			}
		}
		p.srcNext = 0
		p.skipRest = skipAfter
		if !p.cache.cacheable(key, p.pend, p.pendEnds, p.srcWant) {
			p.expandIDs()
		} else {
			if p.cacheFull(key, p.pend) {
				if err := p.resetCache(); err != nil {
					return err
				}
			}
			idx = p.cache.insert(h, key, p.pend, p.pendEnds, p.srcWant, skipAfter, p.srcDrop)
			if p.byID {
				p.addID(idx)
				p.pend, p.pendEnds = p.pend[:0], p.pendEnds[:0]
				return nil
			}
		}
		if p.srcWant == 0 || skipAfter {
			p.commit()
		}
		return nil
	}
	if p.byID {
		p.addID(idx)
		return nil
	}
	e := &p.cache.entries[idx-1]
	text := p.cache.text(e)
	if e.nends == 1 && e.srcWant == 0 && !e.skipAfter {
		// The common case: one frame, straight to the committed frames.
		p.frames = append(p.frames, text...)
		p.ends = append(p.ends, int32(len(p.frames)))
		return nil
	}
	p.pend = append(p.pend[:0], text...)
	p.pendEnds = append(p.pendEnds[:0], p.cache.pieceEnds(e)...)
	p.srcWant = int(e.srcWant)
	p.srcDrop = e.srcDrop
	p.srcNext = 0
	if p.srcWant == 0 || e.skipAfter {
		p.commit()
	}
	p.skipRest = e.skipAfter
	return nil
}

// addID commits the frames of cache entry idx-1 by reference.
func (p *Parser) addID(idx uint32) {
	e := &p.cache.entries[idx-1]
	p.ids = append(p.ids, idx-1)
	p.idText += int(e.tlen)
	if e.skipAfter {
		p.skipRest = true
	}
}

// expandIDs turns the frames committed by reference into text, for a
// sample that can no longer be batched (its entries are about to go, or
// one of its lines is not cached).
func (p *Parser) expandIDs() {
	if !p.byID {
		return
	}
	p.byID = false
	p.frames, p.ends = p.appendEntries(p.frames, p.ends, p.ids)
	p.ids = p.ids[:0]
}

// appendEntries appends the frames of the cache entries ids to frames
// and ends, as commit would have.
func (p *Parser) appendEntries(frames []byte, ends []int32, ids []uint32) ([]byte, []int32) {
	for _, id := range ids {
		e := &p.cache.entries[id]
		text, pe := p.cache.text(e), p.cache.pieceEnds(e)
		for i := len(pe) - 1; i >= 0; i-- {
			start := int32(0)
			if i > 0 {
				start = pe[i-1]
			}
			frames = append(frames, text[start:pe[i]]...)
			ends = append(ends, int32(len(frames)))
		}
	}
	return frames, ends
}

// resetCache empties the frame cache, first emitting the batched samples
// and expanding the sample in progress, which refer to its entries.
func (p *Parser) resetCache() error {
	p.expandIDs()
	if err := p.Flush(); err != nil {
		return err
	}
	p.cache.reset()
	p.blocks.reset()
	p.prefixes.reset()
	p.mods.reset()
	for i := range p.modMemo {
		p.modMemo[i].id = 0
	}
	p.guesses = [len(p.guesses)]guessSet{}
	return nil
}

// cacheSize is what the caches of folded lines hold together: the frame
// cache and the sample path's blocks, prefixes and modules.
func (p *Parser) cacheSize() int64 {
	return p.cache.size() + p.blocks.size() + p.prefixes.size() + p.mods.size()
}

// cacheFull is the frame cache's full, with the sample path's caches
// counted in.
func (p *Parser) cacheFull(key, text []byte) bool {
	n := len(key) + len(text)
	return p.cacheSize()+int64(n+64) > p.cache.limit || len(p.cache.arena)+n > 1<<31
}

// trimSpace trims spaces, tabs and a carriage return from both ends.
func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\r') {
		j--
	}
	return b[i:j]
}

// defaultFrameCache bounds the frame cache when Options.FrameCache is 0.
const defaultFrameCache = 32 << 20

func (p *Parser) cacheLimit() int64 {
	if p.opt.FrameCache > 0 {
		return p.opt.FrameCache
	}
	return defaultFrameCache
}

// parseFrame parses a frame line into the pending pieces and reports
// whether --skip-after matched it.
func (p *Parser) parseFrame(name string, lineNo int, line []byte) (skipAfter bool, err error) {
	pc, rawfunc, mod, ok := p.splitFrame(line)
	if !ok {
		return false, nil
	}
	if len(rawfunc) == 0 && len(pc) == 0 && mod == nil {
		return false, p.malformed(name, lineNo, line, "not a perf script frame line")
	}
	if p.opt.inl != nil {
		if res, ok := p.opt.inl.frame(pc, rawfunc, mod); ok {
			// The Perl takes the inlined functions as they are: no
			// tidying, no annotation.
			p.pend = append(p.pend, res...)
			p.pendEnds = append(p.pendEnds, int32(len(p.pend)))
			if p.opt.Srcline {
				// The Perl does not read this frame's source line
				// (it warns of it as a line it does not know).
				p.srcWant++
				p.srcDrop = true
			}
			return false, nil
		}
	}
	if len(rawfunc) == 0 {
		rawfunc = unknownSym
	}
	// Offsets: sym+0x1f.
	if i := bytes.LastIndex(rawfunc, []byte("+0x")); i > 0 && isHex(rawfunc[i+3:]) {
		rawfunc = rawfunc[:i]
	}
	return p.parseSym(pc, rawfunc, mod), nil
}

// parseSym is parseFrame from the symbol on: rawfunc is the symbol
// without its offset ([unknown] when the line had none).
func (p *Parser) parseSym(pc, rawfunc, mod []byte) (skipAfter bool) {
	if rawfunc[0] == '(' && !bytes.HasPrefix(rawfunc, []byte("(anonymous namespace)")) {
		return false // stackcollapse-perf.pl skips these "process name" frames
	}
	rawfunc = p.fixRust(rawfunc)

	kernel := false
	if p.opt.Kernel {
		if mod != nil {
			kernel = isKernelModule(mod)
		} else if v, err := strconv.ParseUint(string(pc), 16, 64); err == nil && len(pc) > 0 {
			kernel = v >= kernelStart
		}
	}
	jit := p.opt.JIT && mod != nil && isJITModule(mod)

	raw := rawfunc
	unknown := false
	for piece := 0; piece == 0 || len(rawfunc) > 0; piece++ {
		var fn []byte
		if i := bytes.Index(rawfunc, []byte("->")); i >= 0 {
			fn, rawfunc = rawfunc[:i], rawfunc[i+2:]
		} else {
			fn, rawfunc = rawfunc, nil
		}
		if bytes.Equal(fn, unknownSym) {
			fn, unknown = p.moduleFallback(pc, mod)
		}
		start := len(p.pend)
		p.pend = appendTidy(p.pend, fn)
		if len(p.pend) > start && p.pend[start] == 'L' && bytes.HasPrefix(p.pname, []byte("java")) && bytes.IndexByte(p.pend[start:], '/') >= 0 {
			p.pend = append(p.pend[:start], p.pend[start+1:]...)
		}
		f := p.pend[start:]
		switch {
		case piece > 0:
			if !bytes.Contains(f, []byte("_[i]")) {
				p.pend = append(p.pend, "_[i]"...)
			}
		case kernel:
			p.pend = append(p.pend, "_[k]"...)
		case jit:
			if !bytes.Contains(f, []byte("_[j]")) {
				p.pend = append(p.pend, "_[j]"...)
			}
		}
		p.pendEnds = append(p.pendEnds, int32(len(p.pend)))
		if p.opt.Srcline && !unknown {
			p.srcWant++
		}
	}
	for _, s := range p.opt.SkipAfter {
		if string(raw) == s {
			return true
		}
	}
	return false
}

var unknownSym = []byte("[unknown]")

// moduleFallback names an unknown symbol after its module: [libc.so.6],
// or [libc.so.6 <7f12ab>] with --addrs. unknown reports that neither
// symbol nor module is known.
func (p *Parser) moduleFallback(pc, mod []byte) (fn []byte, unknown bool) {
	if mod == nil || bytes.Equal(mod, unknownSym) {
		if !p.opt.Addrs || mod == nil {
			return unknownSym, true
		}
		mod, unknown = []byte("unknown"), true
	} else if i := bytes.LastIndexByte(mod, '/'); i >= 0 {
		mod = mod[i+1:]
	}
	b := append(p.fallback[:0], '[')
	b = append(b, mod...)
	if p.opt.Addrs {
		b = append(b, " <"...)
		b = append(b, pc...)
		b = append(b, '>')
	}
	b = append(b, ']')
	p.fallback = b
	return b, unknown
}

// srcline appends a perf script -F+srcline line to the pending piece it
// belongs to.
func (p *Parser) srcline(line []byte) {
	src := p.scratch[:0]
	for i := 0; i < len(line); i++ {
		if line[i] == '[' {
			if j := bytes.IndexByte(line[i:], ']'); j >= 0 {
				i += j
				continue
			}
		}
		src = append(src, line[i])
	}
	p.scratch = src
	src = bytes.Trim(src, " \t\r")
	if len(src) > 0 && !p.srcDrop {
		// Insert ":src" at the end of piece srcNext.
		end := int(p.pendEnds[p.srcNext])
		n := 1 + len(src)
		p.pend = append(p.pend, src...)
		p.pend = append(p.pend, ':')
		copy(p.pend[end+n:], p.pend[end:len(p.pend)-n])
		p.pend[end] = ':'
		copy(p.pend[end+1:], src)
		for i := p.srcNext; i < len(p.pendEnds); i++ {
			p.pendEnds[i] += int32(n)
		}
	}
	p.srcNext++
	p.srcWant--
	if p.srcWant == 0 {
		p.commit()
	}
}

// commit moves the pending pieces of a frame line to the committed frames.
// Frames are kept leaf first, so the pieces go in reverse: a->b reads
// "a;b" root first.
func (p *Parser) commit() {
	for i := len(p.pendEnds) - 1; i >= 0; i-- {
		start := int32(0)
		if i > 0 {
			start = p.pendEnds[i-1]
		}
		p.frames = append(p.frames, p.pend[start:p.pendEnds[i]]...)
		p.ends = append(p.ends, int32(len(p.frames)))
	}
	p.pend = p.pend[:0]
	p.pendEnds = p.pendEnds[:0]
	p.srcWant = 0
	p.srcDrop = false
}

// isKernelModule: [kernel.kallsyms], [nf_conntrack], *.ko, vmlinux-5.4.
func isKernelModule(mod []byte) bool {
	if bytes.Equal(mod, unknownSym) {
		return false
	}
	if len(mod) > 0 && mod[0] == '[' || bytes.HasSuffix(mod, []byte(".ko")) {
		return true
	}
	i := bytes.LastIndex(mod, []byte("vmlinux"))
	if i < 0 {
		return false
	}
	for _, c := range mod[i:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// isJITModule: perf map files (/tmp/perf-PID.map) and jitdump objects
// (/tmp/jitted-PID-N.so).
func isJITModule(mod []byte) bool {
	if i := bytes.Index(mod, []byte("/tmp/perf-")); i >= 0 {
		rest := mod[i+len("/tmp/perf-"):]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j > 0 && bytes.HasPrefix(rest[j:], []byte(".map")) {
			return true
		}
	}
	return bytes.Contains(mod, []byte("/jitted-")) && bytes.HasSuffix(mod, []byte(".so"))
}

// appendTidy appends a function name with ';' made ':' and its argument
// list cut at the first top-level '(' — one not inside <>, [] or {}, not
// Go's method receiver "pkg.(*T).M", and not "(anonymous namespace)".
func appendTidy(dst, fn []byte) []byte {
	cut := len(fn)
	if bytes.IndexByte(fn, '(') >= 0 {
		cut = tidyCut(fn)
	}
	start := len(dst)
	dst = append(dst, fn[:cut]...)
	for s := dst[start:]; ; {
		i := bytes.IndexByte(s, ';')
		if i < 0 {
			return dst
		}
		s[i] = ':'
		s = s[i+1:]
	}
}

// tidyCut returns where appendTidy cuts fn: at its first top-level '('.
func tidyCut(fn []byte) int {
	depth := 0
	lastDot := -1
	for i, c := range fn {
		switch c {
		case '<', '{', '[':
			depth++
		case '>', '}', ']', ')':
			depth--
		case '(':
			if depth == 0 && lastDot != i && !bytes.HasPrefix(fn[i:], []byte("(anonymous namespace)")) {
				return i
			}
			depth++
		case '.':
			lastDot = i + 1
		}
	}
	return len(fn)
}
