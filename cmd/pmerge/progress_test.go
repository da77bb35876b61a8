package main

import (
	"fmt"
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

// TestProgress: with --progress, pmerge shows the data it reads, the
// compressed bytes beside, and the stacks, on every path: sorted files
// mapped, a compressed one streamed, unsorted files and standard input
// aggregated. Sorted regular files get a line for the first pass that
// checks their order, then one for the merge.
func TestProgress(t *testing.T) {
	a, b, unsorted, gz, gzUnsorted, aText := progressInputs(t)
	plain := stacktest.FileSize(t, a) // every plain input has this size
	cmdtest.CheckProgress(t, command, []cmdtest.ProgressCase{
		{Name: "sorted files, mapped", Args: []string{a, b}, Check: true, Final: cmdtest.Final{Data: 2 * plain, Raw: 2 * plain, Total: 2 * plain, Stacks: 40}},
		{Name: "sorted files, one compressed, streamed", Args: []string{gz, b}, Check: true, Final: cmdtest.Final{Data: 2 * plain, Raw: stacktest.FileSize(t, gz) + plain, Total: stacktest.FileSize(t, gz) + plain, Stacks: 40}},
		{Name: "an unsorted file, aggregated", Args: []string{unsorted, a}, Check: true, Final: cmdtest.Final{Data: 2 * plain, Raw: 2 * plain, Total: 2 * plain, Stacks: 40}},
		{Name: "an unsorted compressed file, aggregated", Args: []string{gzUnsorted, a}, Check: true, Final: cmdtest.Final{Data: 2 * plain, Raw: stacktest.FileSize(t, gzUnsorted) + plain, Total: stacktest.FileSize(t, gzUnsorted) + plain, Stacks: 40}},
		{Name: "standard input, aggregated", Stdin: aText, Args: []string{"-", b}, Check: false, Final: cmdtest.Final{Data: 2 * plain, Raw: 2 * plain, Total: -1, Stacks: 40}},
	})
}

// TestProgressOnTerminal: on a terminal, without --progress, the line
// shows a compressed input's data and stacks.
func TestProgressOnTerminal(t *testing.T) {
	_, b, _, gz, _, _ := progressInputs(t)
	cmdtest.CheckProgressOnTerminal(t, command, cmdtest.Final{Data: 2 * stacktest.FileSize(t, b), Raw: stacktest.FileSize(t, gz) + stacktest.FileSize(t, b), Total: stacktest.FileSize(t, gz) + stacktest.FileSize(t, b), Stacks: 40}, gz, b)
}
