package main

import (
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/pfilter/golden")

const iperf = "../../testdata/pfilter/iperf.folded"

func golden(t *testing.T, name, got string) {
	t.Helper()
	stacktest.Golden(t, filepath.Join("../../testdata/pfilter/golden", name), got, *update)
}

// totals parses --stats: the total in, the total out and what each
// transform dropped must add up.
var statsRE = regexp.MustCompile(`total (\d+)\)`)

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"grep=tcp_sendmsg.folded", []string{"--grep", "tcp_sendmsg"}},
		{"grep-v=schedule.folded", []string{"--grep-v", "schedule"}},
		{"focus=sys_recvfrom.folded", []string{"--focus", "^sys_recvfrom$"}},
		{"from=entry_SYSCALL_64_fastpath.folded", []string{"--from", "^entry_SYSCALL_64_fastpath$"}},
		{"to=tcp_recvmsg.folded", []string{"--to", "^tcp_recvmsg$"}},
		{"drop-frame=unknown.folded", []string{"--drop-frame", `^\[unknown`}},
		{"replace=threads.folded", []string{"--replace", `s/^iperf-[0-9]+\/[0-9]+$/iperf/`}},
		{"replace=addrs.strip-addrs.folded", []string{"--replace", `s/<([0-9a-f]+)>/0x\1/`, "--strip-addrs"}},
		{"replace=g.i.folded", []string{"--replace", `s/TCP_/T_/gi`}},
		{"no-root.folded", []string{"--no-root"}},
		{"max-depth=3.folded", []string{"--max-depth", "3"}},
		{"min-count=2.folded", []string{"--min-count", "2"}},
		{"top=5.folded", []string{"--top", "5"}},
		{"no-root.top=5.folded", []string{"--no-root", "--top", "5"}},
		{"no-root.no-merge.folded", []string{"--no-root", "--no-merge"}},
		{"no-root.min-count=3.folded", []string{"--no-root", "--min-count=3"}},
		{"no-root.min-count=3.no-merge.folded", []string{"--no-root", "--min-count=3", "--no-merge"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			stdout, stderr, code := cmdtest.Run(command, "", append([]string{iperf, "--stats"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden(t, tc.golden, stdout)
			// The counts in, out and dropped add up.
			m := statsRE.FindAllStringSubmatch(stderr, -1)
			if len(m) < 2 {
				t.Fatalf("--stats: %s", stderr)
			}
			var in, rest int
			for i, s := range m {
				var n int
				for _, d := range s[1] {
					n = 10*n + int(d-'0')
				}
				if i == 0 {
					in = n
				} else {
					rest += n
				}
			}
			if in != rest {
				t.Errorf("total in %d, out plus dropped %d: %s", in, rest, stderr)
			}
		})
	}
}

func TestGrepMatchesFrames(t *testing.T) {
	// --grep keeps exactly the input lines with a frame matching RE.
	re := regexp.MustCompile(`^tcp_.*msg$`)
	var want strings.Builder
	for _, l := range strings.SplitAfter(stacktest.ReadFile(t, iperf), "\n") {
		if l == "" {
			continue
		}
		stack := l[:strings.LastIndexByte(l, ' ')]
		for _, f := range strings.Split(stack, ";") {
			if re.MatchString(f) {
				want.WriteString(l)
				break
			}
		}
	}
	got, _, _ := cmdtest.Run(command, "", "--grep", re.String(), iperf)
	if got != want.String() || got == "" {
		t.Errorf("--grep differs from a frame-by-frame match")
	}
}

func TestOrderMatters(t *testing.T) {
	in := "p;tcp_sendmsg;x 1\np;udp_sendmsg;y 2\n"
	a, _, _ := cmdtest.Run(command, in, "--replace", "s/^udp_/tcp_/", "--grep", "^tcp_sendmsg$")
	b, _, _ := cmdtest.Run(command, in, "--grep", "^tcp_sendmsg$", "--replace", "s/^udp_/tcp_/")
	if a != "p;tcp_sendmsg;x 1\np;tcp_sendmsg;y 2\n" || b != "p;tcp_sendmsg;x 1\n" {
		t.Errorf("replace then grep: %q; grep then replace: %q", a, b)
	}
	// Options after the file keep their order too.
	c, _, _ := cmdtest.Run(command, "", "-", "--grep", "^tcp_sendmsg$", "--replace", "s/^udp_/tcp_/")
	d, _, _ := cmdtest.Run(command, in, "--replace", "s/^udp_/tcp_/", "-", "--grep", "^tcp_sendmsg$")
	if c != "" || d != a {
		t.Errorf("options after files: %q, %q", c, d)
	}
	// --no-root then --max-depth 1 keeps the second frame; the other way
	// round drops every stack.
	e, _, _ := cmdtest.Run(command, in, "--no-root", "--max-depth", "1")
	f, _, _ := cmdtest.Run(command, in, "--max-depth", "1", "--no-root")
	if e != "tcp_sendmsg 1\nudp_sendmsg 2\n" || f != "" {
		t.Errorf("--no-root --max-depth 1: %q; --max-depth 1 --no-root: %q", e, f)
	}
}

func TestSkipAfterIsFrom(t *testing.T) {
	a, _, _ := cmdtest.Run(command, "", iperf, "--from", "^sock_recvmsg$")
	b, _, _ := cmdtest.Run(command, "", iperf, "--skip-after", "^sock_recvmsg$")
	if a != b || a == stacktest.ReadFile(t, iperf) {
		t.Errorf("--skip-after differs from --from, or changed nothing")
	}
	// Two --replace in order.
	c, _, _ := cmdtest.Run(command, "a;b 1\n", "--replace", "s/a/b/", "--replace", "s/b/c/g")
	if c != "c;c 1\n" {
		t.Errorf("two --replace: %q", c)
	}
}

func TestSpillingAggregation(t *testing.T) {
	want, _, _ := cmdtest.Run(command, "", iperf, "--no-root")
	got, stderr, code := cmdtest.Run(command, "", iperf, "--no-root", "--mem", "4KiB", "--tmpdir", t.TempDir(), "--stats")
	if code != 0 || got != want || strings.Contains(stderr, " 0 runs spilled") {
		t.Errorf("exit %d, equal %v: %s", code, got == want, stderr)
	}
}

func TestMalformedAndUsage(t *testing.T) {
	in := "a;b 1\nbroken\na;c 2.5\n"
	stdout, stderr, code := cmdtest.Run(command, in, "--no-root", "--stats")
	if code != 0 || stdout != "b 1\nc 2.5\n" || !strings.Contains(stderr, "-:2: no count") || !strings.Contains(stderr, "1 lines malformed") {
		t.Errorf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if _, stderr, code := cmdtest.Run(command, in, "--strict"); code != 1 || !strings.Contains(stderr, "-:2:") {
		t.Errorf("--strict: exit %d: %s", code, stderr)
	}
	cmdtest.UsageErrors(t, command, in, [][]string{
		{"--grep", "("}, {"--grep", ""}, {"--replace", "s/a/b"}, {"--replace", "y/a/b/"},
		{"--max-depth", "0"}, {"--top", "x"}, {"--min-count", "-1"}, {"--from", "a", "--skip-after", "b"},
	})
}

// TestCollapseRecursive checks --collapse-recursive against its oracles:
// what FlameGraph's stackcollapse-recursive.pl printed for the same
// inputs (testdata/pfilter/collapse-recursive/perl), and inferno's
// expected result for its own input. The vertx profile, where 191 of 200
// stacks recurse, is also the golden file named after the option.
func TestCollapseRecursive(t *testing.T) {
	const dir = "../../testdata/pfilter/collapse-recursive/"
	for _, tc := range []struct{ input, perl string }{
		{"../../testdata/perf/flamegraph/results/perf-vertx-stacks-01-collapsed-pid.txt", "vertx.folded"},
		{dir + "basic.txt", "basic.folded"},
		{dir + "edge.folded", "edge.folded"},
	} {
		stdout, stderr, code := cmdtest.Run(command, "", tc.input, "--collapse-recursive")
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d: %s", tc.input, code, stderr)
		}
		if want := stacktest.ReadFile(t, dir+"perl/"+tc.perl); stdout != want {
			t.Errorf("%s: differs from stackcollapse-recursive.pl:\n%s", tc.input, stdout)
		}
		if tc.perl == "vertx.folded" {
			golden(t, "collapse-recursive.folded", stdout)
		}
	}
	// inferno's expected file ends without a newline.
	stdout, _, _ := cmdtest.Run(command, "", dir+"basic.txt", "--collapse-recursive")
	if want := stacktest.ReadFile(t, dir+"results/basic-collapsed.txt"); strings.TrimSuffix(stdout, "\n") != want {
		t.Errorf("basic.txt: differs from inferno's result:\n%s", stdout)
	}
}
