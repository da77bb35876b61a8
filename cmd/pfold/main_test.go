package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
)

const sample = "../../testdata/perf/recorded/cwork.perf-script.txt"
const sampleFolded = "../../testdata/perf/recorded/cwork.stackcollapse-perf.folded"

func TestFileStdinAndOutput(t *testing.T) {
	want := stacktest.ReadFile(t, sampleFolded)
	if out, errs, code := cmdtest.Run(command, "", sample); code != 0 || out != want {
		t.Fatalf("file: code %d, stderr %q", code, errs)
	}
	if out, _, code := cmdtest.Run(command, stacktest.ReadFile(t, sample)); code != 0 || out != want {
		t.Fatalf("stdin: code %d", code)
	}
	if out, _, code := cmdtest.Run(command, stacktest.ReadFile(t, sample), "-"); code != 0 || out != want {
		t.Fatalf("stdin '-': code %d", code)
	}
	o := filepath.Join(t.TempDir(), "out.folded")
	if out, _, code := cmdtest.Run(command, "", "-o", o, sample); code != 0 || out != "" || stacktest.ReadFile(t, o) != want {
		t.Fatalf("-o: code %d, stdout %q", code, out)
	}
}

func TestOptionsAfterFiles(t *testing.T) {
	a, _, _ := cmdtest.Run(command, "", "--pid", sample)
	b, _, code := cmdtest.Run(command, "", sample, "--pid")
	if code != 0 || a != b || !strings.Contains(a, "cwork-") {
		t.Fatalf("--pid after the file was not honoured (code %d)", code)
	}
}

func TestCompressedInput(t *testing.T) {
	p := stacktest.GzipFile(t, "dump", []byte(stacktest.ReadFile(t, sample))) // no .gz: magic bytes decide
	if out, _, code := cmdtest.Run(command, "", p); code != 0 || out != stacktest.ReadFile(t, sampleFolded) {
		t.Fatalf("gzip input: code %d", code)
	}
	gz := []byte(stacktest.ReadFile(t, p))
	os.WriteFile(p, gz[:len(gz)/2], 0o644)
	out, errs, code := cmdtest.Run(command, "", p)
	if code != 1 || !strings.Contains(errs, "truncated") || out != "" {
		t.Fatalf("truncated gzip: code %d, stderr %q, stdout %d bytes", code, errs, len(out))
	}
}

func TestExitCodes(t *testing.T) {
	if _, errs, code := cmdtest.Run(command, "", filepath.Join(t.TempDir(), "missing.txt")); code != 1 || !strings.Contains(errs, "missing.txt") {
		t.Errorf("missing file: code %d, stderr %q", code, errs)
	}
	if out, errs, code := cmdtest.Run(command, "", "--no-such-flag", sample); code != 2 || out != "" || errs == "" {
		t.Errorf("unknown flag: code %d, stdout %q", code, out)
	}
	if _, _, code := cmdtest.Run(command, "", "--mem", "lots", sample); code != 2 {
		t.Errorf("bad --mem: code %d", code)
	}
	bad := stacktest.WriteFile(t, "bad.txt", []byte("a 1 1.0: 1 cpu-clock:\n\t1 f (m)\n\nGARBAGE\n"))
	if out, errs, code := cmdtest.Run(command, "", bad); code != 0 || out != "a;f 1\n" || !strings.HasPrefix(errs, "pfold: warning: "+bad+":4: ") {
		t.Errorf("malformed line: code %d, stdout %q, stderr %q", code, out, errs)
	}
	two := stacktest.WriteFile(t, "two-events.txt", []byte("a 1 1.0: 1 cpu-clock:\n\t1 f (m)\n\na 1 2.0: 1 page-faults:\n\t1 g (m)\n"))
	if out, errs, code := cmdtest.Run(command, "", two); code != 0 || out != "a;f 1\n" || !strings.HasPrefix(errs, "pfold: note: several events") {
		t.Errorf("two events: code %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, errs, code := cmdtest.Run(command, "", "--strict", bad); code != 1 || !strings.Contains(errs, "bad.txt:4") {
		t.Errorf("--strict: code %d, stderr %q", code, errs)
	}
	if out, _, code := cmdtest.Run(command, "", "--version"); code != 0 || !strings.Contains(out, "pfold") {
		t.Errorf("--version: code %d, out %q", code, out)
	}
	if out, _, code := cmdtest.Run(command, "", "--help"); code != 0 || !strings.Contains(out, "--event-filter") || !strings.Contains(out, "EXAMPLES") {
		t.Errorf("--help: code %d, out %q", code, out)
	}
}

// TestTinyMemoryBudget proves the output is identical with a tiny budget,
// on a dump with thousands of distinct stacks.
func TestTinyMemoryBudget(t *testing.T) {
	dump := "../../testdata/perf/recorded/gobuild.txt.gz"
	want, _, _ := cmdtest.Run(command, "", "--tid", dump)
	if n := strings.Count(want, "\n"); n < 1000 {
		t.Fatalf("only %d stacks", n)
	}
	tmp := t.TempDir()
	got, errs, code := cmdtest.Run(command, "", "--tid", "--mem", "64KiB", "--tmpdir", tmp, "--stats", dump)
	if code != 0 || got != want {
		t.Fatalf("--mem 64KiB: code %d, output differs", code)
	}
	if !strings.Contains(errs, "runs spilled") || strings.Contains(errs, " 0 runs spilled") {
		t.Errorf("nothing spilled: %s", errs)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestStatsConserveCounts(t *testing.T) {
	_, errs, _ := cmdtest.Run(command, "", "--stats", sample)
	for _, s := range []string{"bytes read", "samples folded", "unique stacks", "runs spilled", "malformed"} {
		if !strings.Contains(errs, s) {
			t.Errorf("--stats lacks %q: %s", s, errs)
		}
	}
	// Samples are batched before the tables see them: the count is still
	// of samples (the recording has 1240), whatever -j; the event folded
	// is named, though the recording has no other.
	for _, jobs := range []string{"1", "3"} {
		if _, errs, _ := cmdtest.Run(command, "", "--stats", "-j", jobs, sample); !strings.Contains(errs, " 1240 samples folded (event cpu-clock; 0 of other events") {
			t.Errorf("-j %s: %s", jobs, errs)
		}
	}
}

// The tests below run the built binary: closed pipes, signals and a full
// disk are properties of the process.

func buildPfold(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pfold")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func TestClosedPipeIsQuiet(t *testing.T) {
	bin := buildPfold(t)
	// The output (~2 MB) is larger than a pipe's buffer.
	cmd := exec.Command(bin, "--addrs", "../../testdata/perf/recorded/gobuild.txt.gz")
	stdout, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	io.ReadFull(stdout, buf)
	stdout.Close() // like `pfold big.txt | head -c 10`
	err := cmd.Wait()
	if err != nil || errb.Len() != 0 {
		t.Fatalf("closed pipe: %v, stderr %q", err, errb.String())
	}
}

// TestDiskFullWhileSpilling mounts a tiny tmpfs as --tmpdir (needs root;
// skipped otherwise).
func TestDiskFullWhileSpilling(t *testing.T) {
	dir := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).Run(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (not root?): %v", err)
	}
	defer exec.Command("umount", dir).Run()
	bin := buildPfold(t)
	out := filepath.Join(t.TempDir(), "out.folded")
	cmd := exec.Command(bin, "--tid", "--mem", "16KiB", "--tmpdir", dir, "-o", out, "../../testdata/perf/recorded/gobuild.txt.gz")
	msg, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("disk full: %v, want exit 1\n%s", err, msg)
	}
	if !strings.Contains(string(msg), "no space left") {
		t.Errorf("message does not say the disk is full: %s", msg)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a partial output file was left")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestInterruptRemovesTemporaryFiles sends SIGINT while pfold spills.
func TestInterruptRemovesTemporaryFiles(t *testing.T) {
	bin := buildPfold(t)
	tmp := t.TempDir()
	// A slow input: the dump, then stdin held open, so pfold is still
	// running (with runs spilled) when the signal comes.
	cmd := exec.Command(bin, "--format", "perf-script", "--tid", "--mem", "16KiB", "--tmpdir", tmp, "../../testdata/perf/recorded/gobuild.txt.gz", "-")
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		runs, _ := filepath.Glob(filepath.Join(tmp, "pfold-spill-*", "run-*"))
		if len(runs) > 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("pfold never spilled")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit after SIGINT: %v, want status 130", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left after SIGINT: %v", left)
	}
}

// TestCountsConserved: the sum of the output counts equals the sum of the
// sample weights (periods) in the input, every sample kept.
func TestCountsConserved(t *testing.T) {
	for _, dump := range []string{sample, "../../testdata/perf/layouts/default.txt", "../../testdata/perf/flamegraph/perf-vertx-stacks-01.txt"} {
		var want uint64
		for _, line := range strings.Split(stacktest.ReadFile(t, dump), "\n") {
			f := strings.Fields(line)
			// Headers end with "[TIME:] [PERIOD] EVENT:".
			if len(f) > 2 && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, " ") && strings.HasSuffix(f[len(f)-1], ":") {
				n := uint64(1)
				if strings.HasSuffix(f[len(f)-3], ":") {
					n, _ = strconv.ParseUint(f[len(f)-2], 10, 64)
				}
				want += n
			}
		}
		out, _, _ := cmdtest.Run(command, "", "-j", "2", dump)
		var got uint64
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			n, _ := strconv.ParseUint(line[strings.LastIndexByte(line, ' ')+1:], 10, 64)
			got += n
		}
		if got != want || want == 0 {
			t.Errorf("%s: output counts sum to %d, input weights to %d", dump, got, want)
		}
	}
}

// TestRange: --range's usage errors exit 2, before any input is read;
// an input whose samples have no time is an error with nothing on
// stdout; and the slices of a dump, with --stats, add up to the whole.
func TestRange(t *testing.T) {
	for _, args := range [][]string{
		{"--range", "10"}, {"--range", "a,b"}, {"--range", "2,1"},
		{"--timeraw"}, {"--range", "1,2", "--timeraw", "--timezerosecs"},
	} {
		out, errs, code := cmdtest.Run(command, "", append(args, "/nonexistent/input.txt")...)
		if code != 2 || out != "" || !strings.Contains(errs, "--range") || strings.Contains(errs, "nonexistent") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	for _, j := range []string{"1", "2"} {
		out, errs, code := cmdtest.Run(command, "", "-j", j, "--range", "0,1", "../../testdata/perf/layouts/ip-sym.txt")
		if code != 1 || out != "" || !strings.Contains(errs, "no time") {
			t.Errorf("-j %s, samples without a time: exit %d, stdout %d bytes, stderr %q", j, code, len(out), errs)
		}
	}
	whole, _, _ := cmdtest.Run(command, "", sample)
	var slices string
	for _, r := range []string{",0.2", "0.2,0.4", "0.4,"} {
		out, errs, code := cmdtest.Run(command, "", "--stats", "--range", r, sample)
		if code != 0 || !strings.Contains(errs, "outside --range") {
			t.Fatalf("--range %s: exit %d, stderr %q", r, code, errs)
		}
		slices += out
	}
	// Samples at exactly 0.2 or 0.4 would be in two slices: cwork's
	// times are not (checked by the sums).
	if sum(t, slices) != sum(t, whole) || strings.Count(slices, "\n") <= strings.Count(whole, "\n") {
		t.Errorf("the slices sum to %d, the whole to %d", sum(t, slices), sum(t, whole))
	}
}

// sum adds up the counts of folded lines.
func sum(t *testing.T, folded string) uint64 {
	var n uint64
	for _, line := range strings.Split(strings.TrimSpace(folded), "\n") {
		c, err := strconv.ParseUint(line[strings.LastIndexByte(line, ' ')+1:], 10, 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		n += c
	}
	return n
}

// TestEventFilterTypo: an event the user names that never occurs is an
// error listing the events seen (it was an empty profile and exit 0).
func TestEventFilterTypo(t *testing.T) {
	two := stacktest.ReadFile(t, sample) + strings.ReplaceAll(stacktest.ReadFile(t, "../../testdata/perf/recorded/threadname.perf-script.txt"), "cpu-clock:", "page-faults:")
	for _, j := range []string{"1", "2"} {
		out, errs, code := cmdtest.Run(command, two, "-j", j, "--event-filter", "cpu-clok")
		if code != 1 || out != "" || !strings.Contains(errs, `"cpu-clok"`) || !strings.Contains(errs, "cpu-clock (") || !strings.Contains(errs, "page-faults (") {
			t.Errorf("-j %s: exit %d, stdout %d bytes, stderr %q", j, code, len(out), errs)
		}
		if out, _, code := cmdtest.Run(command, two, "-j", j, "--event-filter", "page-faults"); code != 0 || out == "" {
			t.Errorf("-j %s --event-filter page-faults: exit %d", j, code)
		}
	}
}

// TestGarbageInsideSample: a stray line inside a sample is reported and
// skipped alone; the sample keeps its other frames (the rest of them
// were dropped, without a warning of their own).
func TestGarbageInsideSample(t *testing.T) {
	in := "cwork 123/123 1.000: 1 cpu-clock:\n\t1 leaf (/bin/x)\nGARBAGE LINE HERE\n\t2 mid (/bin/x)\n\t3 root (/bin/x)\n\n" +
		"cwork 123/123 1.001: 1 cpu-clock:\n\t1 leaf (/bin/x)\n\t2 mid (/bin/x)\n\t3 root (/bin/x)\n\n"
	for _, j := range []string{"1", "2"} {
		out, errs, code := cmdtest.Run(command, in, "-j", j)
		if code != 0 || out != "cwork;root;mid;leaf 2\n" || !strings.Contains(errs, "-:3: not a frame line, inside a sample") {
			t.Errorf("-j %s: exit %d, out %q, stderr %q", j, code, out, errs)
		}
		if out, _, code := cmdtest.Run(command, in, "-j", j, "--strict"); code != 1 || out != "" {
			t.Errorf("-j %s --strict: exit %d, out %q", j, code, out)
		}
	}
}

// TestNoPIDField: --pid on a dump without a pid field says once what is
// missing and how to get it (every stack was named comm-? silently).
func TestNoPIDField(t *testing.T) {
	for _, j := range []string{"1", "2"} {
		_, errs, code := cmdtest.Run(command, stacktest.ReadFile(t, sample), "-j", j, "--pid")
		if code != 0 || strings.Count(errs, "perf script -F +pid") != 1 {
			t.Errorf("-j %s: exit %d, stderr %q", j, code, errs)
		}
	}
	if _, errs, _ := cmdtest.Run(command, stacktest.ReadFile(t, sample)); strings.Contains(errs, "+pid") {
		t.Errorf("noted without --pid: %q", errs)
	}
}

// TestSamples: --samples counts each sample once, whatever its period;
// the default weighs samples by their period.
func TestSamples(t *testing.T) {
	sum := func(out string) (n int64) {
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			v, _ := strconv.ParseInt(l[strings.LastIndexByte(l, ' ')+1:], 10, 64)
			n += v
		}
		return n
	}
	for _, j := range []string{"1", "2"} {
		out, _, code := cmdtest.Run(command, stacktest.ReadFile(t, sample), "-j", j, "--samples")
		if n := sum(out); code != 0 || n != 1240 {
			t.Errorf("-j %s --samples: exit %d, %d in all, want 1240 samples", j, code, n)
		}
		out, _, _ = cmdtest.Run(command, stacktest.ReadFile(t, sample), "-j", j)
		if n := sum(out); n != 1240*1001001 {
			t.Errorf("-j %s: %d in all, want 1240 periods of 1001001 ns", j, n)
		}
	}
}

// TestFlagMessages: an option the flag package refuses is named as the
// user typed it ("flag needs an argument: -event-filter" and "invalid
// value \"abc\" for flag -jobs" had one dash).
func TestFlagMessages(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--event-filter"}, "pfold: option --event-filter needs an argument\n"},
		{[]string{"--jobs", "abc"}, "pfold: invalid value \"abc\" for --jobs\n"},
		{[]string{"-j", "abc"}, "pfold: invalid value \"abc\" for -j\n"},
		{[]string{"--bogus"}, "pfold: unknown option --bogus\n"},
	} {
		out, errs, code := cmdtest.Run(command, "", tc.args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestInfernoJobsNames: inferno-collapse-perf's -n and --nthreads are
// -j's other names, so its command lines work as they are.
func TestInfernoJobsNames(t *testing.T) {
	want, _, _ := cmdtest.Run(command, "", "-j", "2", sample)
	for _, args := range [][]string{{"-n", "2"}, {"--nthreads", "2"}, {"--nthreads=1"}} {
		if out, errs, code := cmdtest.Run(command, "", append(args, sample)...); code != 0 || out != want {
			t.Errorf("%v: exit %d, same %v, stderr %q", args, code, out == want, errs)
		}
	}
	if _, errs, code := cmdtest.Run(command, "", "-n", "0", sample); code != 2 || !strings.Contains(errs, "--jobs") {
		t.Errorf("-n 0: exit %d, stderr %q", code, errs)
	}
}

// TestUnusedOptionNoted: an option of no input's format does nothing,
// and says so (--range on a .cpuprofile folded the whole profile without
// a word); on both paths, and not for an option that applies.
func TestUnusedOptionNoted(t *testing.T) {
	want, _, _ := cmdtest.Run(command, "", sample)
	for _, j := range []string{"1", "2"} {
		out, errs, code := cmdtest.Run(command, "", "-j", j, "--range", "0,1000", "--include-tid", sample)
		if code != 0 || out != want || !strings.Contains(errs, "--include-tid did nothing: it is an option of jstack and ibmjava") || strings.Contains(errs, "--range did nothing") {
			t.Errorf("-j %s: exit %d, same output %v, stderr %q", j, code, out == want, errs)
		}
	}
	folded := "../../testdata/perf/recorded/cwork.stackcollapse-perf.folded"
	if _, errs, code := cmdtest.Run(command, "", "--range", "1,2", folded); code != 0 || !strings.Contains(errs, "--range did nothing") {
		t.Errorf("--range on folded stacks: exit %d, stderr %q", code, errs)
	}
}
