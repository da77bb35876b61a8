package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/internal/testenv"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/pmerge/golden")

const (
	iperf      = "../../testdata/pfilter/iperf.folded"
	cwork      = "../../testdata/perf/recorded/cwork.stackcollapse-perf.folded"
	threadname = "../../testdata/perf/recorded/threadname.stackcollapse-perf.folded"
)

func golden(t *testing.T, name, got string) {
	t.Helper()
	stacktest.Golden(t, filepath.Join("../../testdata/pmerge/golden", name), got, *update)
}

// reference sums the stacks of folded texts with a map and sorts them: the
// plainest statement of what pmerge computes, for integer counts.
func reference(t *testing.T, weights []uint64, texts ...string) string {
	t.Helper()
	sums := map[string]uint64{}
	for i, text := range texts {
		for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
			j := strings.LastIndexByte(l, ' ')
			var n uint64
			if _, err := fmt.Sscan(l[j+1:], &n); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			w := uint64(1)
			if weights != nil {
				w = weights[i]
			}
			sums[l[:j]] += n * w
		}
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %d\n", k, sums[k])
	}
	return b.String()
}

func read(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
		want   string // the reference result, when it is an integer sum
	}{
		{"default.folded", []string{iperf, cwork, threadname}, reference(t, nil, stacktest.ReadFile(t, iperf), stacktest.ReadFile(t, cwork), stacktest.ReadFile(t, threadname))},
		{"weight.folded", []string{"--weight", cwork + "=3", iperf, cwork}, reference(t, []uint64{1, 3}, stacktest.ReadFile(t, iperf), stacktest.ReadFile(t, cwork))},
		{"weight-half.folded", []string{"--weight=" + iperf + "=0.5", iperf, threadname}, ""},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			stdout, stderr, code := cmdtest.Run(command, "", tc.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if tc.want != "" && stdout != tc.want {
				t.Errorf("output differs from a map sum of the inputs")
			}
			golden(t, tc.golden, stdout)
		})
	}
}

// TestStreamedOrAggregated checks that sorted files (streamed), stdin and
// unsorted files (aggregated), and a spilling aggregation write the same
// bytes, and that --stats says which way was taken.
func TestStreamedOrAggregated(t *testing.T) {
	want, _, _ := cmdtest.Run(command, "", iperf, cwork)
	lines := strings.SplitAfter(stacktest.ReadFile(t, iperf), "\n")
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	reversed := stacktest.WriteFile(t, "reversed.folded", []byte(strings.Join(lines, "")))
	compressed := stacktest.GzipFile(t, "iperf.folded.gz", []byte(stacktest.ReadFile(t, iperf)))

	for _, tc := range []struct {
		name, stdin string
		args        []string
		how         string
	}{
		{"sorted files", "", []string{iperf, cwork}, "streamed merge"},
		{"compressed sorted file", "", []string{compressed, cwork}, "streamed merge"},
		{"stdin", stacktest.ReadFile(t, cwork), []string{iperf, "-"}, "aggregated (- is not a regular file)"},
		{"unsorted file", "", []string{reversed, cwork}, "reversed.folded:2 is not sorted"},
		{"spilled", "", []string{reversed, cwork, "--mem", "8KiB", "--tmpdir", t.TempDir()}, "runs spilled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := cmdtest.Run(command, tc.stdin, append(tc.args, "--stats")...)
			if code != 0 || stdout != want {
				t.Errorf("exit %d, output equal %v: %s", code, stdout == want, stderr)
			}
			if !strings.Contains(stderr, tc.how) {
				t.Errorf("--stats lacks %q: %s", tc.how, stderr)
			}
			if tc.name == "spilled" && strings.Contains(stderr, " 0 runs spilled") {
				t.Errorf("nothing spilled: %s", stderr)
			}
		})
	}
}

func TestMalformedAndErrors(t *testing.T) {
	dir := t.TempDir()
	bad := stacktest.WriteFile(t, "bad.folded", []byte("a;b 1\nno-count\na;c -3\na;c 2\n"))
	stdout, stderr, code := cmdtest.Run(command, "", bad, "--stats")
	if code != 0 || stdout != "a;b 1\na;c 2\n" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	for _, want := range []string{"bad.folded:2: no count", "bad.folded:3: bad count", "2 lines malformed", "total in 3, total out 3"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, stderr, code := cmdtest.Run(command, "", bad, "--strict"); code != 1 || !strings.Contains(stderr, "bad.folded:2") {
		t.Errorf("--strict: exit %d: %s", code, stderr)
	}
	big := stacktest.WriteFile(t, "big.folded", []byte("a 18446744073709551615\n"))
	if _, stderr, code := cmdtest.Run(command, "", big, bad); code != 1 || !strings.Contains(stderr, "overflow") {
		t.Errorf("overflow: exit %d: %s", code, stderr)
	}
	cmdtest.UsageErrors(t, command, "", [][]string{
		{"--weight", "x=1", bad},
		{"--weight", bad, bad},
		{"--weight", bad + "=-1", bad},
		{"--weight", bad + "=abc", bad},
		{"--mem", "lots", bad},
		{"--bogus", bad},
	})
	if _, _, code := cmdtest.Run(command, "", filepath.Join(dir, "missing")); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds pfold and pmerge for the scale-out recipe, which runs
// them as separate processes, as a user would.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "pmerge-test-bin-")
		if buildErr != nil {
			return
		}
		gobin := "go"
		out, err := exec.Command(gobin, "build", "-o", binDir, "github.com/pfold/pfold/cmd/pfold", "github.com/pfold/pfold/cmd/pmerge").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// TestScaleOut runs the README's recipe on real perf dumps: split the
// dump at sample boundaries with scripts/split-perf-script, pfold the
// shards in parallel (xargs -P), pmerge the results. The output must be
// byte-identical to pfold of the whole dump.
func TestScaleOut(t *testing.T) {
	testenv.NeedTool(t, "split-perf-script is awk", "awk")
	bin := binaries(t)
	script, _ := filepath.Abs("../../scripts/split-perf-script")
	dumps, _ := filepath.Glob("../../testdata/perf/recorded/*.txt*")
	more, _ := filepath.Glob("../../testdata/perf/flamegraph/*.txt")
	dumps = append(dumps, more...)
	if len(dumps) < 10 {
		t.Fatalf("only %d perf dumps found", len(dumps))
	}
	for _, dump := range dumps {
		if strings.Contains(dump, "cycles-instructions") {
			continue // two events: TestScaleOutEventFilter
		}
		for _, shards := range []string{"2", "7"} {
			t.Run(filepath.Base(dump)+"/"+shards, func(t *testing.T) {
				dir := t.TempDir()
				text := filepath.Join(dir, "perf.txt")
				if err := os.WriteFile(text, []byte(decompressed(t, dump)), 0o644); err != nil {
					t.Fatal(err)
				}
				env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
				recipe := fmt.Sprintf(`set -e
%s -n %s -p shard- perf.txt | xargs -P 4 -I{} sh -c 'pfold {} > {}.folded'
pmerge shard-*.txt.folded > merged.folded
pfold perf.txt > whole.folded
cat shard-*.txt | cmp - perf.txt
ls shard-*.txt | wc -l > count`, script, shards)
				cmd := exec.Command("sh", "-c", recipe)
				cmd.Dir, cmd.Env = dir, env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				merged, whole := stacktest.ReadFile(t, filepath.Join(dir, "merged.folded")), stacktest.ReadFile(t, filepath.Join(dir, "whole.folded"))
				if strings.Count(whole, "\n") == 0 {
					t.Fatal("pfold folded nothing")
				}
				t.Logf("%s shards", strings.TrimSpace(stacktest.ReadFile(t, filepath.Join(dir, "count"))))
				if merged != whole {
					ml, wl := strings.Split(merged, "\n"), strings.Split(whole, "\n")
					for i := 0; i < len(ml) && i < len(wl); i++ {
						if ml[i] != wl[i] {
							t.Errorf("pmerge of the shards differs from pfold of the whole dump at line %d:\n  merged: %.300s\n  whole:  %.300s", i+1, ml[i], wl[i])
							break
						}
					}
					t.Errorf("pmerge of the shards differs from pfold of the whole dump (%d and %d lines)", len(ml), len(wl))
				}
			})
		}
	}
}

func decompressed(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestScaleOutEventFilter: with several events in a dump, each shard's
// pfold must be told the event, since by default it keeps the first one it
// sees.
func TestScaleOutEventFilter(t *testing.T) {
	bin := binaries(t)
	script, _ := filepath.Abs("../../scripts/split-perf-script")
	dump, _ := filepath.Abs("../../testdata/perf/flamegraph/perf-cycles-instructions-01.txt")
	for _, event := range []string{"cycles", "instructions"} {
		dir := t.TempDir()
		recipe := fmt.Sprintf(`set -e
%s -b 4k -p shard- %s | xargs -P 4 -I{} sh -c 'pfold --event-filter %s {} > {}.folded'
pmerge shard-*.txt.folded > merged.folded
pfold --event-filter %s %s > whole.folded`, script, dump, event, event, dump)
		cmd := exec.Command("sh", "-c", recipe)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		merged, whole := stacktest.ReadFile(t, filepath.Join(dir, "merged.folded")), stacktest.ReadFile(t, filepath.Join(dir, "whole.folded"))
		if merged != whole || whole == "" {
			t.Errorf("%s: pmerge of the shards differs from pfold of the whole dump", event)
		}
	}
}

func TestSplitScriptUsage(t *testing.T) {
	script := "../../scripts/split-perf-script"
	for _, args := range [][]string{{}, {"-n", "0", "x"}, {"-n", "2"}, {"-b", "x"}, {"-n", "2", "-b", "1", "x"}, {"a", "b"}} {
		cmd := exec.Command("sh", append([]string{script}, args...)...)
		cmd.Stdin = strings.NewReader("")
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit 2", args, err)
		}
	}
	// -b on stdin: every shard but the last ends at a blank line.
	var in strings.Builder
	for i := range 50 {
		fmt.Fprintf(&in, "cmd %d cpu-clock:\n\tffff f%d (x)\n\n", i, i)
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", script, "-b", "100", "-p", filepath.Join(dir, "s-"))
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(string(out))
	if len(names) < 10 {
		t.Fatalf("%d shards, want more than 10", len(names))
	}
	var all strings.Builder
	for i, n := range names {
		s := stacktest.ReadFile(t, n)
		all.WriteString(s)
		if i < len(names)-1 && !strings.HasSuffix(s, "\n\n") {
			t.Errorf("%s does not end at a sample boundary: %q", n, s)
		}
	}
	if all.String() != in.String() {
		t.Error("the shards do not add up to the input")
	}
}

// TestDecimalOverflowNamesStack: summing decimals past float64 fails,
// naming the stack, with nothing on stdout (it printed +Inf.0 before).
func TestDecimalOverflowNamesStack(t *testing.T) {
	out, errs, code := cmdtest.Run(command, "a;b 1e308\na;b 1e308\n")
	if code != 1 || out != "" || !strings.Contains(errs, `"a;b"`) || !strings.Contains(errs, "overflows") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
