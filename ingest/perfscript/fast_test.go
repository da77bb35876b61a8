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
		"(anonymous namespace)", "[unknown]", "(/usr/lib/libc.so.6)", "([kernel.kallsyms])", "()", "\r", "x y", "+", "+0xg"}
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
	for _, opt := range []Options{{}, {Kernel: true}, {Addrs: true}} {
		p := New(opt, nil, nil)
		for _, l := range lines {
			k1, k2, ok := p.leafKey(l)
			r1, r2, rok := leafKeyRef(p, l)
			if ok != rok || string(k1) != string(r1) || string(k2) != string(r2) || (k2 == nil) != (r2 == nil) {
				t.Fatalf("%+v: leafKey(%q) = %q %q %v, want %q %q %v", opt, l, k1, k2, ok, r1, r2, rok)
			}
			if p.noIP {
				t.Fatalf("%q: noIP set", l)
			}
		}
	}
}
