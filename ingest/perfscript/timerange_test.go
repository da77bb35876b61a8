package perfscript

import (
	"io"
	"math"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/stream"
)

// TestRangeMatchesRangePerf: --range folds what FlameGraph's
// range-perf.pl cuts out and stackcollapse-perf.pl then folds
// (testdata/perf/range/make.sh made the expected files): times counted
// from the first line with one (a PERF_RECORD_ line's too, the kernel's
// 0.000000 aside), --timezerosecs and --timeraw, perf script's --ns, and
// the serial and parallel folds alike (foldPerf).
func TestRangeMatchesRangePerf(t *testing.T) {
	for _, tc := range []struct {
		input, want string
		r           Range
	}{
		{"layouts/default.txt", "default.range-perf-0.1-0.3", Range{Min: 0.1, Max: 0.3}},
		{"layouts/default.txt", "default.range-perf-0-0.05", Range{Min: 0, Max: 0.05}},
		{"layouts/ns.txt", "ns.range-perf-timezerosecs-0.03-0.4", Range{Min: 0.03, Max: 0.4, ZeroSecs: true}},
		{"layouts/show-task-mmap-events.txt", "show-task-mmap-events.range-perf-0.1-0.3", Range{Min: 0.1, Max: 0.3}},
		{"layouts/comm-pid-tid-cpu-time-event-ip-sym-dso.txt", "comm-pid-tid-cpu-time-event-ip-sym-dso.range-perf-0.2-0.25", Range{Min: 0.2, Max: 0.25}},
		{"recorded/cwork.perf-script.txt", "cwork.range-perf-timeraw-548.9-549.2", Range{Min: 548.9, Max: 549.2, Raw: true}},
		{"recorded/threadname.perf-script.txt", "threadname.range-perf-0.3-1000", Range{Min: 0.3, Max: 1000}},
	} {
		t.Run(tc.want, func(t *testing.T) {
			r := tc.r
			got, warn := foldPerf(t, Options{Range: &r}, "../../testdata/perf/"+tc.input)
			if warn != "" {
				t.Errorf("warnings: %s", warn)
			}
			want := readFile(t, "../../testdata/perf/range/"+tc.want+".folded")
			if got != want {
				t.Errorf("differs from range-perf.pl | stackcollapse-perf.pl:\n%s", stacktest.FirstDiff(got, want))
			}
			if got == "" {
				t.Error("nothing folded: the case tests nothing")
			}
		})
	}
}

// TestRangeCounts: the samples a range leaves out are counted, and the
// counts add up to the samples of the whole dump.
func TestRangeCounts(t *testing.T) {
	in := "app 1 [000] 10.000000: 1 cpu-clock:\n\t1 a (/bin/app)\n\n" +
		"app 1 [000] 10.500000: 1 cycles:\n\t1 b (/bin/app)\n\n" +
		"app 1 [000] 11.000000: 1 cpu-clock:\n\t1 c (/bin/app)\n\n" +
		"app 1 [000] 12.000000: 1 cpu-clock:\n\t1 d (/bin/app)\n\n"
	for _, tc := range []struct {
		r                 Range
		out               string
		samples, outside  int64
		filtered, untimed int64
	}{
		{Range{Min: 0.5, Max: 1}, "app;c 1\n", 1, 2, 1, 0},
		{Range{Min: math.Inf(-1), Max: 0}, "app;a 1\n", 1, 2, 1, 0},
		{Range{Min: 10.9, Max: 11, Raw: true}, "app;c 1\n", 1, 2, 1, 0},
		{Range{Min: 1, Max: 1.5, ZeroSecs: true}, "app;c 1\n", 1, 2, 1, 0},
	} {
		r := tc.r
		p, out := parseAll(t, Options{Range: &r}, in)
		st := p.Counts()
		if out != tc.out || st.Samples != tc.samples || st.Outside != tc.outside || st.Filtered != tc.filtered || st.Untimed != tc.untimed {
			t.Errorf("%+v: got %q and %+v", tc.r, out, st)
		}
		// The span is of the samples of the event folded.
		span := "the samples' times: 0 to 2 s"
		if tc.r.Raw {
			span = "the samples' times: 10 to 12 s"
		}
		if want := "outside --range (" + span + ")"; !strings.Contains(st.String(), want) {
			t.Errorf("%+v: stats %q do not say %q", tc.r, st.String(), want)
		}
	}
}

// TestRangeUntimed: samples without a time (-F comm,ip,sym) are left out
// and counted, and when nothing else was folded CheckRange says why.
func TestRangeUntimed(t *testing.T) {
	r := Range{Min: 0, Max: 1}
	p, out := parseAll(t, Options{Range: &r}, "app 1 cpu-clock:\n\t1 a (/bin/app)\n\napp \n\t1 b (/bin/app)\n")
	st := p.Counts()
	if out != "" || st.Untimed != 2 || st.Samples != 0 {
		t.Fatalf("got %q and %+v", out, st)
	}
	if err := CheckRange(st); err == nil || !strings.Contains(err.Error(), "no time") {
		t.Errorf("CheckRange: %v", err)
	}
}

// parseAll parses text line by line with one Parser, and returns it and
// the stacks it emitted, in order.
func parseAll(t *testing.T, opt Options, text string) (*Parser, string) {
	t.Helper()
	var out strings.Builder
	p := New(opt, func(stack []byte, c fold.Count) error {
		out.WriteString(string(stack) + " " + c.String() + "\n")
		return nil
	}, stream.NewDiag(io.Discard, true))
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if err := p.Line("in", i+1, []byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.End(); err != nil {
		t.Fatal(err)
	}
	return p, out.String()
}

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in       string
		min, max float64
		err      string
	}{
		{"10,20", 10, 20, ""},
		{" 0.5 , ", 0.5, math.Inf(1), ""},
		{",3", math.Inf(-1), 3, ""},
		{",", math.Inf(-1), math.Inf(1), ""},
		{"-1,1e3", -1, 1000, ""},
		{"10", 0, 0, "want MIN,MAX"},
		{"a,2", 0, 0, `"a" is not a number`},
		{"1,inf", 0, 0, `"inf" is not a number`},
		{"2,1", 0, 0, "MIN is past MAX"},
	} {
		r, err := ParseRange(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case r.Min != tc.min || r.Max != tc.max:
			t.Errorf("%q: %v,%v", tc.in, r.Min, r.Max)
		}
	}
}
