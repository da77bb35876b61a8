package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
)

// progressInputs writes the inputs of the progress tests: two sorted
// files of 20 stacks each, a copy of the second in reverse order, and
// gzipped copies of the first and of the reversed one.
func progressInputs(t *testing.T) (a, b, unsorted, gz, gzUnsorted string, aText string) {
	var at, bt, ut strings.Builder
	for i := range 20 {
		fmt.Fprintf(&at, "main;a%02d 1\n", i)
		fmt.Fprintf(&bt, "main;b%02d 2\n", i)
		fmt.Fprintf(&ut, "main;b%02d 2\n", 19-i)
	}
	return stacktest.WriteFile(t, "a.folded", []byte(at.String())), stacktest.WriteFile(t, "b.folded", []byte(bt.String())),
		stacktest.WriteFile(t, "u.folded", []byte(ut.String())), stacktest.GzipFile(t, "a.folded.gz", []byte(at.String())),
		stacktest.GzipFile(t, "u.folded.gz", []byte(ut.String())), at.String()
}

func size(t *testing.T, name string) int64 {
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestProgress: with --progress, pmerge shows the data it reads, the
// compressed bytes beside, and the stacks, on every path: sorted files
// mapped, a compressed one streamed, unsorted files and standard input
// aggregated. Sorted regular files get a line for the first pass that
// checks their order, then one for the merge.
func TestProgress(t *testing.T) {
	a, b, unsorted, gz, gzUnsorted, aText := progressInputs(t)
	plain := size(t, a) // every plain input has this size
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		check bool // a first pass checks the order
		final cmdtest.Final
	}{
		{"sorted files, mapped", "", []string{a, b}, true, cmdtest.Final{Data: 2 * plain, Raw: 2 * plain, Total: 2 * plain, Stacks: 40}},
		{"sorted files, one compressed, streamed", "", []string{gz, b}, true, cmdtest.Final{Data: 2 * plain, Raw: size(t, gz) + plain, Total: size(t, gz) + plain, Stacks: 40}},
		{"an unsorted file, aggregated", "", []string{unsorted, a}, true, cmdtest.Final{Data: 2 * plain, Raw: 2 * plain, Total: 2 * plain, Stacks: 40}},
		{"an unsorted compressed file, aggregated", "", []string{gzUnsorted, a}, true, cmdtest.Final{Data: 2 * plain, Raw: size(t, gzUnsorted) + plain, Total: size(t, gzUnsorted) + plain, Stacks: 40}},
		{"standard input, aggregated", aText, []string{"-", b}, false, cmdtest.Final{Data: 2 * plain, Raw: 2 * plain, Total: -1, Stacks: 40}},
	} {
		lines, stderr, status := cmdtest.ProgressLines(t, command, strings.NewReader(tc.stdin), append([]string{"--progress"}, tc.args...)...)
		if status != 0 {
			t.Fatalf("%s: exit %d: %q", tc.name, status, stderr)
		}
		if want := cmdtest.FinalLine("pmerge", tc.final); !cmdtest.HasLine(lines, want) {
			t.Errorf("%s: no progress line matches %s; lines drawn:\n%s", tc.name, want, strings.Join(lines, "\n"))
		}
		if checking := cmdtest.HasLine(lines, checkingOrder); checking != tc.check {
			t.Errorf("%s: a line of the pass that checks the order: %v, want %v; lines drawn:\n%s", tc.name, checking, tc.check, strings.Join(lines, "\n"))
		}
		if lines, stderr, _ := cmdtest.ProgressLines(t, command, strings.NewReader(tc.stdin), append([]string{"--progress", "--no-progress"}, tc.args...)...); len(lines) > 0 || stderr != "" {
			t.Errorf("%s: --no-progress: %q", tc.name, stderr)
		}
	}
}

// checkingOrder is any line of the first pass over sorted files.
var checkingOrder = regexp.MustCompile(`^pmerge: checking order: \d+ B read`)

// TestProgressOnTerminal: on a terminal, without --progress, the line
// shows a compressed input's data and stacks.
func TestProgressOnTerminal(t *testing.T) {
	_, b, _, gz, _, _ := progressInputs(t)
	lines, status := cmdtest.ProgressOnTerminal(t, command, gz, b)
	want := cmdtest.FinalLine("pmerge", cmdtest.Final{Data: 2 * size(t, b), Raw: size(t, gz) + size(t, b), Total: size(t, gz) + size(t, b), Stacks: 40})
	if status != 0 || !cmdtest.HasLine(lines, want) {
		t.Errorf("exit %d; no line on the terminal matches %s; lines drawn:\n%s", status, want, strings.Join(lines, "\n"))
	}
	if lines, _ := cmdtest.ProgressOnTerminal(t, command, "--no-progress", gz, b); len(lines) > 0 {
		t.Errorf("--no-progress on the terminal: %q", lines)
	}
}
