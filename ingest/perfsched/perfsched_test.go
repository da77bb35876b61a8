package perfsched

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/perfsched"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		z, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(z); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func writeGz(t *testing.T, path string, data []byte) {
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	z.Write(data)
	z.Close()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

var inputs = map[string]string{
	"tracework.sched":        "tracework.sched.txt.gz",
	"tracework.sched-fields": "tracework.sched-fields.txt.gz",
	"quirks":                 "quirks.txt",
}

// optionSets are the script's options as the oracles were made with
// them (-v NAME=1 each).
var optionSets = [][]string{nil, {"record_tid"}, {"record_wake_stack"}, {"recurse"}, {"recurse", "record_tid"}}

// TestGolden folds every input with each set of options; the goldens
// equal stackcollapse-perf-sched.awk's output under gawk
// (*.oracle.folded.gz, made by running it here).
func TestGolden(t *testing.T) {
	for base, file := range inputs {
		data := read(t, file)
		for _, set := range optionSets {
			opts := format.MapOptions{}
			name := base
			if len(set) > 0 {
				name += "." + strings.Join(set, "+")
			}
			for _, o := range set {
				opts[o] = true
			}
			res, err := formattest.FoldStrict(Format, opts, formattest.Input{Name: base, Data: data})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			golden := filepath.Join(dir, "golden", name+".folded.gz")
			if *update {
				writeGz(t, golden, []byte(res.Folded))
			}
			want := read(t, filepath.Join("golden", name+".folded.gz"))
			if res.Folded != string(want) {
				t.Errorf("%s differs from its golden", name)
			}
			if oracle := read(t, name+".oracle.folded.gz"); string(want) != string(oracle) {
				t.Errorf("golden %s differs from stackcollapse-perf-sched.awk's output", name)
			}
		}
	}
}

// TestRaw: the recording as made (sched_switch and sched_wakeup, no
// sched_stat_*: the kernel has no CONFIG_SCHEDSTATS) folds to nothing,
// as under the script, and is not taken for perf-sched.
func TestRaw(t *testing.T) {
	data := read(t, "raw/tracework.switch-wakeup.txt.gz")
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
	for _, c := range []struct {
		name, in string
		opts     format.MapOptions
		want     string
	}{
		{"off cpu", sw + st, nil, "sh;f(int, char);schedule+0x23;__schedule+0x618 2500\n"},
		{"tid", sw + st, format.MapOptions{"record_tid": true}, "sh-12;f(int, char);schedule+0x23;__schedule+0x618 2500\n"},
		{"wake stack", sw + st, format.MapOptions{"record_wake_stack": true}, "sh;f(int, char);schedule+0x23;__schedule+0x618;try_to_wake_up+0x1;wake_up_q+0x2;kw 2500\n"},
		{"no switch before", st + sw, nil, ""},
		{"under a microsecond", sw + strings.Replace(st, "2500000", "999", 1), nil, ""},
		{"summed in ns", sw + strings.Replace(st, "2500000", "600", 1) + sw + strings.Replace(st, "2500000", "600", 1), nil, "sh;f(int, char);schedule+0x23;__schedule+0x618 1\n"},
		{"idle task", strings.Replace(sw, "prev_pid=12", "prev_pid=0", 1) + strings.Replace(st, "pid=12", "pid=0", 1), nil, ""},
		{"crlf", strings.ReplaceAll(sw+st, "\n", "\r\n"), nil, "sh;f(int, char);schedule+0x23;__schedule+0x618 2500\n"},
	} {
		res, err := formattest.FoldStrict(Format, c.opts, formattest.Input{Name: c.name, Data: []byte(c.in)})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if res.Folded != c.want {
			t.Errorf("%s: got %q, want %q", c.name, res.Folded, c.want)
		}
	}
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
	for base, file := range inputs {
		b := read(t, file)
		if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s != format.Sure {
			t.Errorf("%s: %v", base, s)
		}
	}
	var others []string
	for _, g := range []string{"perf/recorded/*.txt", "perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded",
		"stackprof/*", "igprof/*", "perfreport/*.txt", "bpftrace/*.txt", "stap/*.txt", "pmc/*.txt", "aix/*.txt", "wcp/*.txt"} {
		m, _ := filepath.Glob(filepath.Join(dir, "..", g))
		others = append(others, m...)
	}
	if len(others) < 20 {
		t.Fatalf("only %d other inputs", len(others))
	}
	for _, f := range others {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
			t.Errorf("%s taken for perf-sched", f)
		}
	}
	for _, s := range []string{
		// perf script of cpu-clock with one sched_switch among the samples.
		"cc1 1234 [000] 10.0: 250000 cpu-clock:\n\tffff f ([kernel.kallsyms])\n\nsh 12 [001] 10.1: sched:sched_switch: prev_comm=sh prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=x next_pid=0\n\tffff schedule ([kernel.kallsyms])\n\n",
		"Nov  2 10:00:01 host kernel: sched:sched_stat_sleep: comm=x pid=1 delay=5\nNov  2 10:00:02 host cron[5]: job\n",
		`{"event": "sched:sched_stat_sleep: comm=x pid=1 delay=5"}` + "\n",
		"a,b,c\n1,2,3\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%.40q taken for perf-sched", s)
		}
	}
}

func FuzzPerfSched(f *testing.F) {
	f.Add(read(f, "quirks.txt"))
	f.Add(read(f, "tracework.sched.txt.gz")[:20000])
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

func BenchmarkPerfSched(b *testing.B) {
	data := read(b, "tracework.sched.txt.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	p, err := Format.New(format.MapOptions{"record_wake_stack": true}, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		n, rest := 0, data
		for len(rest) > 0 {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				i = len(rest)
			}
			n++
			if err := p.Line("bench", n, rest[:i]); err != nil {
				b.Fatal(err)
			}
			rest = rest[min(i+1, len(rest)):]
		}
		if err := p.End(); err != nil {
			b.Fatal(err)
		}
	}
}
