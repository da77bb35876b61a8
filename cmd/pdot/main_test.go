package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/internal/testenv"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
)

func TestGraph(t *testing.T) {
	in := "main;a 90\nmain;b;a 9\nmain;c 1\n"
	stdout, stderr, code := cmdtest.Run(command, in, "--node-fraction", "0.05", "--stats")
	if code != 0 || !strings.Contains(stderr, "3 stacks, 0 lines malformed, 4 frames, 4 call edges, total 100") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"digraph profile {\n",
		"// dropped 1 of 4 nodes (--node-fraction 0.05: total < 5): c\n",
		`label="a\n99 (99.0%)\r"`,
		`n0 -> n1 [label="90"`,
		"// dropped 1 call edges to or from dropped nodes\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	dot := testenv.NeedTool(t, "Debian package graphviz: rendering", "dot")
	path := stacktest.WriteFile(t, "g.dot", []byte(stdout))
	if out, err := exec.Command(dot, "-Tsvg", path).CombinedOutput(); err != nil || !bytes.Contains(out, []byte("</svg>")) {
		t.Errorf("dot -Tsvg: %v\n%s", err, out)
	}
}

func TestUsageErrors(t *testing.T) {
	cmdtest.UsageErrors(t, command, "a 1\n", [][]string{{"--limit", "-1"}, {"--node-fraction", "1.5"}, {"--node-fraction", "-0.1"}, {"--node-fraction", "NaN"}, {"--bogus"}})
	if stdout, stderr, code := cmdtest.Run(command, "a 1\nbad\n", "--strict"); code != 1 || stdout != "" || !strings.Contains(stderr, "-:2:") {
		t.Errorf("--strict: exit %d, %q, %q", code, stdout, stderr)
	}
}

// TestMemIdentical: the output with --mem 8MiB, where the tables spill,
// is the output with the default budget, byte for byte.
func TestMemIdentical(t *testing.T) {
	cmdtest.MemIdentical(t, command, true, [][]string{{}, {"--limit", "300"}, {"--node-fraction", "0.001"}})
}
