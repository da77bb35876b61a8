package callgrind

import (
	"bytes"
	"github.com/pfold/pfold/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// annotate runs callgrind_annotate (Debian package valgrind) on a
// callgrind file and returns the program total and each function's cost
// ("file:name") as it prints them. It fails on anything it writes to
// stderr: the warnings it gives for malformed lines.
func annotate(t *testing.T, path string, inclusive bool) (total uint64, costs map[string]uint64) {
	t.Helper()
	args := []string{"--auto=no", "--threshold=100", path}
	if inclusive {
		args = append([]string{"--inclusive=yes"}, args...)
	}
	cmd := exec.Command("callgrind_annotate", args...)
	cmd.Dir = t.TempDir() // it strips the working directory from file names
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("callgrind_annotate %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Fatalf("callgrind_annotate %s complained:\n%s", strings.Join(args, " "), stderr.String())
	}
	row := regexp.MustCompile(`^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$`)
	costs = map[string]uint64{}
	sawTotal := false
	for _, line := range strings.Split(stdout.String(), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, err := strconv.ParseUint(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch m[2] {
		case "PROGRAM TOTALS":
			total, sawTotal = n, true
		case "PROGRAM TOTALS (calculated)":
			t.Errorf("callgrind_annotate calculated the total itself: no summary: line read")
			total, sawTotal = n, true
		default:
			costs[m[2]] += n
		}
	}
	if !sawTotal {
		t.Fatalf("no PROGRAM TOTALS in\n%s", stdout.String())
	}
	return total, costs
}

// TestCallgrindAnnotate checks pcallgrind's output with the real reader:
// the program total is the sum of the folded counts; each function's
// exclusive cost is the counts of the stacks whose leaf it is; with
// --inclusive=yes, the counts of the stacks that contain it, once per
// stack however often it recurses.
func TestCallgrindAnnotate(t *testing.T) {
	testenv.NeedTool(t, "Debian package valgrind: the checks with the real reader", "callgrind_annotate")
	inputs := map[string]string{"rbspy": rbspyStacks, "mutual-recursion": "a;b;a;b 3\na;b 1\nx;b;c;b;d 4\n",
		"odd-names": "(1) x;;b 1\n(1) x;(2) y 2\n \f(3) z;w 3\n"}
	for _, name := range []string{"cwork.folded", "stackprof-cpu.folded", "vertx.folded", "js.folded", "locations.folded"} {
		inputs[name] = readFile(t, name)
	}
	for name, in := range inputs {
		for _, opts := range []Options{{}, {NoCompress: true, Event: "cpu-clock"}} {
			t.Run(name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "out.callgrind")
				if err := os.WriteFile(path, []byte(convert(t, in, opts)), 0o644); err != nil {
					t.Fatal(err)
				}
				tr := stacksTruth(t, in)

				total, excl := annotate(t, path, false)
				if total != tr.total {
					t.Errorf("program total %d, want the sum of the counts %d", total, tr.total)
				}
				if d := diff(without0(excl), without0(tr.leaf)); d != "" {
					t.Errorf("exclusive costs (callgrind_annotate, stacks):%s", d)
				}

				total, incl := annotate(t, path, true)
				if total != tr.total {
					t.Errorf("inclusive: program total %d, want %d", total, tr.total)
				}
				if d := diff(without0(incl), without0(tr.cont)); d != "" {
					t.Errorf("inclusive costs (callgrind_annotate, stacks):%s", d)
				}
				for f, v := range incl {
					if v > tr.total {
						t.Errorf("%s: inclusive %d exceeds the total %d", f, v, tr.total)
					}
				}
			})
		}
	}
}

// TestRejectCases runs the malformed files of the shared fixtures
// (callgrind/reject: what callgrind_annotate misreads or refuses), with a
// summary: line added, through the structural checks every output of ours
// passes in read, so those checks are known to catch each mistake; the
// well-formed ok-two-fns must pass.
func TestRejectCases(t *testing.T) {
	for name, text := range map[string]string{
		"calls-zero":             "events: S\nsummary: 6\nfl=a\nfn=f\n1 1\ncfn=g\ncalls=0 1\n1 5\n",
		"positions-after-events": "events: S\npositions: line\nsummary: 1\nfl=a\nfn=f\n1 1\n",
		"version2":               "version: 2\nevents: S\nsummary: 1\nfl=a\nfn=f\n1 1\n",
		"too-many-costs":         "events: S\nsummary: 1\nfl=a\nfn=f\n1 1 2\n",
		"undefined-id":           "events: S\nsummary: 1\nfl=(1) a\nfn=(1) f\n1 1\ncfn=(9)\ncalls=1 1\n1 5\n",
		"malformed-body":         "events: S\nsummary: 1\nfl=a\nfn=f\nfoo bar\n1 1\n",
		"bogus-header":           "creator: x\nbogus header\nevents: S\nsummary: 3\nfl=a\nfn=f\n16 3\n",
		"no-events":              "summary: 1\nfl=a\nfn=f\n1 1\n",
		"ok-two-fns":             "events: S\nsummary: 9\nfl=a\nfn=f\n1 1\ncfn=g\ncalls=2 5\n1 4\nfn=g\n5 4\n",
	} {
		t.Run(name, func(t *testing.T) {
			ft := &fatalRecorder{}
			func() {
				defer func() { recover() }()
				read(ft, text)
			}()
			if want := name != "ok-two-fns"; ft.failed != want {
				t.Errorf("read failed %v on the %s case, want %v", ft.failed, name, want)
			}
		})
	}
}

// fatalRecorder is a testing.TB whose Fatal stops the goroutine's work by
// panicking, so a test can check that a check fails.
type fatalRecorder struct {
	testing.TB
	failed bool
}

func (f *fatalRecorder) Helper() {}
func (f *fatalRecorder) Fatal(args ...any) {
	f.failed = true
	panic("fatal")
}
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.failed = true
	panic("fatal")
}
