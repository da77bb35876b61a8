package pprof

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/testenv"
)

// folded is one parsed folded line: its stack, the frames of the stack
// joined again by ';' (what a profile's sample must give back: "a;" reads
// as "a", as flamegraph.pl and fold.Frames read it), and its count.
type folded struct {
	stack  string
	frames string
	count  fold.Count
}

func readFolded(t testing.TB, data []byte) []folded {
	t.Helper()
	var out []folded
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		stack, c, err := fold.ParseLine(sc.Bytes())
		if err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		out = append(out, folded{string(stack), normalize(stack), c})
	}
	return out
}

func normalize(stack []byte) string {
	return string(bytes.Join(fold.SplitFrames(nil, stack), []byte{fold.Sep}))
}

func build(t testing.TB, opt Options, in []folded) *Builder {
	t.Helper()
	b := New(opt)
	for _, f := range in {
		if err := b.Add([]byte(f.stack), f.count); err != nil {
			t.Fatalf("Add(%q, %v): %v", f.stack, f.count, err)
		}
	}
	return b
}

// writeParse writes b's profile and reads it back with the pprof package.
func writeParse(t testing.TB, b *Builder) (*profile.Profile, []byte) {
	t.Helper()
	var buf bytes.Buffer
	n, err := b.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Errorf("WriteTo returned %d, wrote %d bytes", n, buf.Len())
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte{0x1f, 0x8b}) {
		t.Errorf("profile is not gzipped")
	}
	p, err := profile.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return p, buf.Bytes()
}

// stackOf rebuilds the folded stack of a parsed sample, root first.
func stackOf(s *profile.Sample) string {
	names := make([]string, len(s.Location))
	for i, l := range s.Location {
		names[len(names)-1-i] = l.Line[0].Function.Name
	}
	return strings.Join(names, ";")
}

func TestRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../testdata/pprof/*.folded")
	if len(files) < 3 {
		t.Fatalf("fixtures missing: %v", files)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in := readFolded(t, data)
			b := build(t, Options{Scale: 1000}, in)
			p, _ := writeParse(t, b)

			if len(p.Sample) != len(in) {
				t.Fatalf("%d samples, want one per line: %d", len(p.Sample), len(in))
			}
			var total fold.Count
			var sum int64
			for i, s := range p.Sample {
				if got := stackOf(s); got != in[i].frames {
					t.Errorf("sample %d: stack %q, want %q", i, got, in[i].frames)
				}
				want := int64(math.Round(in[i].count.Float64() * 1000))
				if len(s.Value) != 1 || s.Value[0] != want {
					t.Errorf("sample %d: value %v, want [%d]", i, s.Value, want)
				}
				sum += s.Value[0]
				total, _ = total.Add(in[i].count)
			}
			if b.Total() != total {
				t.Errorf("Total() = %v, want %v", b.Total(), total)
			}
			if sum != b.Written() || float64(sum) != math.Round(total.Float64()*1000) {
				t.Errorf("sum of values %d, Written %d, folded total %v ×1000", sum, b.Written(), total)
			}

			// One function and one location per distinct frame name.
			names := map[string]bool{}
			for _, f := range in {
				fold.Frames([]byte(f.stack), func(fr []byte) bool { names[string(fr)] = true; return true })
			}
			seen := map[string]bool{}
			for _, fn := range p.Function {
				if seen[fn.Name] {
					t.Errorf("function %q twice", fn.Name)
				}
				seen[fn.Name] = true
			}
			if len(p.Function) != len(names) || len(p.Location) != len(names) {
				t.Errorf("%d functions, %d locations, want %d distinct frames", len(p.Function), len(p.Location), len(names))
			}
			for _, l := range p.Location {
				if len(l.Line) != 1 {
					t.Errorf("location %d has %d lines", l.ID, len(l.Line))
				}
			}
		})
	}
}

func TestValueTypes(t *testing.T) {
	b := build(t, Options{SampleType: "cpu", SampleUnit: "nanoseconds", Period: 10000000, PeriodType: "cpu", PeriodUnit: "nanoseconds"},
		[]folded{{"a;b", "a;b", fold.Int(3)}})
	p, _ := writeParse(t, b)
	if st := p.SampleType[0]; st.Type != "cpu" || st.Unit != "nanoseconds" || len(p.SampleType) != 1 {
		t.Errorf("sample type %v", p.SampleType)
	}
	if p.PeriodType.Type != "cpu" || p.PeriodType.Unit != "nanoseconds" || p.Period != 10000000 {
		t.Errorf("period %v %d", p.PeriodType, p.Period)
	}

	// The defaults: samples/count, period type the sample type.
	p, _ = writeParse(t, build(t, Options{}, []folded{{"a", "a", fold.Int(1)}}))
	if st := p.SampleType[0]; st.Type != "samples" || st.Unit != "count" {
		t.Errorf("default sample type %v", st)
	}
	if p.PeriodType.Type != "samples" || p.PeriodType.Unit != "count" || p.Period != 0 {
		t.Errorf("default period %v %d", p.PeriodType, p.Period)
	}
}

func TestDecimal(t *testing.T) {
	in := []folded{{"a;b", "a;b", fold.Dec(0.25)}, {"a", "a", fold.Dec(1.5)}, {"a;c", "a;c", fold.Dec(2.75)}, {"a;b", "a;b", fold.Int(2)}}
	for _, tc := range []struct {
		scale   float64
		values  []int64
		rounded bool
	}{
		{1, []int64{0, 2, 3, 2}, true},
		{4, []int64{1, 6, 11, 8}, false},
		{1000, []int64{250, 1500, 2750, 2000}, false},
	} {
		b := build(t, Options{Scale: tc.scale}, in)
		p, _ := writeParse(t, b)
		var got []int64
		for _, s := range p.Sample {
			got = append(got, s.Value[0])
		}
		if !slicesEqual(got, tc.values) || b.Rounded() != tc.rounded {
			t.Errorf("scale %v: values %v rounded %v, want %v %v", tc.scale, got, b.Rounded(), tc.values, tc.rounded)
		}
		if b.Total() != fold.Dec(6.5) {
			t.Errorf("scale %v: Total %v, want 6.5", tc.scale, b.Total())
		}
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRange(t *testing.T) {
	b := New(Options{})
	if err := b.Add([]byte("a"), fold.Int(math.MaxInt64+1)); !errors.Is(err, ErrRange) {
		t.Errorf("count 2^63: %v, want ErrRange", err)
	}
	if err := b.Add([]byte("a"), fold.Dec(1e300)); !errors.Is(err, ErrRange) {
		t.Errorf("count 1e300: %v, want ErrRange", err)
	}
	if err := b.Add([]byte("a"), fold.Int(math.MaxInt64)); err != nil {
		t.Fatal(err)
	}
	if err := b.Add([]byte("b"), fold.Int(1)); !errors.Is(err, ErrRange) {
		t.Errorf("total past 2^63-1: %v, want ErrRange", err)
	}
	if b.Samples() != 1 || b.Written() != math.MaxInt64 {
		t.Errorf("failed Adds changed the profile: %d samples, written %d", b.Samples(), b.Written())
	}
}

func TestParseValueType(t *testing.T) {
	for _, tc := range []struct {
		in, typ, unit string
		ok            bool
	}{
		{"samples/count", "samples", "count", true},
		{"cpu/nanoseconds", "cpu", "nanoseconds", true},
		{"alloc space/bytes", "alloc space", "bytes", true},
		{"samples", "", "", false},
		{"/count", "", "", false},
		{"samples/", "", "", false},
		{"a/b/c", "", "", false},
		{"", "", "", false},
	} {
		typ, unit, err := ParseValueType(tc.in)
		if (err == nil) != tc.ok || typ != tc.typ || unit != tc.unit {
			t.Errorf("ParseValueType(%q) = %q, %q, %v", tc.in, typ, unit, err)
		}
	}
}

// TestGoToolPprof reads the profile with go tool pprof, as a user would:
// -top must report the folded total and -traces every stack.
func TestGoToolPprof(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool pprof")
	}
	// The go command of the toolchain running the test: go test puts its
	// GOROOT/bin first on PATH.
	goBin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "go tool pprof: "+err.Error())
	}
	data, err := os.ReadFile("../testdata/pprof/cwork.folded")
	if err != nil {
		t.Fatal(err)
	}
	in := readFolded(t, data)
	b := build(t, Options{}, in)
	file := filepath.Join(t.TempDir(), "cwork.pb.gz")
	var buf bytes.Buffer
	if _, err := b.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	pprof := func(args ...string) string {
		cmd := exec.Command(goBin, append([]string{"tool", "pprof"}, append(args, file)...)...)
		cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	top := pprof("-top")
	m := regexp.MustCompile(`of (\d+) total`).FindStringSubmatch(top)
	if m == nil {
		t.Fatalf("no total in go tool pprof -top:\n%s", top)
	}
	if m[1] != strconv.FormatInt(b.Written(), 10) || b.Total() != fold.Int(uint64(b.Written())) {
		t.Errorf("go tool pprof -top total %s, folded total %v", m[1], b.Total())
	}
	// -top lists each leaf with its self count: check the hottest one.
	self := map[string]uint64{}
	for _, f := range in {
		self[string(fold.Leaf([]byte(f.stack)))] += f.count.N
	}
	if !regexp.MustCompile(`(?m)^\s+` + strconv.FormatUint(self["leaf_a"], 10) + `\s.*\sleaf_a$`).MatchString(top) {
		t.Errorf("go tool pprof -top: leaf_a's self count %d not found:\n%s", self["leaf_a"], top)
	}

	// -traces prints each sample: its count, then its frames leaf first,
	// then a separator line of dashes.
	traces := pprof("-traces")
	var got []folded
	var frames []string
	var count uint64
	for _, line := range strings.Split(traces, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case strings.HasPrefix(fields[0], "-----------"):
			if frames != nil {
				for i, j := 0, len(frames)-1; i < j; i, j = i+1, j-1 {
					frames[i], frames[j] = frames[j], frames[i]
				}
				got = append(got, folded{frames: strings.Join(frames, ";"), count: fold.Int(count)})
			}
			frames = nil
		case frames == nil && len(fields) == 2:
			// "     598   leaf_a": the count, then the leaf.
			n, err := strconv.ParseUint(fields[0], 10, 64)
			if err != nil {
				continue // a header line
			}
			count, frames = n, []string{fields[1]}
		case frames != nil:
			frames = append(frames, strings.TrimSpace(line))
		}
	}
	want := map[string]uint64{}
	for _, f := range in {
		want[f.frames] += f.count.N
	}
	have := map[string]uint64{}
	for _, f := range got {
		have[f.frames] += f.count.N
	}
	if len(have) != len(want) {
		t.Errorf("go tool pprof -traces: %d stacks, want %d", len(have), len(want))
	}
	for s, n := range want {
		if have[s] != n {
			t.Errorf("go tool pprof -traces: %q has %d, want %d", s, have[s], n)
		}
	}
}

func FuzzBuild(f *testing.F) {
	for _, s := range []string{"a;b;c 1\na;b 2\n", "a;b 0.5\nx 3\n", "a;;b 1\n;a 2\na; 1\n", "spaces in names;x y 7\n"} {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile("../testdata/pprof/cwork.folded"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in []folded
		for _, line := range bytes.Split(data, []byte("\n")) {
			stack, c, err := fold.ParseLine(line)
			if err != nil {
				continue
			}
			in = append(in, folded{string(stack), normalize(stack), c})
		}
		b := New(Options{})
		var want int64
		var kept []folded
		for _, f := range in {
			if err := b.Add([]byte(f.stack), f.count); err != nil {
				if !errors.Is(err, ErrRange) && !errors.Is(err, fold.ErrOverflow) {
					t.Fatalf("Add(%q, %v): %v", f.stack, f.count, err)
				}
				continue
			}
			if f.count.Float {
				want += int64(math.Round(f.count.F))
			} else {
				want += int64(f.count.N)
			}
			kept = append(kept, f)
		}
		if b.Written() != want {
			t.Fatalf("Written %d, want %d", b.Written(), want)
		}
		p, _ := writeParse(t, b)
		if len(p.Sample) != len(kept) {
			t.Fatalf("%d samples, want %d", len(p.Sample), len(kept))
		}
		for i, s := range p.Sample {
			if got := stackOf(s); got != kept[i].frames {
				t.Fatalf("sample %d: %q, want %q", i, got, kept[i].frames)
			}
		}
	})
}

func BenchmarkBuild(b *testing.B) {
	data, err := os.ReadFile("../testdata/pprof/vertx.folded")
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		pb := New(Options{})
		for _, line := range lines {
			stack, c, err := fold.ParseLine(line)
			if err != nil {
				b.Fatal(err)
			}
			if err := pb.Add(stack, c); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := pb.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
