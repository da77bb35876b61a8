package main

import (
	"strings"
	"testing"
)

// TestFormats: --format auto detects each input's format; an explicit
// format is obeyed; a bad name is a usage error; undetectable input
// fails with exit 1 and says so.
func TestFormats(t *testing.T) {
	const (
		report   = "../../testdata/perfreport/threadname.perf-report-folded.txt"
		dump     = "../../testdata/stackprof/cpu.dump"
		dumpFold = "../../testdata/stackprof/golden/cpu.dump.folded"
	)
	out, stderr, code := pfold(t, "", "--stats", dump, report)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"cpu.dump: format stackprof (detected)", "threadname.perf-report-folded.txt: format perf-report (detected)", "total 952"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(out, "spin_worker;start_thread;spin 449\n") || !strings.Contains(out, "(garbage collection);(marking) 10\n") {
		t.Errorf("output:\n%s", out)
	}

	if out, stderr, code := pfold(t, read(t, dumpFold), "--format", "folded"); code != 0 || out != read(t, dumpFold) {
		t.Errorf("--format folded: exit %d, %s", code, stderr)
	}
	if _, stderr, code := pfold(t, "", "--format", "stackprof", report); code != 1 || !strings.Contains(stderr, "stackprof JSON") {
		t.Errorf("--format stackprof on perf report: exit %d, %s", code, stderr)
	}
	if _, stderr, code := pfold(t, "a 1\n", "--format", "perf"); code != 2 || !strings.Contains(stderr, "perf-script, perf-report, stackprof, folded, perf-data, dtrace, auto") {
		t.Errorf("--format perf: exit %d, %s", code, stderr)
	}
	if _, stderr, code := pfold(t, "hello\n"); code != 1 || !strings.Contains(stderr, "unrecognised input format") {
		t.Errorf("undetectable: exit %d, %s", code, stderr)
	}
	if _, stderr, code := pfold(t, "", "../../testdata/stackprof/cpu-noraw.json"); code != 1 || !strings.Contains(stderr, "raw: true") {
		t.Errorf("no raw samples: exit %d, %s", code, stderr)
	}
}
