package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/internal/testenv"
)

// TestPerfData: pfold on a committed perf.data equals pfold on perf
// script's text of it (the oracle record.sh saved, made with the same
// --symfs and --kallsyms), for every perf script option.
func TestPerfData(t *testing.T) {
	root := "../../testdata/perfdata"
	for _, name := range []string{"cwork", "cpp", "go", "jit", "kernel", "plt"} {
		dir := filepath.Join(root, name)
		installJITMaps(t, dir)
		f, err := os.Open(filepath.Join(dir, "perf-script.txt.gz"))
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		text, err := io.ReadAll(z)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range [][]string{nil, {"--pid"}, {"--tid"}, {"--kernel"}, {"--jit"}, {"--all", "--addrs"}, {"--mem", "1KiB"},
			{"--samples"}, {"--event-filter", "cpu-clock"}, {"--skip-after", "main"}, {"-j", "1", "--pid"}, {"-j", "2", "--all"}, {"--stats"}} {
			want, errs, code := cmdtest.Run(command, string(text), opts...)
			if code != 0 {
				t.Fatalf("%s %v on the text: exit %d: %s", name, opts, code, errs)
			}
			args := append([]string{"--symfs", filepath.Join(root, "symfs"), "--kallsyms", filepath.Join(dir, "kallsyms")}, opts...)
			got, errs, code := cmdtest.Run(command, "", append(args, filepath.Join(dir, "perf.data"))...)
			if code != 0 {
				t.Fatalf("%s %v: exit %d: %s", name, opts, code, errs)
			}
			if got != want {
				t.Errorf("%s %v: pfold perf.data differs from pfold on perf script's text", name, opts)
			}
			// Pipe the recording in: detected from stdin by its magic.
			data, _ := os.ReadFile(filepath.Join(dir, "perf.data"))
			got, _, code = cmdtest.Run(command, string(data), args...)
			if code != 0 || got != want {
				t.Errorf("%s %v on stdin: exit %d, same %v", name, opts, code, got == want)
			}
		}
	}
}

// installJITMaps puts a recording's JIT maps back at /tmp/perf-PID.map,
// where perf (and so pfold) reads them, for the test's duration.
func installJITMaps(t *testing.T, dir string) {
	maps, _ := filepath.Glob(filepath.Join(dir, "perf-*.map"))
	for _, m := range maps {
		dst := filepath.Join("/tmp", filepath.Base(m))
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if old, err := os.ReadFile(dst); err == nil && !bytes.Equal(old, data) {
			t.Skipf("%s exists with other contents (a process of that pid?)", dst)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Skipf("cannot install the JIT map: %v", err)
		}
		t.Cleanup(func() { os.Remove(dst) })
	}
}

// TestPerfDataInline: --inline and --context on perf.data name the same
// inlined functions as on perf script's text of it (itself checked
// against stackcollapse-perf.pl in ingest/perfscript), recording
// testdata/perf/inline's workload now, so that addr2line finds the
// executable where the recording says it is.
func TestPerfDataInline(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	perf := testenv.NeedTool(t, "Debian package linux-perf", "perf")
	testenv.NeedTool(t, "--inline runs addr2line (Debian package binutils)", "addr2line")
	dir := t.TempDir()
	bin := filepath.Join(dir, "inline")
	exe, err := os.ReadFile("../../testdata/perf/inline/inline")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "perf.data")
	rec := exec.Command(perf, "record", "-q", "-e", "cpu-clock", "-F", "999", "-g", "-o", data, "--", bin, "60000000")
	rec.Env = append(os.Environ(), "HOME="+dir)
	if out, err := rec.CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("perf record: %v\n%s", err, out)
		}
		t.Skipf("perf record cannot record here: %v\n%s", err, out)
	}
	ps := exec.Command(perf, "script", "-i", data)
	ps.Env = rec.Env
	text, err := ps.Output()
	if err != nil {
		t.Fatalf("perf script: %v", err)
	}
	t.Setenv("HOME", dir)
	for _, opts := range [][]string{{"--inline"}, {"--inline", "--context"}} {
		want, _, _ := cmdtest.Run(command, string(text), opts...)
		got, errs, code := cmdtest.Run(command, "", append(opts, data)...)
		if code != 0 || got != want {
			t.Errorf("%v: exit %d (%s); pfold perf.data equals perf script | pfold:\n%s", opts, code, errs, stacktest.FirstDiff(got, want))
		}
		// Both sides name what the compiler inlined (mix, hash_step),
		// not only the functions that have symbols.
		if !strings.Contains(got, ";hash_step") || !strings.Contains(got, ";mix") {
			t.Errorf("%v: no inlined function named:\n%s", opts, got)
		}
	}
}

// TestPerfDataFresh records now and checks pfold perf.data against
// perf script | pfold on this machine (CI installs perf).
func TestPerfDataFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	perf := testenv.NeedTool(t, "Debian package linux-perf", "perf")
	dir := t.TempDir()
	data := filepath.Join(dir, "perf.data")
	rec := exec.Command(perf, "record", "-q", "-e", "cpu-clock", "-F", "999", "-g", "-o", data, "--", "sh", "-c", "for i in 1 2 3; do ls -lR /usr/include >/dev/null; done")
	rec.Env = append(os.Environ(), "HOME="+dir)
	if out, err := rec.CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("perf record: %v\n%s", err, out)
		}
		t.Skipf("perf record cannot record here: %v\n%s", err, out)
	}
	ps := exec.Command(perf, "script", "-i", data, "-F", "+pid")
	ps.Env = rec.Env
	text, err := ps.Output()
	if err != nil {
		t.Fatalf("perf script: %v", err)
	}
	t.Setenv("HOME", dir) // the build-id cache perf record filled
	for _, opts := range [][]string{nil, {"--pid"}, {"--kernel"}} {
		want, _, _ := cmdtest.Run(command, string(text), opts...)
		got, errs, code := cmdtest.Run(command, "", append(opts, data)...)
		if code != 0 || got != want {
			t.Errorf("%v: exit %d (%s); pfold perf.data equals perf script | pfold: %v", opts, code, errs, got == want)
		}
	}
}

// TestPerfDataRefusals: an event that never occurs is an error on
// perf.data as on the text, and --srcline, which needs perf script's
// source lines, is refused with the way to get them.
func TestPerfDataRefusals(t *testing.T) {
	root := "../../testdata/perfdata"
	args := []string{"--symfs", filepath.Join(root, "symfs"), "--kallsyms", filepath.Join(root, "cwork", "kallsyms")}
	data := filepath.Join(root, "cwork", "perf.data")
	_, errs, code := cmdtest.Run(command, "", append(args, "--event-filter", "cycles", data)...)
	if code == 0 || !strings.Contains(errs, `no sample of event "cycles"`) || !strings.Contains(errs, "cpu-clock") {
		t.Errorf("--event-filter cycles: exit %d, %q", code, errs)
	}
	_, errs, code = cmdtest.Run(command, "", append(args, "--srcline", data)...)
	if code == 0 || !strings.Contains(errs, "perf script -F +pid,+srcline -i FILE | pfold --srcline") {
		t.Errorf("--srcline: exit %d, %q", code, errs)
	}
}
