package perfsched

import (
	"flag"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/perfsched"

// TestGolden folds every input with each set of the script's options as
// the oracles were made with them (-v NAME=1 each); the goldens equal
// stackcollapse-perf-sched.awk's output under gawk (*.oracle.folded.gz,
// made by running it here).
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt", "*.txt.gz"}, Ext: ".txt", Min: 3, Gzip: true,
		Options: []formattest.Option{
			formattest.Flags("record_tid"), formattest.Flags("record_wake_stack"),
			formattest.Flags("recurse"), formattest.Flags("recurse", "record_tid"),
		},
		References: []formattest.Reference{{Tool: "stackcollapse-perf-sched.awk"}},
	}.Test(t)
}

// TestRaw: the recording as made (sched_switch and sched_wakeup, no
// sched_stat_*: the kernel has no CONFIG_SCHEDSTATS) folds to nothing,
// as under the script, and is not taken for perf-sched.
func TestRaw(t *testing.T) {
	data := dir.Read(t, "raw/tracework.switch-wakeup.txt.gz")
	res, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "raw", Data: data})
	if err != nil || res.Folded != "" {
		t.Errorf("got %q, %v", res.Folded, err)
	}
	if Format.Sniff(data[:format.SniffSize]) == format.Sure {
		t.Error("a dump with no sched_stat event taken for perf-sched")
	}
}

func TestCases(t *testing.T) {
	const sw = "sh 12 [001] 1.000001: sched:sched_switch: prev_comm=sh prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=x next_pid=0\n" +
		"\tffffffff81 __schedule+0x618 ([kernel.kallsyms])\n\tffffffff82 schedule+0x23 ([kernel.kallsyms])\n\t7f00 f(int, char) (/x/libc.so.6)\n\n"
	const st = "kw 13 [000] 1.5: sched:sched_stat_sleep: comm=sh pid=12 delay=2500000 [ns]\n" +
		"\tffffffff83 try_to_wake_up+0x1 ([kernel.kallsyms])\n\tffffffff84 wake_up_q+0x2 ([kernel.kallsyms])\n\n"
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "off cpu", In: sw + st, Want: "sh;f(int, char);schedule+0x23;__schedule+0x618 2500\n"},
		{Name: "tid", In: sw + st, Opts: format.MapOptions{"record_tid": true}, Want: "sh-12;f(int, char);schedule+0x23;__schedule+0x618 2500\n"},
		{Name: "wake stack", In: sw + st, Opts: format.MapOptions{"record_wake_stack": true}, Want: "sh;f(int, char);schedule+0x23;__schedule+0x618;try_to_wake_up+0x1;wake_up_q+0x2;kw 2500\n"},
		{Name: "no switch before", In: st + sw, Want: ""},
		{Name: "under a microsecond", In: sw + strings.Replace(st, "2500000", "999", 1), Want: ""},
		{Name: "summed in ns", In: sw + strings.Replace(st, "2500000", "600", 1) + sw + strings.Replace(st, "2500000", "600", 1), Want: "sh;f(int, char);schedule+0x23;__schedule+0x618 1\n"},
		{Name: "idle task", In: strings.Replace(sw, "prev_pid=12", "prev_pid=0", 1) + strings.Replace(st, "pid=12", "pid=0", 1), Want: ""},
		{Name: "crlf", In: strings.ReplaceAll(sw+st, "\n", "\r\n"), Want: "sh;f(int, char);schedule+0x23;__schedule+0x618 2500\n"},
	})
}

func TestMalformed(t *testing.T) {
	in := "sh 12 [001] 1.0: sched:sched_switch: prev_comm=sh prev_pid=12\n" + strings.Repeat("\tff f (k)\n", maxFrames+5) + "\n" +
		"kw 13 [000] 1.5: sched:sched_stat_sleep: comm=sh pid=12 delay=2500000 [ns]\n\n"
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "deep", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Malformed != 1 || !strings.HasPrefix(res.Folded, "sh;f;f;") {
		t.Errorf("%d malformed, %.20q", res.Malformed, res.Folded)
	}
}

// TestSniff: the off-CPU recordings are recognised; plain perf script,
// with or without sched events, and the other formats are not taken for
// perf-sched.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt", "*.txt.gz"},
		NotSureText: []string{
			// perf script of cpu-clock with one sched_switch among the samples.
			"cc1 1234 [000] 10.0: 250000 cpu-clock:\n\tffff f ([kernel.kallsyms])\n\nsh 12 [001] 10.1: sched:sched_switch: prev_comm=sh prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=x next_pid=0\n\tffff schedule ([kernel.kallsyms])\n\n",
			"Nov  2 10:00:01 host kernel: sched:sched_stat_sleep: comm=x pid=1 delay=5\nNov  2 10:00:02 host cron[5]: job\n",
			`{"event": "sched:sched_stat_sleep: comm=x pid=1 delay=5"}` + "\n",
		},
	}.Test(t)
}

func FuzzPerfSched(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "quirks.txt"), dir.Read(f, "tracework.sched.txt.gz")[:20000])
}

func BenchmarkPerfSched(b *testing.B) {
	formattest.Benchmark(b, Format, format.MapOptions{"record_wake_stack": true}, dir.Read(b, "tracework.sched.txt.gz"))
}

// FuzzFunctionName checks functionName's reading from both ends against
// squeezedName, which splits the whole line into fields as the awk does.
func FuzzFunctionName(f *testing.F) {
	for _, s := range []string{
		"\tffffffff813aa3e5 ttwu_do_activate+0x175 ([kernel.kallsyms])",
		"\t           91e28 runtime.memmove+0x128 (/usr/local/go/bin/go)",
		"\t  1 a b  c\t(d)  ", "\t1 f", "1", " ", "", "\t1 2 3", "a\tb\nc d e", "x  y", " x y ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var s1, s2 []byte
		got := string(functionName([]byte(line), &s1))
		if want := string(squeezedName([]byte(line), &s2)); got != want {
			t.Fatalf("functionName(%q) = %q, want %q", line, got, want)
		}
	})
}

func TestHasSched(t *testing.T) {
	for _, s := range []string{"", ":", "sched:sched_", "sched:sched", "ched:sched_x", "a sched:sched_switch: x", "x::sched:sched_", "sched::sched_", "sched:sched:sched_", ":sched:sched_:", "std::sched:sched_wakeup"} {
		if got, want := hasSched([]byte(s)), strings.Contains(s, "sched:sched_"); got != want {
			t.Errorf("hasSched(%q) = %v, want %v", s, got, want)
		}
	}
}
