package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
)

const igDir = "../../testdata/igprof"

// TestGoldenThroughTheCommand: the command's sorted, aggregated output is
// the library's golden output.
func TestGoldenThroughTheCommand(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
	}{
		{"igprof.pp.cwork.default.folded", []string{"igprof.pp.cwork.gz"}},
		{"igprof.pp.ls.seconds.folded", []string{"--seconds", "igprof.pp.ls.gz"}},
		{"igprof.mp.cwork.counter-MEM_MAX.folded", []string{"igprof.mp.cwork.gz", "--counter", "MEM_MAX"}},
		{"igprof.mp.ls.counter-MEM_LIVE.no-root.folded", []string{"--counter=MEM_LIVE", "--no-root", "igprof.mp.ls.gz"}},
		{"igprof.mp.ls.leaks.folded", []string{"--leaks", "igprof.mp.ls.gz"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			args := append([]string(nil), tt.args...)
			for i, a := range args {
				if strings.HasPrefix(a, "igprof.") {
					args[i] = filepath.Join(igDir, a)
				}
			}
			// A tiny table makes both the stack table and the
			// table of maxima spill.
			stdout, stderr, code := cmdtest.Run(command, "", append(args, "--mem", "1KiB", "--tmpdir", t.TempDir())...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want, err := os.ReadFile(filepath.Join(igDir, "golden", tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			if stdout != string(want) {
				t.Errorf("got\n%s\nwant\n%s", stdout, want)
			}
		})
	}
}

func TestExitStatusAndMessages(t *testing.T) {
	dir := t.TempDir()
	bad := stacktest.WriteFile(t, "bad.txt", []byte("P=(HEX ID=1 N=(prog) T=0.010000)\nC1 FN0=(F0=(prog)+10 N=(main))+1 V0=(PERF_TICKS):(1,1,1)\nC1 FN0+1 V0:(1,oops,1)\nC1 FN0+1 V0:(2,2,2)\n"))
	switchy := stacktest.WriteFile(t, "switch.txt", []byte("P=(HEX ID=1 N=(prog) T=0.010000)\nC1 FN0=(F0=(prog)+10 N=(main))+1 V0=(MEM_TOTAL):(1,40,40)\nC2 FN1=(F0+20 N=(f))+1 V0:(1,40,40) V1=(PERF_TICKS):(3,3,3)\n"))
	tests := []struct {
		name         string
		args         []string
		code         int
		stdout       string // exact, unless empty
		stderrPhrase string
	}{
		{"header-only dump", []string{filepath.Join(igDir, "igprof.fd.ls.gz")}, 1, "", "igprof.fd.ls.gz: no counter values in the profile"},
		{"malformed line skipped", []string{bad}, 0, "prog;main 3\n", "bad.txt:3: bad counter total"},
		{"malformed line strict", []string{"--strict", bad}, 1, "", "bad.txt:3: bad counter total"},
		{"unknown counter", []string{"--counter", "FD_LIVE", bad}, 1, "", "counter FD_LIVE is not in the profile (it has PERF_TICKS)"},
		{"bad value", []string{"--value", "mean", bad}, 2, "", "--value"},
		{"leaks take no value", []string{"--leaks", "--value", "count", bad}, 2, "", "--leaks"},
		{"missing file", []string{filepath.Join(dir, "none.gz")}, 1, "", "none.gz"},
		{"default turns to PERF_TICKS", []string{switchy}, 0, "prog;main;f 3\n", ""},
		{"memory counter by name", []string{"-r", "MEM_TOTAL", switchy}, 0, "prog;main 64\nprog;main;f 64\n", ""},
		{"list counters", []string{"--list-counters", switchy}, 0,
			"COUNTER               COMBINE  RECORDS  COUNT  TOTAL  PEAK  LEAKS\n" +
				"MEM_TOTAL             sum      2        2      128    128   0\n" +
				"PERF_TICKS (default)  sum      1        3      3      3     0\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := cmdtest.Run(command, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if tt.stdout != "" && stdout != tt.stdout {
				t.Errorf("stdout %q, want %q", stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.stderrPhrase) || (tt.stderrPhrase == "" && stderr != "") {
				t.Errorf("stderr %q, want %q", stderr, tt.stderrPhrase)
			}
		})
	}
}

// TestNotADump: an input that is another profile's output, or folded
// stacks already, is one error naming what it looks like and what reads
// it, with nothing on stdout, rather than a warning a line.
func TestNotADump(t *testing.T) {
	tests := []struct {
		input, phrase string
	}{
		{"../../testdata/perf/recorded/cwork.perf-script.txt", "cwork.perf-script.txt: not an igprof dump: looks like perf script output: fold it with pfold"},
		{"../../testdata/perf/recorded/cwork.stackcollapse-perf.folded", "cwork.stackcollapse-perf.folded: not an igprof dump: looks like folded stacks already"},
		{"../../testdata/perf/recorded/gobuild.txt.gz", "gobuild.txt.gz: not an igprof dump: looks like perf script output"},
		{"../../testdata/perfdata/cwork/perf.data", "perf.data: not an igprof dump: looks like a perf.data recording: fold it with pfold"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.input), func(t *testing.T) {
			// A dump after it changes nothing: the first input decides.
			stdout, stderr, code := cmdtest.Run(command, "", tt.input, filepath.Join(igDir, "igprof.pp.cwork.gz"))
			if code != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %d bytes; want 1 and none", code, len(stdout))
			}
			if !strings.Contains(stderr, tt.phrase) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line with %q", stderr, tt.phrase)
			}
		})
	}
}

func TestStdinAndConcatenatedDumps(t *testing.T) {
	a := "P=(ID=1 N=(a) T=0.010000)\nC1 FN0=(F0=(a)+16 N=(main))+1 V0=(PERF_TICKS):(10,10,10)\n"
	b, err := os.ReadFile(filepath.Join(igDir, "igprof.pp.cwork-plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := cmdtest.Run(command, a+string(b), "--stats")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var total int
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var n int
		fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &n)
		total += n
	}
	// 10 ticks of a, 245 of cwork (igprof-analyse's total_counts).
	if total != 255 || !strings.HasPrefix(stdout, "../workload/cwork;") || !strings.Contains(stdout, "\na;main 10\n") {
		t.Errorf("total %d, output\n%s", total, stdout)
	}
	if !strings.Contains(stderr, "2 dumps, counter PERF_TICKS, 0 lines malformed") {
		t.Errorf("stats %q", stderr)
	}
}
