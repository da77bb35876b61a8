package perfscript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/internal/testenv"
)

// TestInlineParity: --inline and --inline --context fold as
// stackcollapse-perf.pl does, serially and by workers (foldPerf), on a
// recording of testdata/perf/inline/inline.c, on the same frames with
// the addresses of the executable as loaded, where addr2line finds
// nothing and nm's address of the symbol is used, and with --srcline on
// the recording printed with -F +srcline. The expected files are
// the Perl's output on these inputs (see testdata/perf/ORIGIN.md).
func TestInlineParity(t *testing.T) {
	testenv.NeedTool(t, "--inline runs addr2line (Debian package binutils)", "addr2line")
	testenv.NeedTool(t, "--inline runs nm (Debian package binutils)", "nm")
	dir, err := filepath.Abs("../../testdata/perf/inline")
	if err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{"inline", "loaded-addresses", "srcline"} {
		// The modules are named with a placeholder for where the
		// repository is; a module that does not exist (libc.so.6 under
		// missing/) folds as without --inline.
		script := strings.ReplaceAll(readFile(t, filepath.Join(dir, input+".perf-script.txt")), "/PFOLD_INLINE_DIR", dir)
		name := filepath.Join(t.TempDir(), input+".txt")
		if err := os.WriteFile(name, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		type inlineCase struct {
			opt  Options
			want string
		}
		cases := []inlineCase{
			{Options{Inline: true}, "inline"},
			{Options{Inline: true, Context: true}, "inline-context"},
		}
		if input == "srcline" {
			// perf script -F +srcline: an inlined frame's source line
			// is read and left out, as the Perl leaves it.
			cases = []inlineCase{{Options{Inline: true, Srcline: true}, "inline-srcline"}}
		}
		for _, tc := range cases {
			t.Run(input+"/"+tc.want, func(t *testing.T) {
				got, warn := foldPerf(t, tc.opt, name)
				want := stacktest.Aggregate(t, []byte(readFile(t, filepath.Join(dir, input+".stackcollapse-perf."+tc.want+".folded"))))
				if got != want {
					t.Errorf("differs from stackcollapse-perf.pl:\n%s", stacktest.FirstDiff(got, want))
				}
				if input == "inline" && !strings.Contains(warn, "addr2line: '"+dir+"/missing/libc.so.6': No such file") {
					t.Errorf("addr2line's complaint about the missing module is not passed on: %q", warn)
				}
			})
		}
	}
}
