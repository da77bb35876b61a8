package ingest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/stream"
)

const (
	stackprofDir  = "../testdata/stackprof"
	perfReportDir = "../testdata/perfreport"
)

// foldInputs folds the named files with a Folder through the shared
// aggregator, as pfold does.
func foldInputs(t *testing.T, formatName string, strict bool, names ...string) (out, warnings string, detected []string, err error) {
	t.Helper()
	var warn bytes.Buffer
	agg := stream.NewAggregator(stream.Options{Mem: 64 << 20, TmpDir: t.TempDir()})
	defer agg.Close()
	diag := stream.NewDiag(&warn, strict)
	fl := &Folder{
		Format:  formatName,
		Options: format.WithEnv(format.MapOptions{}, format.Env{Notes: &warn, TmpDir: t.TempDir()}),
		Emit:    agg.Add,
		Diag:    diag,
		Detected: func(name, f string) {
			detected = append(detected, filepath.Base(name)+"="+f)
		},
	}
	defer fl.Close()
	r := stream.NewReader(names)
	defer r.Close()
	if err := fl.Fold(r); err != nil {
		return "", warn.String(), detected, err
	}
	if err := fl.Finish(); err != nil {
		return "", warn.String(), detected, err
	}
	diag.Flush()
	var b bytes.Buffer
	if _, err := agg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), warn.String(), detected, nil
}

func readTestFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gzipFile(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src)+".gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(readTestFile(t, src))
	zw.Close()
	if err := os.WriteFile(dst, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestFolderMixed: inputs of many formats, some compressed, in one
// stream, each detected on its own; the result is the sum of folding
// each alone.
func TestFolderMixed(t *testing.T) {
	files := []string{
		gzipFile(t, filepath.Join(stackprofDir, "cpu.dump")),
		filepath.Join(perfReportDir, "threadname.perf-report-folded.txt"),
		"../testdata/perf/recorded/cwork.perf-script.noperiod.txt",
		filepath.Join(stackprofDir, "object.json"),
		filepath.Join(perfReportDir, "cwork.gregg-awk.folded"),
		"../testdata/igprof/igprof.pp.cwork.gz",
		"../testdata/dtrace/java.txt",
	}
	got, warn, detected, err := foldInputs(t, Auto, false, files...)
	if err != nil || warn != "" {
		t.Fatalf("err %v, warnings %q", err, warn)
	}
	if want := "cpu.dump.gz=stackprof threadname.perf-report-folded.txt=perf-report cwork.perf-script.noperiod.txt=perf-script object.json=stackprof cwork.gregg-awk.folded=folded igprof.pp.cwork.gz=igprof java.txt=dtrace"; strings.Join(detected, " ") != want {
		t.Errorf("detected %s\nwant %s", strings.Join(detected, " "), want)
	}
	var all []byte
	for i, f := range files {
		name := strings.SplitN(detected[i], "=", 2)[1]
		out, _, _, err := foldInputs(t, name, false, f)
		if err != nil {
			t.Fatalf("%s alone: %v", f, err)
		}
		all = append(all, out...)
	}
	if want := stacktest.Aggregate(t, all); got != want {
		t.Errorf("mixed inputs differ from the sum of each: %s", stacktest.FirstDiff(got, want))
	}
}

// TestFolderExplicitFormat: a given format is used without detection,
// and a wrong one shows as malformed lines.
func TestFolderExplicitFormat(t *testing.T) {
	report := filepath.Join(perfReportDir, "cwork.perf-report-folded.txt")
	got, _, detected, err := foldInputs(t, "perf-report", false, report)
	if err != nil || len(detected) != 0 {
		t.Fatalf("err %v, detected %v", err, detected)
	}
	if want := string(readTestFile(t, filepath.Join(perfReportDir, "golden", "cwork.folded"))); got != want {
		t.Errorf("%s", stacktest.FirstDiff(got, want))
	}
	_, warn, _, err := foldInputs(t, "folded", false, report)
	if err != nil || !strings.Contains(warn, "cwork.perf-report-folded.txt:12:") {
		t.Errorf("perf report read as folded: err %v, warnings %q", err, warn)
	}
	if _, _, _, err := foldInputs(t, "stackprof", false, report); err == nil || !strings.Contains(err.Error(), "cwork.perf-report-folded.txt: stackprof JSON") {
		t.Errorf("perf report read as stackprof: err %v", err)
	}
}

// TestFolderUndetectable: input no format fits fails with its name;
// empty input folds to nothing.
func TestFolderUndetectable(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "notes.txt")
	os.WriteFile(bad, []byte("hello\nworld\n"), 0o644)
	_, _, _, err := foldInputs(t, Auto, false, bad)
	if err == nil || !strings.Contains(err.Error(), "notes.txt: not a profile in a format pfold reads") {
		t.Errorf("err = %v", err)
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("\n\n"), 0o644)
	out, _, detected, err := foldInputs(t, Auto, false, empty, filepath.Join(perfReportDir, "cwork.gregg-awk.folded"))
	if err != nil || !strings.HasPrefix(out, "cwork;") || strings.Join(detected, " ") != "empty.txt= cwork.gregg-awk.folded=folded" {
		t.Errorf("err %v, detected %v, out %.40q", err, detected, out)
	}
}

// TestDirectoryInput: a directory is an error, but for perf record
// --threads' recording, which is read through its header file "data"
// (the header finds the threads' files beside it).
func TestDirectoryInput(t *testing.T) {
	plain := t.TempDir()
	if _, _, _, err := foldInputs(t, Auto, false, plain); err == nil || err.Error() != plain+": is a directory" {
		t.Errorf("fold: %v", err)
	}
	if _, _, err := DetectInputs([]string{plain}, nil); err == nil || err.Error() != plain+": is a directory" {
		t.Errorf("DetectInputs: %v", err)
	}
	// perf record --kcore, failed: the directory, its data file empty.
	failed := filepath.Join(t.TempDir(), "kc.data")
	os.Mkdir(failed, 0o755)
	os.WriteFile(filepath.Join(failed, "data"), nil, 0o644)
	if _, _, _, err := foldInputs(t, Auto, false, failed); err == nil || !strings.Contains(err.Error(), "data file is empty: perf record wrote nothing") {
		t.Errorf("an empty recording directory: %v", err)
	}
	file := "../testdata/perfdata/cwork/perf.data"
	rec := filepath.Join(t.TempDir(), "perf.data")
	os.Mkdir(rec, 0o755)
	os.WriteFile(filepath.Join(rec, "data"), readTestFile(t, file), 0o644)
	want, _, _, err := foldInputs(t, Auto, false, file)
	if err != nil {
		t.Fatal(err)
	}
	got, _, detected, err := foldInputs(t, Auto, false, rec)
	if err != nil || got != want || len(detected) != 1 || detected[0] != "perf.data=perf-data" {
		t.Errorf("the directory folds to %d bytes (%v, detected %v), the file to %d", len(got), err, detected, len(want))
	}
	if formats, _, err := DetectInputs([]string{rec}, nil); err != nil || formats[0] == nil || formats[0].Name != "perf-data" {
		t.Errorf("DetectInputs: %v, %v", formats, err)
	}
}

// TestFolderLongInput: detection looks at the first SniffSize bytes and
// every line is then folded, none lost or doubled.
func TestFolderLongInput(t *testing.T) {
	var b bytes.Buffer
	for n := 0; b.Len() < 3*DetectSize; n++ {
		fmt.Fprintf(&b, "main;f%d 1\n", n%97)
	}
	path := filepath.Join(t.TempDir(), "long.folded")
	os.WriteFile(path, b.Bytes(), 0o644)
	out, _, _, err := foldInputs(t, Auto, false, path)
	if err != nil {
		t.Fatal(err)
	}
	if want := stacktest.Aggregate(t, b.Bytes()); out != want {
		t.Errorf("%s", stacktest.FirstDiff(out, want))
	}
}

// TestFolderMixedFormats: a file whose format changes part way is an
// error naming the line where it changes, in strict mode or not, either
// way round; a stray line alone is only a malformed line.
func TestFolderMixedFormats(t *testing.T) {
	script := readTestFile(t, "../testdata/perf/recorded/cwork.perf-script.txt")
	dtrace := readTestFile(t, "../testdata/dtrace/example-dtrace-stacks.txt")
	var folded []byte
	for i := 0; len(folded) < 2*DetectSize; i++ {
		folded = fmt.Appendf(folded, "app;main;f%d %d\n", i%500, i+1)
	}
	// Fewer lines than the folded sniffer looks at (64), longer than the
	// shortest start Detect looks at alone (512 bytes).
	var short []byte
	for i := range 40 {
		short = fmt.Appendf(short, "app;main;worker_loop;compute_step_%d;leaf_function_%d %d\n", i%7, i%3, i+1)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name          string
		first, second []byte
		from, to      string
		late          int
	}{
		{"folded-then-script.txt", folded, script, "folded", "perf-script", 0},
		// The first folded line, "app;main;f0 1", has the shape of a
		// perf script header "comm tid" (as -F comm,tid prints it): the
		// change shows on the next line.
		{"script-then-folded.txt", script, folded, "perf-script", "folded", 1},
		// dtrace takes any line for a frame; once its frames came
		// indented, a line at column 0 is none.
		// A first part shorter than what the sniffers see: the input
		// was detected as the second part's format, the first part's
		// lines reported as malformed one by one (lost, exit 0).
		{"short-folded-then-script.txt", short, script, "folded", "perf-script", 0},
		{"short-dtrace-then-jstack.txt", dtrace[:1500+bytes.Index(dtrace[1500:], []byte("\n\n"))+1], readTestFile(t, "../testdata/jstack/threads.txt"), "dtrace", "jstack", 0},
		{"dtrace-then-folded.txt", dtrace, folded, "dtrace", "folded", 0},
		{"dtrace-then-script.txt", dtrace, script, "dtrace", "perf-script", 0},
	} {
		path := filepath.Join(dir, tc.name)
		os.WriteFile(path, append(append([]byte{}, tc.first...), tc.second...), 0o644)
		line := bytes.Count(tc.first, []byte("\n")) + 1 + tc.late
		for _, strict := range []bool{false, true} {
			_, _, _, err := foldInputs(t, Auto, strict, path)
			want := fmt.Sprintf("%s:%d: the input changes format: %s before this line, %s from here on", tc.name, line, tc.from, tc.to)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("strict %v: err = %v, want %q", strict, err, want)
			}
		}
		// With --format, the user's choice stands: lines that do not fit
		// are malformed lines, not a change of format.
		_, warn, _, err := foldInputs(t, tc.from, false, path)
		if err != nil || !strings.Contains(warn, fmt.Sprintf("%s:%d:", tc.name, line)) {
			t.Errorf("--format %s: err %v, warnings %.200q", tc.from, err, warn)
		}
	}
	stray := filepath.Join(dir, "stray.txt")
	os.WriteFile(stray, append(append(append([]byte{}, folded...), "garbage here\n"...), folded...), 0o644)
	line := bytes.Count(folded, []byte("\n")) + 1
	_, warn, _, err := foldInputs(t, Auto, false, stray)
	if err != nil || !strings.Contains(warn, fmt.Sprintf("stray.txt:%d:", line)) {
		t.Errorf("a stray line: err %v, warnings %q", err, warn)
	}
}

// TestDetectInputsEmptyName: "" is standard input, as for stream.Open:
// its first bytes are looked at through the stdin given and handed on
// (they were read from os.Stdin and lost, and pfold given an empty name folded nothing).
func TestDetectInputsEmptyName(t *testing.T) {
	data, err := os.ReadFile("../testdata/perf/recorded/cwork.perf-script.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"-", ""} {
		formats, stdin, err := DetectInputs([]string{name}, bytes.NewReader(data))
		if err != nil || formats[0] == nil || formats[0].Name != "perf-script" {
			t.Fatalf("%q: %v, %v", name, formats, err)
		}
		var rest bytes.Buffer
		rest.ReadFrom(stdin)
		if !bytes.Equal(rest.Bytes(), data) {
			t.Errorf("%q: %d of %d bytes handed on", name, rest.Len(), len(data))
		}
	}
}
