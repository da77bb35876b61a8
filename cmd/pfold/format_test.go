package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
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
	out, stderr, code := cmdtest.Run(command, "", "--stats", dump, report)
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

	// Inputs all in a format folded on workers (perf script) are named
	// one by one too.
	const script, script2 = "../../testdata/perf/recorded/cwork.perf-script.txt", "../../testdata/perf/recorded/threadname.perf-script.txt"
	if _, stderr, code := cmdtest.Run(command, "", "--stats", script, script2); code != 0 ||
		!strings.Contains(stderr, "cwork.perf-script.txt: format perf-script (detected)") || !strings.Contains(stderr, "threadname.perf-script.txt: format perf-script (detected)") {
		t.Errorf("--stats of two perf script inputs: exit %d, %s", code, stderr)
	}
	if _, stderr, code := cmdtest.Run(command, stacktest.ReadFile(t, script), "--stats"); code != 0 || !strings.Contains(stderr, "-: format perf-script (detected)") {
		t.Errorf("--stats of perf script on stdin: exit %d, %s", code, stderr)
	}

	if out, stderr, code := cmdtest.Run(command, stacktest.ReadFile(t, dumpFold), "--format", "folded"); code != 0 || out != stacktest.ReadFile(t, dumpFold) {
		t.Errorf("--format folded: exit %d, %s", code, stderr)
	}
	if _, stderr, code := cmdtest.Run(command, "", "--format", "stackprof", report); code != 1 || !strings.Contains(stderr, "stackprof JSON") {
		t.Errorf("--format stackprof on perf report: exit %d, %s", code, stderr)
	}
	if _, stderr, code := cmdtest.Run(command, "a 1\n", "--format", "perf"); code != 2 || !strings.Contains(stderr, "dtrace, perf-script") || !strings.Contains(stderr, "or auto") {
		t.Errorf("--format perf: exit %d, %s", code, stderr)
	}
	if _, stderr, code := cmdtest.Run(command, "hello\n"); code != 1 || !strings.Contains(stderr, `not a profile in a format pfold reads (tried perf-data, `) || !strings.Contains(stderr, `first line: "hello"`) {
		t.Errorf("undetectable: exit %d, %s", code, stderr)
	}
	if _, stderr, code := cmdtest.Run(command, "", "../../testdata/stackprof/cpu-noraw.json"); code != 1 || !strings.Contains(stderr, "raw: true") {
		t.Errorf("no raw samples: exit %d, %s", code, stderr)
	}
}

// TestRefused: input that is not a profile is an error that says what it
// looks like, exit 1, nothing on stdout; never a guessed profile.
func TestRefused(t *testing.T) {
	rnd := make([]byte, 4096)
	for i := range rnd {
		rnd[i] = byte(i*7919 + i>>3*31)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"syslog", "Nov  2 10:00:01 host sshd[1234]: Accepted publickey for root\nNov  2 10:00:02 host systemd[1]: Started Session 3.\n", `first line: "Nov  2 10:00:01 host sshd[1234]: Accepted publickey for root"`},
		{"random bytes", string(rnd), "this is binary data, not a profile"},
		{"JSON", `{"users": [{"name": "a", "id": 1}]}`, "this is JSON"},
		{"CSV", "date,host,value\n2024-01-01,a,3\n2024-01-02,b,4\n", `first line: "date,host,value"`},
		{"ELF", stacktest.ReadFile(t, "/proc/self/exe")[:4096], "this is an ELF executable or library, not a profile: profile it: perf record -g -- PROGRAM, then pfold perf.data"},
		{"PNG", pngImage(t), "this is a PNG image, not a profile"},
		{"tar", tarArchive(t), "this is a tar archive, not a profile: unpack it"},
		{"zip", zipArchive(t), "this is a zip archive (or a jar), not a profile: unpack it"},
	} {
		out, stderr, code := cmdtest.Run(command, tc.in)
		if code != 1 || out != "" || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want exit 1 and one line with %q", tc.name, code, len(out), stderr, tc.want)
		}
	}
}

// TestChosenFormatRefusesBinary: --format names how to read text; an
// input that is binary of another kind is one error saying what it is,
// not a warning a line of it read as that text (or, for perf script's
// workers, stacks folded from an executable's bytes). The format's own
// text still folds.
func TestChosenFormatRefusesBinary(t *testing.T) {
	perfData := "../../testdata/perfdata/cwork/perf.data"
	elf := stacktest.ReadFile(t, "/proc/self/exe")[:64<<10]
	for _, tc := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"perf.data as jstack", "", []string{"--format", "jstack", perfData}, "perf.data: --format jstack reads text, and this is a perf.data recording: leave --format out to detect it"},
		{"perf.data as perf script", "", []string{"--format", "perf-script", perfData}, "perf.data: --format perf-script reads text, and this is a perf.data recording"},
		{"ELF on stdin as perf script", elf, []string{"--format", "perf-script"}, "-: --format perf-script reads text, and this is an ELF executable or library"},
		{"ELF after folded text", elf, []string{"--format", "folded", "../../testdata/perf/recorded/cwork.stackcollapse-perf.folded", "-"}, "-: --format folded reads text, and this is an ELF"},
	} {
		out, stderr, code := cmdtest.Run(command, tc.stdin, tc.args...)
		if code != 1 || out != "" || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want exit 1 and one line with %q", tc.name, code, len(out), stderr, tc.want)
		}
	}
	want := stacktest.ReadFile(t, sampleFolded)
	if out, stderr, code := cmdtest.Run(command, "", "--format", "perf-script", "../../testdata/perf/recorded/cwork.perf-script.txt"); code != 0 || out != want {
		t.Errorf("perf script with --format perf-script: exit %d, %s", code, stderr)
	}
}

// TestNothingValid: an input of a known format whose every data line is
// malformed is an error, exit 1, nothing on stdout: not an empty profile.
func TestNothingValid(t *testing.T) {
	out, stderr, code := cmdtest.Run(command, "garbage here\nmore garbage\n", "--format", "folded")
	if code != 1 || out != "" || !strings.Contains(stderr, "-:1:") || !strings.Contains(stderr, "nothing folded: every data line was malformed (2 lines") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// A malformed line among good ones is a warning, exit 0.
	out, stderr, code = cmdtest.Run(command, "a;b 1\ngarbage here\n", "--format", "folded")
	if code != 0 || out != "a;b 1\n" || !strings.Contains(stderr, "-:2:") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// pngImage is a 1×1 PNG, as image/png writes it.
func pngImage(t *testing.T) string {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tarArchive is a tar of one text file, as tar -cf writes it.
func tarArchive(t *testing.T) string {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	body := "a;b 1\n"
	tw.WriteHeader(&tar.Header{Name: "profile.folded", Mode: 0o644, Size: int64(len(body))})
	tw.Write([]byte(body))
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// zipArchive is a zip of one text file.
func zipArchive(t *testing.T) string {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("profile.folded")
	w.Write([]byte("a;b 1\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
