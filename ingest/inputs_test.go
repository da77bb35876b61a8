package ingest

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/stream"
)

// foldInputs folds the named files with Inputs through the shared
// aggregator, as pfold does.
func foldInputs(t *testing.T, format Format, names ...string) (out, warnings string, detected []string, err error) {
	t.Helper()
	var warn bytes.Buffer
	agg := stream.NewAggregator(stream.Options{Mem: 64 << 20, TmpDir: t.TempDir()})
	defer agg.Close()
	diag := stream.NewDiag(&warn, false)
	in := &Inputs{
		Format:     format,
		PerfScript: NewPerfScript(PerfScriptOptions{Warn: &warn}, agg.Add, diag),
		Emit:       agg.Add,
		Diag:       diag,
		Detected: func(name string, f Format) {
			detected = append(detected, filepath.Base(name)+"="+string(f))
		},
	}
	r := stream.NewReader(names)
	defer r.Close()
	if err := in.Fold(r); err != nil {
		return "", warn.String(), detected, err
	}
	diag.Flush()
	var b bytes.Buffer
	if _, err := agg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), warn.String(), detected, nil
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

// TestInputsMixed: inputs of all four formats, one compressed, in one
// stream, each detected on its own; the result is the sum of folding
// each alone.
func TestInputsMixed(t *testing.T) {
	files := []string{
		gzipFile(t, filepath.Join(stackprofDir, "cpu.dump")),
		filepath.Join(perfReportDir, "threadname.perf-report-folded.txt"),
		"../testdata/perf/recorded/cwork.perf-script.noperiod.txt",
		filepath.Join(stackprofDir, "object.json"),
		filepath.Join(perfReportDir, "cwork.gregg-awk.folded"),
	}
	got, warn, detected, err := foldInputs(t, FormatAuto, files...)
	if err != nil || warn != "" {
		t.Fatalf("err %v, warnings %q", err, warn)
	}
	if want := "cpu.dump.gz=stackprof threadname.perf-report-folded.txt=perf-report cwork.perf-script.noperiod.txt=perf-script object.json=stackprof cwork.gregg-awk.folded=folded"; strings.Join(detected, " ") != want {
		t.Errorf("detected %s\nwant %s", strings.Join(detected, " "), want)
	}
	var all []byte
	for i, f := range files {
		format := Format(strings.SplitN(detected[i], "=", 2)[1])
		out, _, _, err := foldInputs(t, format, f)
		if err != nil {
			t.Fatalf("%s alone: %v", f, err)
		}
		all = append(all, out...)
	}
	if want := aggregateFolded(t, all); got != want {
		t.Errorf("mixed inputs differ from the sum of each: %s", firstDiff(got, want))
	}
}

// TestInputsExplicitFormat: a given format is used without detection,
// and a wrong one shows as malformed lines.
func TestInputsExplicitFormat(t *testing.T) {
	report := filepath.Join(perfReportDir, "cwork.perf-report-folded.txt")
	got, _, detected, err := foldInputs(t, FormatPerfReport, report)
	if err != nil || len(detected) != 0 {
		t.Fatalf("err %v, detected %v", err, detected)
	}
	if want := string(readTestFile(t, filepath.Join(perfReportDir, "golden", "cwork.folded"))); got != want {
		t.Errorf("%s", firstDiff(got, want))
	}
	_, warn, _, err := foldInputs(t, FormatFolded, report)
	if err != nil || !strings.Contains(warn, "cwork.perf-report-folded.txt:12:") {
		t.Errorf("perf report read as folded: err %v, warnings %q", err, warn)
	}
	if _, _, _, err := foldInputs(t, FormatStackprof, report); err == nil || !strings.Contains(err.Error(), "cwork.perf-report-folded.txt: stackprof JSON") {
		t.Errorf("perf report read as stackprof: err %v", err)
	}
}

// TestInputsUndetectable: input no format fits fails with its name;
// empty input folds to nothing.
func TestInputsUndetectable(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "notes.txt")
	os.WriteFile(bad, []byte("hello\nworld\n"), 0o644)
	_, _, _, err := foldInputs(t, FormatAuto, bad)
	if err == nil || !strings.Contains(err.Error(), "notes.txt: unrecognised input format") || !strings.Contains(err.Error(), "--format") {
		t.Errorf("err = %v", err)
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("\n\n"), 0o644)
	out, _, detected, err := foldInputs(t, FormatAuto, empty, filepath.Join(perfReportDir, "cwork.gregg-awk.folded"))
	if err != nil || !strings.HasPrefix(out, "cwork;") || strings.Join(detected, " ") != "empty.txt= cwork.gregg-awk.folded=folded" {
		t.Errorf("err %v, detected %v, out %.40q", err, detected, out)
	}
}

// TestInputsLongInput: detection stops after DetectSize bytes and the
// lines read meanwhile are folded, none lost or doubled.
func TestInputsLongInput(t *testing.T) {
	var b bytes.Buffer
	n := 0
	for b.Len() < 3*DetectSize {
		b.WriteString("main;f" + itoa(n%97) + " 1\n")
		n++
	}
	path := filepath.Join(t.TempDir(), "long.folded")
	os.WriteFile(path, b.Bytes(), 0o644)
	out, _, _, err := foldInputs(t, FormatAuto, path)
	if err != nil {
		t.Fatal(err)
	}
	if want := aggregateFolded(t, b.Bytes()); out != want {
		t.Errorf("%s", firstDiff(out, want))
	}
}
