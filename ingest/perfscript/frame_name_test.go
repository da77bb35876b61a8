package perfscript

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// namerFold folds one sample, a header line and its frame lines (leaf
// first), as a reader of perf.data does with a Namer: the header and
// each frame named apart, the pieces joined root first.
func namerFold(t *testing.T, n *Namer, header string, frames []string, period uint64) (string, fold.Count, bool) {
	t.Helper()
	h, err := n.Header([]byte(header))
	if err != nil {
		t.Fatal(err)
	}
	if h.Skip || !n.KeepEvent(h.Event) {
		return "", fold.Count{}, false
	}
	named := h.Named
	var pieces [][]byte // root first
	for _, line := range frames {
		text, ends, skipAfter, err := n.Frame([]byte(line), h.Java)
		if err != nil {
			t.Fatal(err)
		}
		var fr [][]byte
		start := int32(0)
		for _, end := range ends {
			fr = append(fr, append([]byte(nil), text[start:end]...))
			start = end
		}
		pieces = append(fr, pieces...)
		if skipAfter {
			named = false
			break
		}
	}
	var stack []byte
	if named {
		stack = append(stack, h.Name...)
	}
	for _, p := range pieces {
		stack = AppendFrame(stack, p)
	}
	if len(stack) == 0 {
		return "", fold.Count{}, false
	}
	return string(stack), n.Weight(&h, period), true
}

// TestNamerMatchesParser: a sample named through the Namer folds as the
// Parser folds its text, with the options that change names.
func TestNamerMatchesParser(t *testing.T) {
	samples := []struct {
		header string
		frames []string
	}{
		{"app 12/34 100.000001: 250000 cpu-clock: ", []string{"\t  4005d6 leaf+0x10 (/tmp/app)", "\t  400620 main+0x20 (/tmp/app)", "\t7f0011223344 __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)"}},
		{"java 7/8 1.000000: 1 cycles: ", []string{"\t7f00aa Lcom/example/Foo;::bar+0x4 (/tmp/perf-7.map)", "\tffffffff81000010 do_syscall_64+0x10 ([kernel.kallsyms])"}},
		{"web content 9/9 2.000000: 3 cpu-clock: ", []string{"\t1234 a->b+0x1 (/lib/x.so)", "\t5678 [unknown] (/lib/y.so)", "\t9abc [unknown] ([unknown])"}},
		{"#odd 1/1 3.000000: 5 cpu-clock: ", []string{"\t10 f(int)+0x1 (/x)"}},
		{"rust 2/2 4.000000: 0 cpu-clock: ", []string{"\t20 _$LT$T$u20$as$u20$core..fmt..Debug$GT$::fmt::h1b2c3d4e5f607182+0x1 (/r)", "\t30 std::vector<int>::push_back(int const&)+0x2 (/r)", "\t40 (anonymous namespace)::g+0x3 (/r)", "\t50 (deleted)+0x0 (/r)"}},
		{"skip 3/3 5.000000: 7 cpu-clock: ", []string{"\t60 inner+0x1 (/s)", "\t70 main+0x1 (/s)", "\t80 outer+0x1 (/s)"}},
	}
	for _, o := range []Options{{}, {PID: true}, {TID: true, Kernel: true, JIT: true}, {Addrs: true}, {Samples: true}, {SkipAfter: []string{"main"}}, {EventFilter: "cycles"}} {
		var text strings.Builder
		for _, s := range samples {
			text.WriteString(s.header + "\n" + strings.Join(s.frames, "\n") + "\n\n")
		}
		want := map[string]fold.Count{}
		p := New(o, func(stack []byte, c fold.Count) error {
			sum, err := want[string(stack)].Add(c)
			want[string(stack)] = sum
			return err
		}, stream.NewDiag(io.Discard, false))
		for i, line := range strings.Split(text.String(), "\n") {
			if err := p.Line("t", i+1, []byte(line)); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.End(); err != nil {
			t.Fatal(err)
		}
		got := map[string]fold.Count{}
		n := NewNamer(o, stream.NewDiag(io.Discard, false))
		for _, s := range samples {
			// The header as perf.data's reader prints it: the period is
			// HeaderPeriod, the sample's own is given to Weight.
			f := strings.Fields(s.header)
			period := uint64(0)
			for i, tok := range f {
				if c, err := fold.ParseCount([]byte(tok)); err == nil && i > 0 && strings.HasSuffix(f[i-1], ":") {
					period = c.N
					f[i] = strconv.Itoa(HeaderPeriod)
				}
			}
			header := strings.Replace(s.header, strings.Join(strings.Fields(s.header), " "), strings.Join(f, " "), 1)
			if stack, w, ok := namerFold(t, n, header, s.frames, period); ok {
				n.Folded(1)
				sum, _ := got[stack].Add(w)
				got[stack] = sum
			}
		}
		if len(got) != len(want) {
			t.Errorf("%+v: %d stacks, want %d:\n%v\n%v", o, len(got), len(want), got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%+v: %q counts %v, want %v", o, k, got[k], v)
			}
		}
		if gs, ws := n.Counts(), p.Counts(); gs.Samples != ws.Samples || gs.Filtered != ws.Filtered {
			t.Errorf("%+v: counted %+v, want %+v", o, gs, ws)
		}
	}
}
