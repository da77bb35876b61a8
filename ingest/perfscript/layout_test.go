package perfscript

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/internal/stacktest"
)

// TestLayoutsFoldAlike folds one real recording (testdata/perf/layouts,
// cwork + dd + ls under perf record -e cpu-clock -g --sample-cpu) printed
// by perf script in different layouts, and checks the folded output is
// the same wherever the layouts carry the same information:
//   - counts are compared as sample counts (divided by their GCD), since
//     layouts without the period field weigh every sample 1;
//   - layouts without the dso field cannot name an unknown symbol after
//     its module, so bracketed fallback frames compare as [unknown];
//   - the ip,sym layout prints no sample header, so no process name.
func TestLayoutsFoldAlike(t *testing.T) {
	const dir = "../../testdata/perf/layouts/"
	for _, kernel := range []bool{false, true} {
		opt := Options{Kernel: kernel}
		want, _ := foldPerf(t, opt, dir+"default.txt")
		for _, tc := range []struct {
			file            string
			noDSO, noHeader bool
		}{
			{file: "ns.txt"},
			{file: "header.txt"},
			{file: "show-task-mmap-events.txt"},
			{file: "symoff.txt"},
			{file: "comm-pid-tid-cpu-time-event-ip-sym-dso.txt"},
			{file: "comm-tid-time-period-event-ip-sym.txt", noDSO: true},
			{file: "comm-tid-time-event-ip-sym.txt", noDSO: true},
			{file: "ip-sym.txt", noDSO: true, noHeader: true},
		} {
			t.Run(tc.file, func(t *testing.T) {
				got, warn := foldPerf(t, opt, dir+tc.file)
				if warn != "" {
					t.Errorf("warnings: %s", warn)
				}
				g := normalizeFolded(t, got, tc.noDSO, false)
				w := normalizeFolded(t, want, tc.noDSO, tc.noHeader)
				if g != w {
					t.Errorf("kernel=%v: %s folds differently from default.txt:\n%s", kernel, tc.file, stacktest.FirstDiff(g, w))
				}
				if len(strings.Split(g, "\n")) < 10 {
					t.Errorf("suspiciously few stacks:\n%s", g)
				}
			})
		}
	}
}

// TestLayoutWithoutModuleKernelRange checks that without the dso field
// --kernel tells kernel frames by their address.
func TestLayoutWithoutModuleKernelRange(t *testing.T) {
	got, _ := foldPerf(t, Options{Kernel: true}, "../../testdata/perf/layouts/comm-tid-time-period-event-ip-sym.txt")
	if !strings.Contains(got, "_[k]") {
		t.Fatal("no kernel frame annotated")
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.Contains(line, "leaf_a_[k]") || strings.Contains(line, "main_[k]") {
			t.Errorf("user frame annotated as kernel: %s", line)
		}
	}
}

func normalizeFolded(t *testing.T, folded string, noDSO, dropRoot bool) string {
	t.Helper()
	sums := map[string]uint64{}
	for _, line := range strings.Split(strings.TrimSpace(folded), "\n") {
		i := strings.LastIndexByte(line, ' ')
		n, err := strconv.ParseUint(line[i+1:], 10, 64)
		if err != nil {
			t.Fatalf("bad folded line %q", line)
		}
		frames := strings.Split(line[:i], ";")
		if dropRoot {
			frames = frames[1:]
		}
		if noDSO {
			for j, f := range frames {
				if strings.HasPrefix(f, "[") && strings.HasSuffix(strings.TrimSuffix(f, "_[k]"), "]") {
					frames[j] = "[unknown]"
				}
			}
		}
		if len(frames) > 0 {
			sums[strings.Join(frames, ";")] += n
		}
	}
	var g uint64
	for _, n := range sums {
		g = gcd(g, n)
	}
	var lines []string
	for s, n := range sums {
		lines = append(lines, s+" "+strconv.FormatUint(n/g, 10))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// TestFieldLayouts: perf script -F with header fields sniffHeader cannot
// tell by themselves (a name alone, a name and a pid, a name and an event
// or a period),
// or with no process name (time,event), is detected as perf script and
// folds as the default layout of the same recording does
// (testdata/perfdata/cwork, printed by record.sh's perf script).
func TestFieldLayouts(t *testing.T) {
	const dir = "../../testdata/perf/layouts/fields/"
	want, _ := foldPerf(t, Options{Samples: true}, dir+"default.txt")
	for _, tc := range []struct {
		file   string
		noName bool
	}{
		{file: "comm-tid.txt"},
		{file: "comm.txt"}, // the process name alone: "cwork "
		{file: "comm-event.txt"},
		{file: "comm-period.txt"},
		{file: "time-event.txt", noName: true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			text := stacktest.ReadFile(t, dir+tc.file)
			if got := Sniff([]byte(text)); got != format.Sure {
				t.Errorf("Sniff: %v, want Sure", got)
			}
			got, warn := foldPerf(t, Options{Samples: true}, dir+tc.file)
			if warn != "" {
				t.Errorf("warnings: %s", warn)
			}
			g := normalizeFolded(t, got, false, false)
			w := normalizeFolded(t, want, false, tc.noName)
			if g != w {
				t.Errorf("%s folds differently from default.txt:\n%s", tc.file, stacktest.FirstDiff(g, w))
			}
		})
	}
}
