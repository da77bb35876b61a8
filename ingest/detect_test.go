package ingest

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/stream"
)

// detectFile runs Detect on the first DetectSize decompressed bytes of a
// file, as pfold does.
func detectFile(t *testing.T, path string) (Format, error) {
	t.Helper()
	r, err := stream.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	buf := make([]byte, DetectSize)
	n, err := io.ReadFull(r, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		t.Fatal(err)
	}
	return Detect(buf[:n])
}

// TestDetectFixtures: every fixture of every format in testdata is
// recognised (perf script dumps in the lead's testdata/perf, the rest
// in this package's areas).
func TestDetectFixtures(t *testing.T) {
	want := map[string]Format{
		"../testdata/stackprof/*.dump":                    FormatStackprof,
		"../testdata/stackprof/*.json":                    FormatStackprof,
		"../testdata/stackprof/cli/*.stackcollapse.txt":   FormatFolded,
		"../testdata/stackprof/golden/*.folded":           FormatFolded,
		"../testdata/perfreport/*.perf-report-folded.txt": FormatPerfReport,
		"../testdata/perfreport/*.gregg-awk.folded":       FormatFolded,
		"../testdata/perfreport/golden/*.folded":          FormatFolded,
		"../testdata/perf/layouts/*.txt":                  FormatPerfScript,
		"../testdata/perf/recorded/*.txt*":                FormatPerfScript,
		"../testdata/perf/recorded/*.folded":              FormatFolded,
		"../testdata/perf/flamegraph/perf-*.txt*":         FormatPerfScript,
		"../testdata/perf/inferno/*.txt*":                 FormatPerfScript,
		"../testdata/perf/flamegraph/results/*":           FormatFolded,
		"../testdata/perf/inferno/results/*":              FormatFolded,
		"../testdata/callgrind/*.folded":                  FormatFolded,
	}
	n := 0
	for glob, format := range want {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if fi, err := os.Stat(f); err != nil || fi.IsDir() {
				continue
			}
			n++
			got, err := detectFile(t, f)
			if errors.Is(err, ErrNoData) {
				continue // empty fixtures (no events at all)
			}
			if err != nil || got != format {
				t.Errorf("%s: %q, %v; want %q", f, got, err, format)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d fixtures found", n)
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		in   string
		want Format // "" means an error containing errWant
		err  string
	}{
		{"\x04\x08{\x00", FormatStackprof, ""},
		{"  \n{\"version\":1.2}", FormatStackprof, ""},
		{"a;b 1\nc 2\n", FormatFolded, ""},
		{"a;b 1\nc 2", FormatFolded, ""},
		{"a;b 1\nc", FormatFolded, ""}, // last line cut short
		{"a;b 1.5\n", FormatFolded, ""},
		{"java 19983 cycles:\nffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n", FormatPerfScript, ""},
		{"           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])\n", FormatPerfScript, ""},
		{"\t  401136 leaf_a+0x16 (/tmp/cwork)\n\t  401200 main (/tmp/cwork)\n", FormatPerfScript, ""},
		{"# ========\n# captured on    : x\n# ========\n#\ncwork 1 [000] 1.0: 1 cpu-clock: \n\t 1 f (x)\n", FormatPerfScript, ""},
		{"#\n# Samples: 679  of event 'cpu-clock'\n", FormatPerfReport, ""},
		{"    84.87%          5910  xz        \n1 a;b\n", FormatPerfReport, ""},
		{"", "", "no data"},
		{"\n \n\r\n", "", "no data"},
		{"# only comments\n", "", "no data"},
		{"hello world\n", "", `first line "hello world"`},
		{"P=(ID=1 N=(x) T=0.01)\nC1 FN0=(F0=(a)+1 N=(f))+0 V0=(PERF_TICKS):(1,1,1)\n", "", "pigprof"},
		{"a;b 1\nnot folded\n", "", "unrecognised"},
	}
	for _, tt := range tests {
		got, err := Detect([]byte(tt.in))
		if tt.want == "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestDetectCompressed: Detect sees decompressed bytes.
func TestDetectCompressed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cwork.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write(readTestFile(t, "../testdata/perfreport/cwork.perf-report-folded.txt"))
	zw.Close()
	f.Close()
	if got, err := detectFile(t, path); err != nil || got != FormatPerfReport {
		t.Errorf("%q, %v", got, err)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range append(Formats, FormatAuto) {
		if got, err := ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("%s: %q, %v", f, got, err)
		}
	}
	if _, err := ParseFormat("perf"); err == nil || !strings.Contains(err.Error(), "perf-script, perf-report, stackprof, folded, perf-data, dtrace, auto") {
		t.Errorf("err = %v", err)
	}
}
