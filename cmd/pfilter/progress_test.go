package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
)

// TestProgress: with --progress, pfilter shows the data it reads and the
// stacks on every path. A sorted regular file, read twice (the stacks
// the transforms leave alone are merged from a second read), gets a
// line for the first pass, then one for the second; a file the
// transforms rewrite whole, and standard input, are read once.
func TestProgress(t *testing.T) {
	var text strings.Builder
	for i := range 20 {
		fmt.Fprintf(&text, "main;a%02d;leaf 1\n", i)
	}
	plain := stacktest.WriteFile(t, "a.folded", []byte(text.String()))
	gz := stacktest.GzipFile(t, "a.folded.gz", []byte(text.String()))
	size, gzSize := stacktest.FileSize(t, plain), stacktest.FileSize(t, gz)
	firstPass := regexp.MustCompile(`^pfilter: first pass: \d+ B read`)
	for _, tc := range []struct {
		name, stdin string
		args        []string
		first       bool
		final       cmdtest.Final
	}{
		{"sorted file, read twice", "", []string{"--drop-frame", "a03", plain}, true, cmdtest.Final{Data: size, Raw: size, Total: size, Stacks: 20}},
		{"sorted compressed file, read twice", "", []string{"--drop-frame", "a03", gz}, true, cmdtest.Final{Data: size, Raw: gzSize, Total: gzSize, Stacks: 20}},
		{"standard input, read once", text.String(), []string{"--drop-frame", "a03"}, false, cmdtest.Final{Data: size, Raw: size, Total: -1, Stacks: 20}},
	} {
		lines, stderr, status := cmdtest.ProgressLines(t, command, strings.NewReader(tc.stdin), append([]string{"--progress"}, tc.args...)...)
		if status != 0 {
			t.Fatalf("%s: exit %d: %q", tc.name, status, stderr)
		}
		if want := cmdtest.FinalLine("pfilter", tc.final); !cmdtest.HasLine(lines, want) {
			t.Errorf("%s: no progress line matches %s; lines drawn:\n%s", tc.name, want, strings.Join(lines, "\n"))
		}
		if got := cmdtest.HasLine(lines, firstPass); got != tc.first {
			t.Errorf("%s: a line of the first pass: %v, want %v; lines drawn:\n%s", tc.name, got, tc.first, strings.Join(lines, "\n"))
		}
		if lines, stderr, _ := cmdtest.ProgressLines(t, command, strings.NewReader(tc.stdin), append([]string{"--progress", "--no-progress"}, tc.args...)...); len(lines) > 0 || stderr != "" {
			t.Errorf("%s: --no-progress: %q", tc.name, stderr)
		}
	}
}
