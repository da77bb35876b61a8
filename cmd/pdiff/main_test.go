package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/pdiff/golden")

const data = "../../testdata/pdiff/"

// sortedLines returns text with its lines sorted bytewise.
func sortedLines(text string) string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// sortedCopy writes the lines of name sorted, for the streamed path.
func sortedCopy(t *testing.T, name string) string {
	p := filepath.Join(t.TempDir(), filepath.Base(name))
	// Sort by stack, which is what sortedness means for folded lines.
	lines := strings.Split(strings.TrimSuffix(stacktest.ReadFile(t, name), "\n"), "\n")
	sort.SliceStable(lines, func(i, j int) bool {
		return stackOf(lines[i]) < stackOf(lines[j])
	})
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func stackOf(line string) string {
	if i := strings.LastIndexByte(line, ' '); i >= 0 {
		return line[:i]
	}
	return line
}

// TestInferno compares pdiff with inferno's expected results: the same
// lines, which pdiff writes sorted (inferno in hash order). Each case
// runs on the files as they are (unsorted: aggregated), on sorted copies
// (streamed) and with BEFORE on stdin.
func TestInferno(t *testing.T) {
	for _, tc := range []struct {
		result, before string
		args           []string
	}{
		{"default", "before.txt", nil},
		{"normalize", "before.txt", []string{"-n"}},
		{"normalize", "before.txt", []string{"--normalize"}},
		{"strip_hex", "before.txt", []string{"-s"}},
		{"strip_hex", "before.txt", []string{"--strip-hex"}},
		{"fractionals", "before_fractionals.txt", nil},
	} {
		want := sortedLines(stacktest.ReadFile(t, data+"results/"+tc.result+".txt"))
		before, after := data+tc.before, data+"after.txt"
		for _, way := range []string{"files", "sorted", "stdin"} {
			t.Run(fmt.Sprintf("%s%v/%s", tc.result, tc.args, way), func(t *testing.T) {
				stdin := ""
				b, a := before, after
				switch way {
				case "sorted":
					b, a = sortedCopy(t, before), sortedCopy(t, after)
				case "stdin":
					stdin, b = stacktest.ReadFile(t, before), "-"
				}
				got, stderr, code := cmdtest.Run(command, stdin, append(tc.args, b, a, "--stats")...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if got != want {
					t.Errorf("got\n%swant (inferno's %s.txt, sorted)\n%s", got, tc.result, want)
				}
				how := "aggregated"
				if way == "sorted" && !strings.Contains(strings.Join(tc.args, ""), "s") {
					how = "streamed"
				}
				if !strings.Contains(stderr, "before: total") || !strings.Contains(stderr, "("+how+")") {
					t.Errorf("--stats: want %s: %s", how, stderr)
				}
				if tc.result == "fractionals" && !strings.Contains(stderr, "fractional counts truncated") {
					t.Errorf("no warning about truncated fractions: %s", stderr)
				}
			})
		}
	}
}

func TestBadLine(t *testing.T) {
	// inferno warns about bad_before.txt's line without a count, once.
	got, stderr, code := cmdtest.Run(command, "", data+"bad_before.txt", data+"after.txt")
	if code != 0 || strings.Count(stderr, "warning:") != 1 || !strings.Contains(stderr, "bad_before.txt:3: no count") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if strings.Contains(got, "__fdget_pos_[k] 11") || !strings.Contains(got, "dd;[unknown];read;system_call_[k];__fdget_pos_[k] 0 15\n") {
		t.Errorf("the bad line was not skipped:\n%s", got)
	}
	if _, stderr, code := cmdtest.Run(command, "", "--strict", data+"bad_before.txt", data+"after.txt"); code != 1 || !strings.Contains(stderr, "bad_before.txt:3") {
		t.Errorf("--strict: exit %d: %s", code, stderr)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	stacktest.Golden(t, filepath.Join(data, "golden", name), got, *update)
}

// TestGolden covers options inferno has no expected file for.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"decimals.txt", []string{"--decimals", data + "before_fractionals.txt", data + "after.txt"}},
		{"decimals.normalize.txt", []string{"--decimals", "-n", data + "before_fractionals.txt", data + "after.txt"}},
		{"normalize.strip-hex.txt", []string{"-n", "-s", data + "before.txt", data + "after.txt"}},
		{"reversed.txt", []string{data + "after.txt", data + "before.txt"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			got, stderr, code := cmdtest.Run(command, "", tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden(t, tc.golden, got)
		})
	}
}

// TestDecimalsAsDifffolded: --decimals keeps fractions as difffolded.pl
// does; its sums print at 15 significant digits, ours in the shortest
// form that reads back exactly, so compare the numbers.
func TestDecimalsAsDifffolded(t *testing.T) {
	got, _, _ := cmdtest.Run(command, "", "--decimals", data+"before_fractionals.txt", data+"after.txt")
	for _, want := range []string{
		"dd;[unknown];read 14.234398324872284 13\n",
		"dd;[unknown];read;system_call_[k];__fdget_pos_[k] 11.98 15\n",
		"dd;[unknown];write;system_call_[k];sys_write_[k];vfs_write_[k];fsnotify_[k];__srcu_read_unlock_[k] 20 15\n",
		"dd;write;system_call_[k];sys_write_[k];__fdget_pos_[k];__fdget_[k];__fget_light_[k] 0 12\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestLargeSpilled diffs inputs far larger than a tiny --mem: the
// aggregated sides spill, the sorted ones stream, and all agree.
func TestLargeSpilled(t *testing.T) {
	var before, after strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&before, "app;main;handler_%05d;leaf_%d %d\n", (i*7919)%20000, i%3, 1+i%5)
		if i%4 != 0 {
			fmt.Fprintf(&after, "app;main;handler_%05d;leaf_%d %d\n", (i*104729)%20000, i%3, 2+i%3)
		}
	}
	dir := t.TempDir()
	b, a := filepath.Join(dir, "before"), filepath.Join(dir, "after")
	os.WriteFile(b, []byte(before.String()), 0o644)
	os.WriteFile(a, []byte(after.String()), 0o644)
	want, _, code := cmdtest.Run(command, "", "-n", b, a)
	if code != 0 || strings.Count(want, "\n") < 20000 {
		t.Fatalf("exit %d, %d lines", code, strings.Count(want, "\n"))
	}
	got, stderr, code := cmdtest.Run(command, "", "-n", "--mem", "64KiB", "--tmpdir", t.TempDir(), b, a)
	if code != 0 || got != want {
		t.Errorf("spilled: exit %d, equal %v: %s", code, got == want, stderr)
	}
	got, stderr, code = cmdtest.Run(command, "", "-n", "--stats", sortedCopy(t, b), sortedCopy(t, a))
	if code != 0 || got != want || strings.Count(stderr, "(streamed)") != 2 {
		t.Errorf("streamed: exit %d, equal %v: %s", code, got == want, stderr)
	}
}

func TestUsage(t *testing.T) {
	cmdtest.UsageErrors(t, command, "", [][]string{{}, {data + "before.txt"}, {data + "before.txt", data + "after.txt", data + "after.txt"}, {"-", "-"}, {"--bogus", "a", "b"}})
	if _, _, code := cmdtest.Run(command, "", data+"missing.txt", data+"after.txt"); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
}
