package dtrace

import (
	"flag"
	"testing"

	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/dtrace"

// TestGolden folds every input, with and without --includeoffset; the
// goldens equal stackcollapse.pl's output (the *.oracle.folded files,
// made by running it here; for --includeoffset, which the Perl has as a
// constant and no option, with $includeoffset = 1) but where the Perl
// drops a leaf, and inferno's expected files (*.inferno.oracle.folded)
// but for Rust names, which inferno demangles and the Perl keeps.
func TestGolden(t *testing.T) {
	// The Perl trims the leaf's offset with s/\+[^+]*$// on the joined
	// stack: when the leaf has no offset, that cuts at the offset of a
	// caller and drops every frame after it (FlameGraph issue 202).
	leafDropped := formattest.CountsDiff("with $includeoffset the Perl trims the last '+…' of the whole stack, so a leaf printed without offset goes with its caller's offset (FlameGraph issue 202); pfold trims the leaf's own offset, as inferno does",
		func(t *testing.T, golden, oracle map[string]float64) {
			if g, o := sum(golden), sum(oracle); g != o {
				t.Errorf("the golden counts %v, the Perl %v", g, o)
			}
		})
	rust := formattest.Diff{Why: "inferno demangles legacy Rust names (drops the ::h… hash, decodes $LT$…); pfold keeps them as the Perl does"}
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 8,
		Options: []formattest.Option{formattest.Flags("includeoffset")},
		References: []formattest.Reference{{
			Tool: "stackcollapse.pl",
			Differs: map[string]formattest.Diff{
				"example-dtrace-stacks.includeoffset":       leafDropped,
				"flamegraph-bug.includeoffset":              leafDropped,
				"hex-addresses.includeoffset":               leafDropped,
				"rust-names.includeoffset":                  leafDropped,
				"scope_with_no_argument_list.includeoffset": leafDropped,
				"stack-ustack.includeoffset":                leafDropped,
			},
		}, {
			Name: "inferno", Tool: "inferno-collapse-dtrace",
			Differs: map[string]formattest.Diff{"rust-names": rust, "stack-ustack": rust},
			Absent: map[string]string{
				"flamegraph-bug":                            "inferno's test folds it with includeoffset only",
				"only-header-lines":                         "inferno's test checks only its warning",
				"hex-addresses.includeoffset":               "inferno has no expected file with includeoffset",
				"java.includeoffset":                        "inferno has no expected file with includeoffset",
				"only-header-lines.includeoffset":           "inferno has no expected file with includeoffset",
				"rust-names.includeoffset":                  "inferno has no expected file with includeoffset",
				"scope_with_no_argument_list.includeoffset": "inferno has no expected file with includeoffset",
				"stack-ustack.includeoffset":                "inferno has no expected file with includeoffset",
			},
		}},
	}.Test(t)
}

func sum(m map[string]float64) (n float64) {
	for _, c := range m {
		n += c
	}
	return n
}

// TestCases: what the fixtures do not show. Each case's input starts with
// the three banner lines dtrace prints.
func TestCases(t *testing.T) {
	const banner = "CPU     ID                    FUNCTION:NAME\n  0  64091                        :tick-60s\n\n"
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "stack", In: banner + "              libc`b+0x1\n              a`main+0x2\n                3\n", Want: "a`main;libc`b 3\n"},
		// The Perl drops a stack cut short silently, inferno stops.
		{Name: "no count at the end", In: banner + "              a`f+0x1\n                3\n              a`g+0x1\n              a`main+0x2\n",
			Want: "a`f 3\n", Malformed: 1, Warn: []string{"in:6: a stack with no count after it"}},
		// Frames come indented; a line at column 0 among them is not
		// one (the Perl made folded stacks and perf script headers
		// appended to dtrace output frames, or dropped them).
		{Name: "column 0 among indented frames", In: banner + "              a`f+0x1\n                3\nmain;f 5\nmain;g 2\n",
			Want: "a`f 3\n", Malformed: 2, Warn: []string{"in:6: not a frame"}},
		// -x stackindent=0: frames at column 0 from the first on.
		{Name: "stackindent=0", In: banner + "libc`b+0x1\na`main+0x2\n                3\n", Want: "a`main;libc`b 3\n"},
	})
}

// TestSniff: dtrace output is recognised; nothing else is taken for it.
func TestSniff(t *testing.T) {
	formattest.Sniff{Format: Format, Dir: dir, Sure: []string{"*.txt"}}.Test(t)
}

func FuzzDTrace(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "java.txt"), dir.Read(f, "flamegraph-bug.txt"), dir.Read(f, "hex-addresses.txt"))
}

func BenchmarkDTrace(b *testing.B) {
	formattest.Benchmark(b, Format, nil, dir.Read(b, "example-dtrace-stacks.txt"))
}
