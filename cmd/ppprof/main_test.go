package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
	"github.com/pfold/pfold/internal/stacktest"
)

// stacks returns the profile's samples as folded stacks and their total.
func stacks(t *testing.T, data []byte) (map[string]int64, int64, *profile.Profile) {
	t.Helper()
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		var names []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			names = append(names, s.Location[i].Line[0].Function.Name)
		}
		got[strings.Join(names, ";")] += s.Value[0]
		total += s.Value[0]
	}
	return got, total, p
}

func TestFilesInOrderCompressedAndOutput(t *testing.T) {
	first, second := stacktest.PlainAndGzip(t, "main;a;b 2\nmain;c 1\n", "main;a;b 3\nmain;a 4")

	data, stdout, stderr, code := cmdtest.RunToFile(t, command, "out.pb.gz", first, second, "--sample-type", "cpu/milliseconds", "--period", "10", "--period-type", "cpu/nanoseconds")
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	got, total, p := stacks(t, []byte(data))
	want := map[string]int64{"main;a;b": 5, "main;c": 1, "main;a": 4}
	if total != 10 || len(got) != len(want) || len(p.Sample) != 4 {
		t.Errorf("total %d, stacks %v from %d samples; want 10, %v from 4", total, got, len(p.Sample), want)
	}
	for s, n := range want {
		if got[s] != n {
			t.Errorf("%s: %d, want %d", s, got[s], n)
		}
	}
	if st := p.SampleType[0]; st.Type != "cpu" || st.Unit != "milliseconds" || p.Period != 10 || p.PeriodType.Unit != "nanoseconds" {
		t.Errorf("sample type %v, period %d %v", st, p.Period, p.PeriodType)
	}
}

func TestMalformedAndStrict(t *testing.T) {
	in := "a;b 1\nno count here\n\na;c x\na;c 2\n"
	stdout, stderr, code := cmdtest.Run(command, in, "--stats")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "-:2: ") || !strings.Contains(stderr, "-:4: ") || !strings.Contains(stderr, "2 lines malformed") || !strings.Contains(stderr, "total 3") {
		t.Errorf("stderr lacks the malformed lines or the stats:\n%s", stderr)
	}
	if _, total, _ := stacks(t, []byte(stdout)); total != 3 {
		t.Errorf("total %d, want 3", total)
	}

	_, stderr, code = cmdtest.Run(command, in, "--strict")
	if code != 1 || !strings.Contains(stderr, "-:2: ") {
		t.Errorf("--strict: exit %d, stderr %q", code, stderr)
	}
}

func TestDecimalsAndScale(t *testing.T) {
	in := "a;b 0.25\na 1.5\n"
	stdout, stderr, code := cmdtest.Run(command, in)
	if code != 0 || !strings.Contains(stderr, "rounded, folded total 1.75") {
		t.Errorf("exit %d, stderr %q: want a rounding warning", code, stderr)
	}
	if _, total, _ := stacks(t, []byte(stdout)); total != 2 {
		t.Errorf("rounded total %d, want 0+2", total)
	}
	stdout, stderr, code = cmdtest.Run(command, in, "--scale", "1000", "--sample-type", "cpu/microseconds")
	if code != 0 || stderr != "" {
		t.Errorf("--scale 1000: exit %d, stderr %q", code, stderr)
	}
	if _, total, _ := stacks(t, []byte(stdout)); total != 1750 {
		t.Errorf("scaled total %d, want 1750", total)
	}
}

func TestUsageErrors(t *testing.T) {
	cmdtest.UsageErrors(t, command, "a 1\n", [][]string{
		{"--sample-type", "samples"},
		{"--period-type", "/x"},
		{"--period", "-1"},
		{"--scale", "0"},
		{"--scale", "-2"},
		{"--no-such-flag"},
	})
	_, stderr, code := cmdtest.Run(command, "", "/no/such/file")
	if code != 1 || !strings.Contains(stderr, "/no/such/file") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}

// TestMemIdentical: the output with --mem 8MiB, below what the names
// take, is the output with the default budget, byte for byte (ppprof
// holds only the names; --mem sets the runtime's memory limit).
func TestMemIdentical(t *testing.T) {
	cmdtest.MemIdentical(t, command, false, [][]string{{}, {"--sample-type", "cpu/nanoseconds", "--scale", "4"}})
}
