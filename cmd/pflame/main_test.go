package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
)

const sample = "../../testdata/flame/small.folded"

func frames(svg string) int { return strings.Count(svg, "<g><title>") }

func TestFileStdinAndOutput(t *testing.T) {
	want, errs, code := cmdtest.Run(command, "", sample)
	if code != 0 || !strings.HasPrefix(want, "<?xml") || !strings.HasSuffix(want, "</svg>\n") || frames(want) < 10 {
		t.Fatalf("file: code %d, stderr %q, %d frames", code, errs, frames(want))
	}
	if out, _, code := cmdtest.Run(command, stacktest.ReadFile(t, sample)); code != 0 || out != want {
		t.Fatalf("stdin: code %d", code)
	}
	if out, _, code := cmdtest.Run(command, stacktest.ReadFile(t, sample), "-"); code != 0 || out != want {
		t.Fatalf("stdin '-': code %d", code)
	}
	o := filepath.Join(t.TempDir(), "out.svg")
	if out, _, code := cmdtest.Run(command, "", sample, "-o", o); code != 0 || out != "" || stacktest.ReadFile(t, o) != want {
		t.Fatalf("-o after the file: code %d, stdout %d bytes", code, len(out))
	}
	// Two files are one stream: the same stacks twice count double.
	out, _, code := cmdtest.Run(command, "", sample, sample)
	if code != 0 || frames(out) != frames(want) || !strings.Contains(out, "<title>all (106 samples, 100%)</title>") {
		t.Fatalf("two files: code %d, %d frames", code, frames(out))
	}
}

func TestCompressedInput(t *testing.T) {
	want, _, _ := cmdtest.Run(command, "", sample)
	p := stacktest.GzipFile(t, "stacks", []byte(stacktest.ReadFile(t, sample))) // no .gz: magic bytes decide
	if out, _, code := cmdtest.Run(command, "", p); code != 0 || out != want {
		t.Fatalf("gzip input: code %d", code)
	}
}

func TestMalformedLines(t *testing.T) {
	bad := stacktest.ReadFile(t, "../../testdata/flame/bad-lines.folded")
	out, errs, code := cmdtest.Run(command, bad)
	if code != 0 || !strings.Contains(errs, "-:3: ") || !strings.Contains(errs, "THIS IS A BAD LINE") || frames(out) == 0 {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
	if _, errs, code := cmdtest.Run(command, bad, "--strict"); code != 1 || !strings.Contains(errs, "-:3: ") {
		t.Fatalf("--strict: code %d, stderr %q", code, errs)
	}
}

// TestEmptyInput: empty in, empty out, exit 0; input with stacks that
// count nothing is an error with nothing on stdout (it wrote a 543-byte
// SVG and exited 1 before).
func TestEmptyInput(t *testing.T) {
	for _, in := range []string{"", "\n\n"} {
		if out, errs, code := cmdtest.Run(command, in); code != 0 || out != "" {
			t.Errorf("%q: code %d, stderr %q, stdout %q", in, code, errs, out)
		}
	}
	out, errs, code := cmdtest.Run(command, "a;b 0\n")
	if code != 1 || !strings.Contains(errs, "no stack counts") || out != "" {
		t.Fatalf("zero counts: code %d, stderr %q, stdout %q", code, errs, out)
	}
}

func TestUsageErrors(t *testing.T) {
	cmdtest.UsageErrors(t, command, "a 1\n", [][]string{
		{"--colors", "pink"},
		{"--minwidth", "x"},
		{"--bgcolors", "#12345"},
		{"--width", "0"},
		{"--factor", "-1"},
		{"--encoding", "x\"y"},
		{"--total", "many"},
		{"--total", "-5"},
		{"--nosuchflag"},
	})
}

func TestHelpAndVersion(t *testing.T) {
	out, _, code := cmdtest.Run(command, "", "--help")
	for _, want := range []string{"--minwidth", "--colors", "--flamechart", "--cp", "(default: 1200)", "EXAMPLES", "pdiff"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--help lacks %q (code %d)", want, code)
		}
	}
	if out, _, code := cmdtest.Run(command, "", "--version"); code != 0 || !strings.Contains(out, "pflame") {
		t.Errorf("--version: code %d, %q", code, out)
	}
}

func TestConsistentPalette(t *testing.T) {
	pal := stacktest.WriteFile(t, "palette.map", []byte("main->rgb(1,2,3)\n"))
	out, errs, code := cmdtest.Run(command, "main;work 5\nmain;idle 1\n", "--palfile", pal)
	if code != 0 || !strings.Contains(out, `fill="rgb(1,2,3)"`) {
		t.Fatalf("code %d, stderr %q: main not drawn with the palette's colour", code, errs)
	}
	got := stacktest.ReadFile(t, pal)
	for _, name := range []string{"->rgb(", "main->rgb(1,2,3)\n", "work->rgb(", "idle->rgb("} {
		if !strings.Contains(got, name) {
			t.Errorf("palette file lacks %q:\n%s", name, got)
		}
	}
	// The written palette gives the second graph the first one's colours.
	again, _, _ := cmdtest.Run(command, "main;work 50\nmain;other 1\n", "--cp", "--palfile", pal)
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		c := line[strings.LastIndex(line, "->")+2:]
		if strings.HasPrefix(line, "work->") && !strings.Contains(again, `fill="`+c+`"`) {
			t.Errorf("work lost its colour %s in the second graph", c)
		}
	}
}

func TestDifferentialAndOptions(t *testing.T) {
	diff := "m;grew 10 30\nm;shrank 40 20\n"
	out, _, code := cmdtest.Run(command, diff, "--title", "A <b>", "--countname", "bytes", "--inverted")
	for _, want := range []string{"A &lt;b&gt;", "grew (30 bytes, 60.00%; +40.00%)", `fill="rgb(255,0,0)"`, `fill="rgb(0,0,255)"`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("differential: output lacks %q (code %d)", want, code)
		}
	}
	neg, _, _ := cmdtest.Run(command, diff, "--negate")
	if !strings.Contains(neg, "grew (30 samples, 60.00%; -40.00%)") {
		t.Error("--negate did not swap the change's sign")
	}
}

// TestTotal: --total above the counts' sum is the root's count and the
// base of the shares (flamegraph.pl draws "a;b 3 / a;c 1" with --total 8
// so); below it, it is ignored with a warning.
func TestTotal(t *testing.T) {
	out, errs, code := cmdtest.Run(command, "a;b 3\na;c 1\n", "--total", "8")
	for _, want := range []string{"all (8 samples, 100%)", "a (4 samples, 50.00%)", "b (3 samples, 37.50%)", `width="590"`} {
		if code != 0 || errs != "" || !strings.Contains(out, want) {
			t.Errorf("--total 8: output lacks %q (code %d, stderr %q)", want, code, errs)
		}
	}
	out, errs, code = cmdtest.Run(command, "a;b 3\na;c 1\n", "--total", "2")
	if code != 0 || !strings.Contains(out, "all (4 samples, 100%)") || errs != "pflame: warning: --total 2 is less than the counts' total, 4, so it is ignored\n" {
		t.Errorf("--total 2: code %d, stderr %q", code, errs)
	}
}

func TestStats(t *testing.T) {
	_, errs, code := cmdtest.Run(command, "a;b 3\na;c 1\n", "--stats", "--minwidth", "50%")
	if code != 0 || !strings.Contains(errs, "2 stacks read") || !strings.Contains(errs, "3 frames drawn") {
		t.Fatalf("code %d, stats %q", code, errs)
	}
}

// TestMemIdentical: the output with --mem 8MiB, where the tables spill,
// is the output with the default budget, byte for byte.
func TestMemIdentical(t *testing.T) {
	cmdtest.MemIdentical(t, command, true, [][]string{{}, {"--reverse", "--minwidth", "0.01"}})
}
