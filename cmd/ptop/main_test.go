package main

import (
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
)

func TestFilesStdinAndOutput(t *testing.T) {
	plain, packed := stacktest.PlainAndGzip(t, "main;a 3\n", "main;b;a 1\n")

	got, stdout, stderr, code := cmdtest.RunToFile(t, command, "top.txt", plain, packed, "--stats")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "2 stacks, 0 lines malformed, 3 frames, total 4") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, want := range []string{
		"         4 (100.0%)           4 (100.0%)     a\n",
		"         4 (100.0%)           0   (0.0%)     main\n",
		"         1  (25.0%)           0   (0.0%)     b\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}

	stdout, _, code = cmdtest.Run(command, "main;a 3\nmain;b;a 1\n", "--sort-total", "--limit", "2")
	if code != 0 || !strings.HasSuffix(stdout, "     main\n") || !strings.Contains(stdout, "     a\n") || strings.Contains(stdout, "     b\n") {
		t.Errorf("--sort-total --limit 2: exit %d\n%s", code, stdout)
	}
}

func TestMalformedAndStrict(t *testing.T) {
	in := "a;b 1\nno count\na;b 2\n"
	stdout, stderr, code := cmdtest.Run(command, in)
	if code != 0 || !strings.Contains(stdout, "         3 (100.0%)           3 (100.0%)     b\n") || !strings.Contains(stderr, "-:2:") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if stdout, stderr, code := cmdtest.Run(command, in, "--strict"); code != 1 || stdout != "" || !strings.Contains(stderr, "-:2:") {
		t.Errorf("--strict: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	cmdtest.UsageErrors(t, command, "a 1\n", [][]string{{"--limit", "-1"}, {"--limit", "x"}, {"--bogus"}})
	if _, stderr, code := cmdtest.Run(command, "", "/nonexistent/file"); code != 1 || !strings.Contains(stderr, "/nonexistent/file") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
}

// TestMemIdentical: the output with --mem 8MiB, below what the frame
// table takes, is the output with the default budget, byte for byte.
func TestMemIdentical(t *testing.T) {
	cmdtest.MemIdentical(t, command, false, [][]string{{}, {"--sort-total", "--limit", "50"}})
}
