package perfscript

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// leafKeyRef is leafKey as splitFrame and parseFrame define it.
func leafKeyRef(p *Parser, line []byte) (k1, k2 []byte, ok bool) {
	t := trimSpace(line)
	if !addressed(t) {
		return nil, nil, false
	}
	_, sym, mod, _ := p.splitFrame(line)
	if p.opt.Addrs || p.opt.Kernel && mod == nil {
		return t, nil, true
	}
	k1 = sym
	if i := bytes.LastIndex(sym, []byte("+0x")); i > 0 && isHex(sym[i+3:]) {
		k1 = sym[:i]
	}
	if mod != nil {
		k2 = t[len(t)-len(mod)-2:]
	}
	return k1, k2, true
}

// TestLeafKey: leafKey's one pass keys a leaf line as splitFrame and
// parseFrame read it, on lines made of the pieces that matter.
func TestLeafKey(t *testing.T) {
	pieces := []string{" ", "\t", "  ", "ffff", "7f0a", "g1", "+0x", "+0x1f", "+0x", "0x", "main", "a->b", "(", ")",
		"(anonymous namespace)", "[unknown]", "(/usr/lib/libc.so.6)", "([kernel.kallsyms])", "()", "\r", "x y", "+", "+0xg",
		"(/tmp/perf-12.map)", "Lcom/x/Y;", "_ZN3foo3bar17h0123456789abcdefE", ";", "<", ">", "main"}
	rng := rand.New(rand.NewPCG(1, 2))
	lines := [][]byte{
		[]byte("\t7f12 main+0x1f (/bin/app)"),
		[]byte("\t7f12  (/bin/app)"),
		[]byte("\t7f12 (/bin/app)"),
		[]byte("\t7f12 +0x1f (/bin/app)"),
		[]byte("\t7f12 a+0x1f+0x2 (/bin/app) "),
		[]byte("\t7f12 f(int) (x (deleted))"),
		[]byte("\t7f12 f(int)(x)"),
		[]byte("\t7f12 \t"),
	}
	for range 200000 {
		var b []byte
		b = append(b, "\t"[:rng.IntN(2)]...)
		b = append(b, pieces[3+rng.IntN(3)]...)
		for range rng.IntN(7) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		lines = append(lines, b)
	}
	for _, opt := range []Options{{}, {Kernel: true}, {Addrs: true}, {JIT: true, SkipAfter: []string{"main"}}} {
		p := New(opt, nil, nil)
		for _, l := range lines {
			k1, k2, ok := p.leafKey(l)
			r1, r2, rok := leafKeyRef(p, l)
			if ok != rok || string(k1) != string(r1) || string(k2) != string(r2) || (k2 == nil) != (r2 == nil) {
				t.Fatalf("%+v: leafKey(%q) = %q %q %v, want %q %q %v", opt, l, k1, k2, ok, r1, r2, rok)
			}
			if !ok {
				continue
			}
			// parseLeaf folds the fields leafKey kept as parseFrame folds
			// the line.
			text, flags := p.parseLeaf()
			text = bytes.Clone(text)
			var f uint8
			p.bframes, p.bends = p.bframes[:0], p.bends[:0]
			skip := p.parsePieces(l, &f)
			var want []byte
			for i, end := range p.bends {
				start := int32(0)
				if i > 0 {
					start = p.bends[i-1]
				}
				if len(want) > 0 {
					want = append(want, ';')
				}
				want = append(want, p.bframes[start:end]...)
			}
			if string(text) != string(want) || (flags&skipsAfter != 0) != skip || (flags&unfit != 0) != (f&unfit != 0) {
				t.Fatalf("%+v: parseLeaf after leafKey(%q) = %q %b, parseFrame %q %v %b", opt, l, text, flags, want, skip, f)
			}
			if p.noIP {
				t.Fatalf("%q: noIP set", l)
			}
		}
	}
}

// TestIsTime: isTime's one pass is bytes.Cut at the first '.' and
// isDigits on both sides.
func TestIsTime(t *testing.T) {
	ref := func(b []byte) bool {
		if len(b) < 3 || b[len(b)-1] != ':' {
			return false
		}
		s, f, ok := bytes.Cut(b[:len(b)-1], []byte{'.'})
		return ok && isDigits(s) && isDigits(f)
	}
	alphabet := []byte("0.9:x")
	for n := range 8 {
		b := make([]byte, n)
		var gen func(i int)
		gen = func(i int) {
			if i == n {
				if isTime(b) != ref(b) {
					t.Fatalf("isTime(%q) = %v", b, isTime(b))
				}
				return
			}
			for _, c := range alphabet {
				b[i] = c
				gen(i + 1)
			}
		}
		gen(0)
	}
}
