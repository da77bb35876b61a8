package perfreport

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/stream"
)

var _ = flag.Bool("update", false, "rewrite the golden files under testdata/")

const perfReportDir formattest.Dir = "../../testdata/perfreport"

// foldPerfReport folds perf report text through the shared aggregator
// and returns the folded output and the warnings.
func foldPerfReport(t testing.TB, strict bool, text []byte) (out, warnings string, err error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	agg := stream.NewAggregator(stream.Options{Mem: 64 << 20, TmpDir: t.TempDir()})
	defer agg.Close()
	diag := stream.NewDiag(&warn, strict)
	r := stream.NewReader([]string{path})
	defer r.Close()
	if err := Fold(r, New(agg.Add, diag)); err != nil {
		return "", warn.String(), err
	}
	diag.Flush()
	var b bytes.Buffer
	if _, err := agg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), warn.String(), nil
}

// TestPerfReportMatchesGreggAwk: where Gregg's awk one-liner is right
// (process names without spaces), pfold's output is its output,
// aggregated.
func TestPerfReportMatchesGreggAwk(t *testing.T) {
	got, warn, err := foldPerfReport(t, true, perfReportDir.Read(t, "cwork.perf-report-folded.txt"))
	if err != nil || warn != "" {
		t.Fatalf("err %v, warnings %q", err, warn)
	}
	want := stacktest.Aggregate(t, perfReportDir.Read(t, "cwork.gregg-awk.folded"))
	if got != want {
		t.Errorf("differs from the awk result: %s", stacktest.FirstDiff(got, want))
	}
}

// TestPerfReportCommWithSpaces: the awk keeps the first word of "spin
// worker"; pfold keeps the whole name, spaces made '_'. Everything else
// is the same.
func TestPerfReportCommWithSpaces(t *testing.T) {
	got, _, err := foldPerfReport(t, true, perfReportDir.Read(t, "threadname.perf-report-folded.txt"))
	if err != nil {
		t.Fatal(err)
	}
	awk := stacktest.Aggregate(t, perfReportDir.Read(t, "threadname.gregg-awk.folded"))
	if !strings.Contains(got, "spin_worker;start_thread;spin 449\n") {
		t.Errorf("no spin_worker root:\n%s", got)
	}
	fixed := strings.ReplaceAll(got, "spin_worker;", "spin;")
	if fixed != awk {
		t.Errorf("apart from the comm, differs from the awk result: %s", stacktest.FirstDiff(fixed, awk))
	}
}

// TestPerfReportLayouts: other column sets perf report prints, and
// malformed lines.
func TestPerfReportLayouts(t *testing.T) {
	tests := []struct {
		name, in, want, warn string
	}{
		{"no -n", "# Overhead  Command\n#\n    60.43%  bash\n10 a;b\n  39.57%  my prog\n5 c\n",
			"bash;a;b 10\nmy_prog;c 5\n", ""},
		{"no header, -n", "   60.43%     72372  bash   \n10 a;b\n", "bash;a;b 10\n", ""},
		{"no header, numeric comm", "   60.43%  1234\n10 a\n", "1234;a 10\n", ""},
		{"children", "# Children      Self       Samples  Command\n    29.39%     0.00%             0  ls\n3 main;f\n",
			"ls;main;f 3\n", ""},
		{"period", "# Overhead  Samples  Period  Command\n  100.00%  2  2000  x\n2 m\n", "x;m 2\n", ""},
		{"crlf and spaces in frames", "# Overhead  Samples  Command\r\n   100.00%  3  a b \r\n3 std::vector<int>::push_back(int const&);x\r\n",
			"a_b;std::vector<int>::push_back(int const&);x 3\n", ""},
		{"groups and blank lines", "    50.00%  1  a\n1 x\n\n\n    50.00%  1  b\n1 x\n\n#\n# (Tip: hi)\n#\n", "a;x 1\nb;x 1\n", ""},
		{"semicolon in comm", "   100.00%  2  a;b\n2 x\n", "a:b;x 2\n", ""},
		{"percent chains", "   100.00%  2  a\n60.43% x;y\n", "", "weighed in percent"},
		{"chain first", "10 a;b\n", "", "before any process entry"},
		{"no chain", "   100.00%  2  a\n10\n", "", "count without a call chain"},
		{"bad count", "   100.00%  2  a\n1x a;b\n", "", "bad count"},
		{"text", "   100.00%  2  a\nhello\n", "", "neither a process entry"},
		{"indented no pct", "   x  2  a\n", "", "without a percentage"},
		{"missing samples", "# Overhead  Samples  Command\n   100.00%  a\n", "", "Samples/Period column"},
		{"empty comm", "# Overhead  Samples  Command\n   100.00%  5   \n", "", "without a process name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warn, err := foldPerfReport(t, false, []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got\n%swant\n%s", got, tt.want)
			}
			if tt.warn == "" && warn != "" || !strings.Contains(warn, tt.warn) {
				t.Errorf("warnings %q, want %q", warn, tt.warn)
			}
		})
	}
}

// TestPerfReportSortKeys: a report sorted by more than comm cannot be
// folded by comm; it is refused with the command to run.
func TestPerfReportSortKeys(t *testing.T) {
	in := "# Overhead  Samples  Command  Shared Object\n   100.00%  2  a  libc.so\n2 x\n"
	_, _, err := foldPerfReport(t, false, []byte(in))
	if err == nil || !strings.Contains(err.Error(), "-s comm") || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("err = %v", err)
	}
}

// TestPerfReportStrict: with --strict the first malformed line is an
// error naming file and line.
func TestPerfReportStrict(t *testing.T) {
	_, _, err := foldPerfReport(t, true, []byte("   100.00%  2  a\n1 x\nbad\n"))
	if err == nil || !strings.Contains(err.Error(), ":3:") {
		t.Errorf("err = %v", err)
	}
}

// TestPerfReportGolden keeps pfold's folding of each fixture (go test
// -update rewrites the files).
func TestPerfReportGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: perfReportDir, Inputs: []string{"*.perf-report-folded.txt"}, Ext: ".perf-report-folded.txt", Min: 2,
	}.Test(t)
}

func FuzzPerfReport(f *testing.F) {
	for _, name := range []string{"cwork", "threadname"} {
		f.Add(perfReportDir.Read(f, name+".perf-report-folded.txt"))
	}
	f.Add([]byte("# Overhead  Command\n  1%  a b\n1 x\n60% y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var sum fold.Count
		p := New(func(stack []byte, c fold.Count) error {
			if i := bytes.IndexByte(stack, fold.Sep); i <= 0 || i == len(stack)-1 {
				t.Fatalf("stack %q lacks a comm or a chain", stack)
			}
			if bytes.ContainsAny(stack, "\n") {
				t.Fatalf("stack %q has a newline", stack)
			}
			var err error
			sum, err = sum.Add(c)
			return err
		}, stream.NewDiag(&bytes.Buffer{}, false))
		for i, line := range bytes.Split(data, []byte("\n")) {
			if err := p.Line("fuzz", i+1, line); err != nil && !strings.Contains(err.Error(), "sorted by") {
				t.Fatal(err)
			}
		}
	})
}

func BenchmarkPerfReport(b *testing.B) {
	formattest.Benchmark(b, Format, nil, bytes.Repeat(perfReportDir.Read(b, "cwork.perf-report-folded.txt"), 200))
}
