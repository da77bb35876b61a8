package perfscript

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// TestPerfScriptCases covers the places where stackcollapse-perf.pl and
// inferno disagree, or both go wrong, with what pfold does instead.
func TestPerfScriptCases(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Options
		in   string
		want string
	}{{
		name: "last sample without a blank line after it is kept",
		in:   "a 1 1.0: 1 cpu-clock:\n\t1 f (m)\n\nb 2 2.0: 1 cpu-clock:\n\t2 g (m)",
		want: "a;f 1\nb;g 1\n",
	}, {
		name: "whitespace-only line ends a sample",
		in:   "a 1 1.0: 1 cpu-clock:\n\t1 f (m)\n \t \nb 2 2.0: 1 cpu-clock:\n\t2 g (m)\n",
		want: "a;f 1\nb;g 1\n",
	}, {
		name: "CRLF line endings",
		in:   "a 1 1.0: 1 cpu-clock:\r\n\t1 f (m)\r\n\r\nb 2 2.0: 1 cpu-clock:\r\n\t2 g (m)\r\n\r\n",
		want: "a;f 1\nb;g 1\n",
	}, {
		name: "one-character comm",
		in:   "x 77 1.0: 5 cpu-clock:\n\t1 f (m)\n",
		want: "x;f 5\n",
	}, {
		name: "the process name alone (-F comm,ip,sym), with a blank in it",
		in:   "cwork \n\t119e leaf_a (/tmp/cwork)\n\t12ef main (/tmp/cwork)\n\nWeb Content \n\t1 f (m)\n\ncwork \n\t119e leaf_a (/tmp/cwork)\n\t12ef main (/tmp/cwork)\n",
		want: "Web_Content;f 1\ncwork;main;leaf_a 2\n",
	}, {
		name: "module path with spaces",
		in:   "node 1 1.0: 1 cpu-clock:\n\t7f00 LazyCompile:~foo ([JIT app cache])\n\t7f01 main (/usr/bin/node)\n",
		want: "node;main;LazyCompile:~foo 1\n",
	}, {
		name: "module path with spaces, unknown symbol falls back to it",
		in:   "node 1 1.0: 1 cpu-clock:\n\t7f00 [unknown] (/tmp/my app/lib x.so)\n",
		want: "node;[lib x.so] 1\n",
	}, {
		name: "tracepoint with arguments after the event",
		in:   "bash 10 [000] 1.0: 1 sched:sched_switch: prev_comm=bash prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n\tffffffff81000001 __schedule ([kernel.kallsyms])\n\tffffffff81000002 schedule ([kernel.kallsyms])\n",
		want: "bash;schedule;__schedule 1\n",
	}, {
		name: "single-line samples (no -g)",
		in:   "a 1 1.0: 3 cycles:u:  ffffffff9b201293 [unknown] ([unknown])\na 1 2.0: 4 cycles:  7fa68b1f2d84 _dl_start+0x4 (/usr/lib/ld-2.31.so)\n",
		want: "a;[unknown] 3\na;_dl_start 4\n",
	}, {
		name: "arguments cut only at a top-level parenthesis",
		in:   "a 1 1.0: 1 cpu-clock:\n\t1 std::function<unsigned long (int)>::operator()(int) const (m)\n\t2 main.Map[go.shape.func(*T, U)] (m)\n\t3 net/http.(*Client).Do (m)\n\t4 (anonymous namespace)::helper(int) (m)\n\t5 plain(char*) (m)\n",
		want: "a;plain;(anonymous namespace)::helper;net/http.(*Client).Do;main.Map[go.shape.func(*T, U)];std::function<unsigned long (int)>::operator 1\n",
	}, {
		name: "swapper 0/0 with --pid is swapper-0",
		opt:  Options{PID: true},
		in:   "swapper     0/0     [000] 1.0: 1 cpu-clock:\n\tffffffff81000001 native_safe_halt ([kernel.kallsyms])\n",
		want: "swapper-0;native_safe_halt 1\n",
	}, {
		name: "swapper 0/0 with --tid",
		opt:  Options{TID: true},
		in:   "swapper     0/0     [000] 1.0: 1 cpu-clock:\n\tffffffff81000001 native_safe_halt ([kernel.kallsyms])\n",
		want: "swapper-0/0;native_safe_halt 1\n",
	}, {
		name: "a sample without frame lines counts as the bare process name",
		in:   "a 1 1.0: 2 cpu-clock:\n\nb 2 2.0: 3 cpu-clock:\n\t1 f (m)\n",
		want: "a 2\nb;f 3\n",
	}, {
		// perf script right-aligns the process name when it prints no
		// call chain (a tracepoint's, by default): such a header is
		// indented, and the next sample's, not a frame of this one.
		name: "tracepoint samples printed without call chains, one per line",
		in:   "              sh 13866/13866 [001] 45680.249450: sched:sched_switch: prev_comm=sh prev_pid=13866 prev_prio=120 prev_state=D ==> next_comm=sleep next_pid=13868 next_prio=120\n           sleep 13868/13868 [001] 45680.249523: sched:sched_switch: prev_comm=sleep prev_pid=13868 prev_prio=120 prev_state=R+ ==> next_comm=sh next_pid=13866 next_prio=120\n              sh 13866/13866 [001] 45680.249537: sched:sched_switch: prev_comm=sh prev_pid=13866 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n",
		want: "sh 2\nsleep 1\n",
	}, {
		name: "exited task :-1 keeps its name, never a garbage frame",
		in:   ":-1    -1 [000]   821.755106:     250000 cpu-clock:\n\tffffffff81000001 native_safe_halt ([kernel.kallsyms])\n",
		want: ":-1;native_safe_halt 250000\n",
	}, {
		name: "comm with spaces",
		in:   "V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:\n\t1 f (m)\n",
		want: "V8_WorkerThread;f 100\n",
	}, {
		name: "inlined frames a->b are split with _[i]",
		in:   "a 1 1.0: 1 cpu-clock:\n\t1 outer->inner+0x10 (m)\n\t2 main (m)\n",
		want: "a;main;outer;inner_[i] 1\n",
	}, {
		name: "kernel and jit annotations",
		opt:  Options{Kernel: true, JIT: true},
		in:   "java 1 1.0: 1 cpu-clock:\n\tffffffff81000001 sys_read ([kernel.kallsyms])\n\t7f00 Lfoo/Bar;::baz (/tmp/perf-123.map)\n\t7f01 main (/usr/bin/java)\n",
		want: "java;main;foo/Bar:::baz_[j];sys_read_[k] 1\n",
	}, {
		name: "skip-after drops callers and the process name",
		opt:  Options{SkipAfter: []string{"main"}},
		in:   "a 1 1.0: 1 cpu-clock:\n\t1 leaf+0x1 (m)\n\t2 main+0x2 (m)\n\t3 __libc_start_main (m)\n",
		want: "main;leaf 1\n",
	}, {
		name: "event filter given",
		opt:  Options{EventFilter: "cycles"},
		in:   "a 1 1.0: 7 instructions:\n\t1 f (m)\n\na 1 2.0: 5 cycles:u:\n\t1 g (m)\n",
		want: "a;g 5\n",
	}, {
		name: "event filter defaults to the first event",
		in:   "a 1 1.0: 7 instructions:\n\t1 f (m)\n\na 1 2.0: 5 cycles:\n\t1 g (m)\n",
		want: "a;f 7\n",
	}, {
		name: "srcline",
		opt:  Options{Srcline: true},
		in:   "a 1 1.0: 1 cpu-clock:\n\t119e leaf_a (/tmp/cwork)\n  cwork.c:6\n\t7f00 [unknown] ([unknown])\n\t1306 main (/tmp/cwork)\n  cwork.c:16\n",
		want: "a;main:cwork.c:16;[unknown];leaf_a:cwork.c:6 1\n",
	}, {
		name: "PERF_RECORD lines and header blocks are not samples",
		in:   "# ========\n# captured on: x\n# ========\n#\nsh 1 1.0: PERF_RECORD_COMM exec: sh:1/1\nsh 1 1.0: PERF_RECORD_MMAP2 1/1: [0x5(0x1) @ 0x4 fe:00 1 0]: r-xp /usr/bin/dash\na 1 1.0: 1 cpu-clock:\n\t1 f (m)\n",
		want: "a;f 1\n",
	}, {
		name: "frames printed without indentation",
		in:   "java 19983 cycles:\nffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n7f00 start_thread (/lib/libpthread.so)\n\n",
		want: "java;start_thread;native_write_msr_safe 1\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, warn := foldText(t, tc.opt, tc.in)
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if strings.Contains(warn, "warning") {
				t.Errorf("unexpected warnings: %s", warn)
			}
		})
	}
}

func TestPerfScriptMalformed(t *testing.T) {
	in := "a 1 1.0: 1 cpu-clock:\n\t1 f (m)\n\nTHIS IS NOT A HEADER\n\t1 g (m)\n\nb 2 2.0: 1 cpu-clock:\n\t2 h (m)\n"
	got, warn := foldText(t, Options{}, in)
	if want := "a;f 1\nb;h 1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !strings.Contains(warn, "in.txt:4:") || !strings.Contains(warn, "THIS IS NOT A HEADER") {
		t.Errorf("warning does not name file:line and text: %q", warn)
	}

	// A number alone is a tid (-F tid,ip,sym), not a process name: the
	// header is reported, and its sample left out.
	if got, warn := foldText(t, Options{}, "23967 \n\t1 f (m)\n\ncwork \n\t2 g (m)\n"); got != "cwork;g 1\n" || !strings.Contains(warn, `not a perf script sample header: "23967"`) {
		t.Errorf("a tid alone: got %q, warnings %q", got, warn)
	}

	// --strict: the first malformed line is an error.
	path := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(path, []byte(in), 0o644)
	diag := stream.NewDiag(new(strings.Builder), true)
	p := New(Options{}, func([]byte, fold.Count) error { return nil }, diag)
	err := Fold(stream.NewReader([]string{path}), p)
	var se *stream.SyntaxError
	if !errors.As(err, &se) || se.Line != 4 {
		t.Fatalf("strict: got %v, want a syntax error at line 4", err)
	}
}

func TestPerfScriptSeveralEventsNote(t *testing.T) {
	_, warn := foldText(t, Options{}, "a 1 1.0: 7 instructions:\n\t1 f (m)\n\na 1 2.0: 5 cycles:\n\t1 g (m)\n\na 1 3.0: 5 cycles:\n\t1 g (m)\n")
	if strings.Count(warn, "note:") != 1 || !strings.Contains(warn, "instructions") {
		t.Errorf("want one note naming the event kept, got %q", warn)
	}
	// The event named by the user: no note (it said "several events"
	// even of an input with one, when the name was a typo).
	for _, filter := range []string{"cycles", "cpu-clok"} {
		if _, warn := foldText(t, Options{EventFilter: filter}, "a 1 1.0: 7 instructions:\n\t1 f (m)\n\na 1 2.0: 5 cycles:\n\t1 g (m)\n"); strings.Contains(warn, "note:") {
			t.Errorf("--event-filter %s: %q", filter, warn)
		}
	}
}

// TestStatsNameEvent: --stats names the event folded, the input's first
// or the one given, even when the input has no other (a host of
// scripts/pfold-hosts folding part of the inputs says which it chose),
// serially and on workers; samples that name no event, no event.
func TestStatsNameEvent(t *testing.T) {
	const two = "a 1 1.0: 7 instructions:\n\t1 f (m)\n\na 1 2.0: 5 cycles:\n\t1 g (m)\n\na 1 3.0: 5 cycles:\n\t1 g (m)\n"
	for _, tc := range []struct {
		text, filter, want string
	}{
		{"a 1 2.0: 5 cycles:\n\t1 g (m)\n", "", "1 samples folded (event cycles; 0 of other events, 0 skipped)"},
		{two, "", "1 samples folded (event instructions; 2 of other events, 0 skipped)"},
		{two, "cycles", "2 samples folded (event cycles; 1 of other events, 0 skipped)"},
		{"a 1 2.0: 5\n\t1 g (m)\n", "", "1 samples folded (0 of other events, 0 skipped)"},
	} {
		quiet := stream.NewDiag(io.Discard, false)
		p := New(Options{EventFilter: tc.filter}, func([]byte, fold.Count) error { return nil }, quiet)
		if err := Fold(stream.NewReaderStdin(nil, strings.NewReader(tc.text)), p); err != nil {
			t.Fatal(err)
		}
		ch := stream.NewChunker(nil, strings.NewReader(tc.text), 64<<10, 4)
		aggs := []*stream.Aggregator{stream.NewAggregator(stream.Options{}), stream.NewAggregator(stream.Options{})}
		st, err := FoldChunks(ch, Options{EventFilter: tc.filter}, quiet, aggs)
		for _, a := range aggs {
			a.Close()
		}
		if got := p.Counts().String(); got != tc.want || err != nil || st.String() != tc.want {
			t.Errorf("%q, --event-filter %q: serially %q, on workers %q (%v); want %q", tc.text, tc.filter, got, st.String(), err, tc.want)
		}
	}
}

// TestCheckChains: when no sample folded has a frame, a note says that
// perf script printed no call chain and how to have them, and it is an
// error when the samples had no process name either; neither otherwise.
func TestCheckChains(t *testing.T) {
	for _, tc := range []struct {
		text      string
		note, err bool
	}{
		{"              sh 1/1 [001] 1.0: sched:sched_switch: prev_comm=sh\n           sleep 2/2 [001] 2.0: sched:sched_switch: prev_comm=sleep\n", true, false},
		{"45680.249450: sched:sched_switch: prev_comm=sh\n45680.249523: sched:sched_switch: prev_comm=sleep\n", false, true},
		{"a 1 1.0: 2 cpu-clock:\n\nb 2 2.0: 3 cpu-clock:\n\t1 f (m)\n", false, false},
		{"              sh 1 1.0: 250000 cpu-clock:  ffffffff816e71e6 current_time ([kernel.kallsyms])\n", false, false},
		{"", false, false},
	} {
		quiet := stream.NewDiag(io.Discard, false)
		p := New(Options{}, func([]byte, fold.Count) error { return nil }, quiet)
		if err := Fold(stream.NewReaderStdin(nil, strings.NewReader(tc.text)), p); err != nil {
			t.Fatal(err)
		}
		ch := stream.NewChunker(nil, strings.NewReader(tc.text), 64<<10, 4)
		aggs := []*stream.Aggregator{stream.NewAggregator(stream.Options{}), stream.NewAggregator(stream.Options{})}
		st, err := FoldChunks(ch, Options{}, quiet, aggs)
		for _, a := range aggs {
			a.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Stats{p.Counts(), st} {
			var b strings.Builder
			err := CheckChains(&b, s)
			if got := strings.Contains(b.String(), "no sample has a call chain"); got != tc.note || (err != nil) != tc.err {
				t.Errorf("%q: note %v, error %v; want note %v, an error %v (%q)", tc.text, got, err, tc.note, tc.err, b.String())
			}
		}
	}
}
