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

// TestQuickHeader: quickHeader's one pass reads a header as tokenHeader
// does, or leaves it to tokenHeader having changed nothing, on lines
// made of the fields a header has, in and out of order, with every
// option that changes how a header is read.
func TestQuickHeader(t *testing.T) {
	fields := [][]string{
		{"app", "Web Content", "a\tb", "a process name long enough for the line to pass 64 bytes", "PERF_RECORD_COMM", "java", "x\ry", "12", "[001]", "1.5:"}, // names
		{"123", "12/34", "-1", "1/-1", "x/1", "1/", "/1", "1.0", "--1"},                                                                                       // pid/tid
		{"[001]", "[]", "[x]", "[12", "[1]x"},                                                        // cpu
		{"66604.000888:", "1.0:", "1:", ".5:", "1.:", "1.2.3:", "1.0"},                               // time
		{"1001001", "0", "99999999999999999999999", "1.5", "00", "18446744073709551616", "1e3"},      // period
		{"cpu-clock:", "cycles:u:", ":", "PERF_RECORD_MMAP:", "x:", "cycles", "cpu-clock:u:"},        // event
		{"ffff main (/bin/x)", "a=1 b=2", "7f0a", "(m)", "ffff f(int) (m)", "PERF_RECORD_X", "1.0:"}, // after
	}
	seps := []string{" ", "\t", "  ", " \t"}
	rng := rand.New(rand.NewPCG(3, 4))
	var lines []string
	for range 30000 {
		var b strings.Builder
		for f, choices := range fields {
			// Each field mostly present and in place (what follows the
			// event mostly not); sometimes left out, sometimes another
			// field's value.
			switch r := rng.IntN(10); {
			case f > 0 && r < 3, f == len(fields)-1 && r < 8:
				continue
			case r == 3:
				choices = fields[rng.IntN(len(fields))]
			}
			if b.Len() > 0 || rng.IntN(20) == 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			b.WriteString(choices[rng.IntN(len(choices))])
		}
		b.WriteString([]string{"", " ", "\r", " \t"}[rng.IntN(4)])
		lines = append(lines, b.String())
	}
	opts := []Options{{}, {PID: true}, {TID: true}, {Samples: true}, {EventFilter: "cycles"}, {EventFilter: "cpu-clock"}}
	for _, opt := range opts {
		type run struct {
			p    *Parser
			out  strings.Builder
			warn strings.Builder
		}
		var a, b run
		for _, r := range []*run{&a, &b} {
			o := opt
			o.Warn = &r.warn
			r.p = New(o, func(s []byte, c fold.Count) error {
				fmt.Fprintf(&r.out, "%s %v\n", s, c)
				return nil
			}, stream.NewDiag(&r.out, false))
		}
		state := func(p *Parser) string {
			return fmt.Sprintf("in=%v skip=%v named=%v noFrame=%v pname=%q weight=%v stats=%+v events=%q %v last=%d %v",
				p.inSample, p.skip, p.hasName, p.noFrame, p.pname, p.weight, p.stats, p.events, p.eventCounts, p.lastEvent, p.lastKept)
		}
		quick := 0
		for _, l := range lines {
			line := bytes.TrimRight([]byte(l), " \t\r")
			a.p.End()
			b.p.End()
			before := state(a.p)
			if a.p.quickHeader(line) {
				quick++
			} else {
				if state(a.p) != before {
					t.Fatalf("%+v: quickHeader(%q) declined but changed the parser:\n%s\n%s", opt, l, before, state(a.p))
				}
				a.p.tokenHeader("", 1, line, false)
			}
			b.p.tokenHeader("", 1, line, false)
			if sa, sb := state(a.p), state(b.p); sa != sb {
				t.Fatalf("%+v: header %q:\nquick %s\ntoken %s", opt, l, sa, sb)
			}
		}
		a.p.End()
		b.p.End()
		if a.out.String() != b.out.String() || a.warn.String() != b.warn.String() {
			t.Fatalf("%+v: outputs differ:\n%s", opt, stacktest.FirstDiff(a.out.String()+a.warn.String(), b.out.String()+b.warn.String()))
		}
		if quick < len(lines)/20 {
			t.Fatalf("%+v: quickHeader read %d lines of %d", opt, quick, len(lines))
		}
	}
}

// TestByteMasks: the masks quickHeader reads a line by, made eight bytes
// at a time, are those of a loop over the bytes, on lines of every
// length up to 64 of bytes around the ones they find, whether the
// line's array goes on past its end (with bytes of every kind) or not.
func TestByteMasks(t *testing.T) {
	alphabet := []byte{' ', '\t', '0', '9', '/', ':', '\n', '\r', 0, 0x7f, 0x80, 0xa0, 0xb0, 0xb9, 0x89, 0xff, 'a', '.', '[', '\x1f', '\x21'}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		n := rng.IntN(65)
		line := make([]byte, n+rng.IntN(2)*rng.IntN(9))
		for i := range line {
			line[i] = alphabet[rng.IntN(len(alphabet))]
		}
		line = line[:n]
		var sep, digit uint64
		for i := range 64 {
			switch {
			case i >= len(line) || line[i] == ' ' || line[i] == '\t':
				sep |= 1 << i
			case line[i] >= '0' && line[i] <= '9':
				digit |= 1 << i
			}
		}
		if s, d := byteMasks(line); s != sep || d != digit {
			t.Fatalf("byteMasks(%q) = %064b %064b, want %064b %064b", line, s, d, sep, digit)
		}
	}
}

// TestBlockGuesses: samples whose blocks begin with the same caller line
// (more of them than a guess set holds, of the same length and not, one
// the start of another) fold on the sample path as Line folds them.
func TestBlockGuesses(t *testing.T) {
	blocks := []string{
		"\t1 caller (/bin/a)\n\t2 main (/bin/a)",
		"\t1 caller (/bin/a)\n\t2 mair (/bin/a)",
		"\t1 caller (/bin/a)\n\t2 main (/bin/a)\n\t3 start (/bin/a)",
		"\t1 caller (/bin/a)\n\t2 main (/bin/b)\n\t3 start (/bin/a)",
		"\t1 caller (/bin/a)",
		"\t1 caller (/bin/a)\n\t4 other (/bin/a)",
		"\t1 caller (/bin/a)\n\t5 other (/bin/a)\n\t2 main (/bin/a)",
		"\t1 caller (/bin/a)\n\t6 third (/bin/a)\n\t2 main (/bin/a)",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var in bytes.Buffer
	for i := 0; i < 4000; i++ {
		comm := []string{"app", "app", "app", "other"}[rng.IntN(4)]
		fmt.Fprintf(&in, "%s 1 1.%06d: 1 cpu-clock:\n\t%x leaf%d+0x%x (/bin/a)\n%s\n\n",
			comm, i, 0x100+rng.IntN(4), rng.IntN(3), rng.IntN(16), blocks[rng.IntN(len(blocks))])
	}
	serial := map[string]fold.Count{}
	p := New(Options{}, func(stack []byte, c fold.Count) error {
		serial[string(stack)], _ = serial[string(stack)].Add(c)
		return nil
	}, stream.NewDiag(new(bytes.Buffer), false))
	for i, line := range bytes.Split(in.Bytes(), []byte("\n")) {
		if err := p.Line("in", i+1, line); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.End(); err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int64{0, 1 << 20} {
		fast := map[string]fold.Count{}
		pf := New(Options{Batch: batch}, func(stack []byte, c fold.Count) error {
			fast[string(stack)], _ = fast[string(stack)].Add(c)
			return nil
		}, stream.NewDiag(new(bytes.Buffer), false))
		if err := foldChunk(pf, &stream.Chunk{Data: in.Bytes(), Name: "in", Line: 1}); err != nil {
			t.Fatal(err)
		}
		if err := pf.Flush(); err != nil {
			t.Fatal(err)
		}
		if pf.fastHits < 3900 {
			t.Errorf("batch %d: %d samples on the sample path, want nearly all 4000", batch, pf.fastHits)
		}
		if len(fast) != len(serial) {
			t.Errorf("batch %d: %d stacks, Line folds %d", batch, len(fast), len(serial))
		}
		for s, c := range serial {
			if fast[s] != c {
				t.Errorf("batch %d: stack %q: %v, Line folds %v", batch, s, fast[s], c)
			}
		}
	}
}
