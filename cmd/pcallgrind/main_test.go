package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pfold/pfold/callgrind"
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
)

func TestFilesInOrderCompressedAndOutput(t *testing.T) {
	// The second file continues the first: "a;b" goes on, so a→b is one call.
	first, second := stacktest.PlainAndGzip(t, "a;b 2\n", "a;b;c 3\n")

	got, stdout, stderr, code := cmdtest.RunToFile(t, command, "out.callgrind", first, second, "--event", "cpu-clock", "--no-compress")
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, want := range []string{"events: cpu-clock\nsummary: 5\n", "fn=a\ncfl=???\ncfn=b\ncalls=1 0\n0 5\n", "fn=b\n0 2\ncfl=???\ncfn=c\ncalls=1 0\n0 3\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestMalformedLines(t *testing.T) {
	in := "a;b 1\nno count here\n\na;c x\na;c 2\n"
	stdout, stderr, code := cmdtest.Run(command, in, "--stats")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "summary: 3\n") {
		t.Errorf("summary of the good lines missing:\n%s", stdout)
	}
	for _, want := range []string{"-:2:", `"no count here"`, "-:4:", "2 lines malformed", "total 3"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	stdout, stderr, code = cmdtest.Run(command, in, "--strict")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "-:2:") {
		t.Errorf("--strict: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	cmdtest.UsageErrors(t, command, "a 1\n", [][]string{{"--event", "two words"}, {"--event", ""}, {"--bogus"}})
	if _, _, code := cmdtest.Run(command, "", "/nonexistent/x.folded"); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
}

func TestDecimalWarning(t *testing.T) {
	stdout, stderr, code := cmdtest.Run(command, "a;b 0.4\na;b 0.4\n")
	if code != 0 || !strings.Contains(stderr, "rounded") || !strings.Contains(stdout, "summary: 1\n") {
		t.Errorf("exit %d, stderr %q\n%s", code, stderr, stdout)
	}
}

// Lines are read a batch ahead of the profile: many batches give what
// adding the stacks one by one gives, and an error names its line.
func TestBatchesAddInOrder(t *testing.T) {
	var in strings.Builder
	lines := 0
	for in.Len() < 3*stackBatchBytes {
		lines++
		fmt.Fprintf(&in, "main;f%d;g%d;h%d %d\n", lines%7, lines%13, lines, lines%5+1)
	}
	prof := callgrind.New(callgrind.Options{Creator: "pcallgrind " + cmdutil.Version()})
	for line := range strings.Lines(in.String()) {
		stack, c, err := fold.ParseLine([]byte(strings.TrimSuffix(line, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		if err := prof.Add(stack, c); err != nil {
			t.Fatal(err)
		}
	}
	var want strings.Builder
	prof.WriteTo(&want)
	stdout, stderr, code := cmdtest.Run(command, in.String())
	if code != 0 || stderr != "" || stdout != want.String() {
		t.Fatalf("exit %d, stderr %q, output differs from adding the stacks one by one: %t", code, stderr, stdout != want.String())
	}

	in.WriteString("x 18446744073709551615\nx 1\n")
	_, stderr, code = cmdtest.Run(command, in.String())
	if want := fmt.Sprintf("-:%d:", lines+1); code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("overflow: exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// TestMemIdentical: the output with --mem 8MiB, where the tables go
// external and spill, is the output with the default budget, byte for
// byte.
func TestMemIdentical(t *testing.T) {
	cmdtest.MemIdentical(t, command, true, [][]string{{}, {"--no-compress"}})
}
