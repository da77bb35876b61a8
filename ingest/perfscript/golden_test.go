package perfscript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/stacktest"
)

// TestPerfScriptGolden folds this project's own recordings with the
// options no other tool's expected files cover. Golden files are named
// after the input and the options that made them; go test -update
// rewrites them.
func TestPerfScriptGolden(t *testing.T) {
	for _, tc := range []struct {
		input string
		opts  []string
	}{
		{"layouts/srcline.txt", []string{"srcline"}},
		{"layouts/srcline.txt", []string{"srcline", "kernel"}},
		{"layouts/default.txt", []string{"all", "tid"}},
		{"layouts/comm-tid-time-period-event-ip-sym.txt", []string{"kernel"}},
		{"layouts/default.txt", []string{"skip-after=main"}},
		{"recorded/cwork.perf-script.txt", []string{"pid", "addrs"}},
		{"recorded/threadname.perf-script.txt", []string{"tid", "kernel"}},
	} {
		var opt Options
		for _, o := range tc.opts {
			switch {
			case o == "srcline":
				opt.Srcline = true
			case o == "kernel":
				opt.Kernel = true
			case o == "all":
				opt.Kernel, opt.JIT = true, true
			case o == "tid":
				opt.TID = true
			case o == "pid":
				opt.PID = true
			case o == "addrs":
				opt.Addrs = true
			case strings.HasPrefix(o, "skip-after="):
				opt.SkipAfter = []string{strings.TrimPrefix(o, "skip-after=")}
			default:
				t.Fatalf("unknown option %q", o)
			}
		}
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(tc.input), ".gz"), ".txt")
		golden := filepath.Join("../../testdata/perf/golden", base+"."+strings.Join(tc.opts, ".")+".folded")
		t.Run(filepath.Base(golden), func(t *testing.T) {
			got, warn := foldPerf(t, opt, "../../testdata/perf/"+tc.input)
			// The note on dumps without a pid field is expected here.
			if warn = strings.ReplaceAll(warn, noPIDNote, ""); warn != "" {
				t.Errorf("warnings: %s", warn)
			}
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want := readFile(t, golden); got != want {
				t.Errorf("differs from %s (go test -update rewrites it):\n%s", golden, stacktest.FirstDiff(got, want))
			}
		})
	}
}

const noPIDNote = "note: the samples have no pid field (perf script prints the thread id alone by default), so --pid and --tid name them comm-?: `perf script -F +pid` adds it\n"
