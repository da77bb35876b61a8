package perfscript

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/stream"
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
		// The same module as the line before, after other groups.
		[]byte("\t7f12 a (m)"),
		[]byte("\t7f12 b (x (m)"),
		[]byte("\t7f12 c\t(m)"),
		[]byte("\t7f12 (m)"),
		[]byte("\t7f12 d(m)"),
		[]byte("\t7f12 e ((m)"),
		[]byte("\t7f12 f (m))"),
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

// TestChunkLinesNumbered: FoldChunks numbers lines itself (the Chunker
// does not count them): its messages name the lines the serial fold
// names, across many small chunks, several inputs and workers, for
// malformed headers and stray lines inside samples alike.
func TestChunkLinesNumbered(t *testing.T) {
	var in strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&in, "app 1 1.%06d: 1 cpu-clock:\n\t%x leaf_%d+0x%x (/bin/app)\n", i, 0x1000+i, i%7, i)
		if i%97 == 0 {
			in.WriteString("STRAY LINE " + strconv.Itoa(i) + "\n")
		}
		in.WriteString("\t400000 main (/bin/app)\n\n")
		if i%131 == 0 {
			in.WriteString("NOT A HEADER " + strconv.Itoa(i) + "\n\t1 f (m)\n\n")
		}
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte(in.String()), 0o644)
	os.WriteFile(b, []byte("x 1 1.0: 1 cpu-clock:\n\t1 f (m)\n\n"+in.String()), 0o644)
	messages := func(out string) []string {
		var m []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "warning:") && !strings.Contains(l, "more malformed") {
				m = append(m, l)
			}
		}
		sort.Strings(m)
		return m
	}
	var serial strings.Builder
	diag := stream.NewDiag(&serial, false)
	diag.Verbatim = 1 << 20
	if err := Fold(stream.NewReader([]string{a, b}), New(Options{}, func([]byte, fold.Count) error { return nil }, diag)); err != nil {
		t.Fatal(err)
	}
	want := messages(serial.String())
	if len(want) < 50 {
		t.Fatalf("only %d messages", len(want))
	}
	for _, jobs := range []int{1, 3} {
		var par strings.Builder
		diag := stream.NewDiag(&par, false)
		diag.Verbatim = 1 << 20
		aggs := make([]*stream.Aggregator, jobs)
		for i := range aggs {
			aggs[i] = stream.NewAggregator(stream.Options{TmpDir: dir})
			defer aggs[i].Close()
		}
		ch := stream.NewChunker([]string{a, b}, nil, 4<<10, 2*jobs+2)
		if _, err := FoldChunks(ch, Options{Batch: 1 << 20}, diag, aggs); err != nil {
			t.Fatal(err)
		}
		ch.Close()
		if got := messages(par.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("-j %d: messages differ from the serial fold's:\n%s", jobs, stacktest.FirstDiff(strings.Join(got, "\n"), strings.Join(want, "\n")))
		}
	}
}
