package ingest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// detectFile runs Detect on the first SniffSize decompressed bytes of a
// file, as pfold does.
func detectFile(t *testing.T, path string) (string, error) {
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
	f, err := Detect(buf[:n])
	if err != nil {
		return "", err
	}
	return f.Name, nil
}

// DetectSize is how many bytes the tests give Detect, as pfold does.
const DetectSize = 64 << 10

// fixtures maps globs of testdata to the format each file is in. Every
// file of testdata that is a profile input or a folded output is listed,
// so that each sniffer is tried on every other format's files.
var fixtures = map[string]string{
	"../testdata/stackprof/*.dump":                    "stackprof",
	"../testdata/stackprof/*.json":                    "stackprof",
	"../testdata/stackprof/cli/*.stackcollapse.txt":   "folded",
	"../testdata/stackprof/golden/*.folded":           "folded",
	"../testdata/perfreport/*.perf-report-folded.txt": "perf-report",
	"../testdata/perfreport/*.gregg-awk.folded":       "folded",
	"../testdata/perfreport/golden/*.folded":          "folded",
	"../testdata/perf/layouts/*.txt":                  "perf-script",
	"../testdata/perf/recorded/*.txt*":                "perf-script",
	"../testdata/perf/recorded/*.folded":              "folded",
	"../testdata/perf/flamegraph/perf-*.txt*":         "perf-script",
	"../testdata/perf/inferno/*.txt*":                 "perf-script",
	"../testdata/perf/flamegraph/results/*":           "folded",
	"../testdata/perf/inferno/results/*":              "folded",
	"../testdata/perf/golden/*":                       "folded",
	"../testdata/callgrind/*.folded":                  "folded",
	"../testdata/pfilter/*.folded":                    "folded",
	"../testdata/igprof/*.gz":                         "igprof",
	"../testdata/igprof/*.txt":                        "igprof",
	"../testdata/igprof/golden/*":                     "folded",
	"../testdata/perfdata/*/perf.data":                "perf-data",
	"../testdata/perfdata/*/perf-script.txt.gz":       "perf-script",
	"../testdata/dtrace/*.txt":                        "dtrace",
	"../testdata/gdb/*.txt":                           "gdb",
	"../testdata/elfutils/*.txt":                      "elfutils",
	"../testdata/ghcprof/*.prof":                      "ghcprof",
	"../testdata/xdebug/*.xt":                         "xdebug",
	"../testdata/faulthandler/*.txt":                  "faulthandler",
	"../testdata/goraw/*.txt":                         "go",
	"../testdata/pprofproto/*.pb.gz":                  "pprof",
	"../testdata/jstack/*.txt":                        "jstack",
	"../testdata/ibmjava/*.txt":                       "ibmjava",
	"../testdata/javaexceptions/*.log":                "java-exceptions",
	"../testdata/ljp/*.txt":                           "ljp",
	"../testdata/sample/sample.txt":                   "sample",
	"../testdata/sample/large.txt.gz":                 "sample",
	"../testdata/sample/plain-c.txt":                  "sample",
	"../testdata/instruments/*.txt":                   "instruments",
	"../testdata/xctrace/*.xml.gz":                    "xctrace",
	"../testdata/vtune/vtune.csv":                     "vtune",
	"../testdata/vtune/handmade.csv":                  "vtune",
	"../testdata/vtunemc/*.csv":                       "vtune-mc",
	"../testdata/vsprof/CallTreeSummary.csv":          "vsprof",
	"../testdata/vsprof/samples.csv":                  "vsprof",
	"../testdata/chrome/*.json*":                      "chrome",
	"../testdata/bpftrace/*.txt*":                     "bpftrace",
	"../testdata/stap/*.txt":                          "stap",
	"../testdata/pmc/*.txt":                           "pmc",
	"../testdata/aix/*.txt":                           "aix",
	"../testdata/wcp/*.txt":                           "wcp",
	"../testdata/perfsched/*.txt*":                    "perf-sched",
	"../testdata/perfsched/raw/*":                     "perf-script", // sched_switch alone: not off-CPU input
	"../testdata/cpuprofile/*.cpuprofile":             "cpuprofile",
	// Every format's oracle and golden outputs are folded stacks.
	"../testdata/*/*.oracle.folded*": "folded",
	"../testdata/*/golden/*.folded*": "folded",
}

// notFolded are oracle outputs that are not valid folded stacks: what a
// reference script prints where it is wrong.
var notFolded = map[string]bool{
	"../testdata/xdebug/assign.oracle.folded":    true, // the PHP's warnings among its stacks
	"../testdata/chrome/misnested.oracle.folded": true, // the script's line break inside a name
}

// TestDetectFixtures: every fixture of every format in testdata is
// recognised as its format, and by no sniffer that comes before it.
func TestDetectFixtures(t *testing.T) {
	n := 0
	for glob, want := range fixtures {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("%s: no files", glob)
		}
		for _, f := range files {
			if fi, err := os.Stat(f); err != nil || fi.IsDir() || notFolded[f] {
				continue
			}
			n++
			got, err := detectFile(t, f)
			if errors.Is(err, ErrNoData) {
				continue // empty fixtures (no events at all)
			}
			if err != nil || got != want {
				t.Errorf("%s: %q, %v; want %q", f, got, err, want)
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d fixtures found", n)
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" means an error containing err
		err  string
	}{
		{"\x04\x08{\x00", "stackprof", ""},
		{"  \n{\"version\":1.2,\"mode\":\"cpu\",\"interval\":1000}", "stackprof", ""},
		{"a;b 1\nc 2\n", "folded", ""},
		{"a;b 1\nc 2", "folded", ""},
		{"a;b 1\nc", "folded", ""}, // last line cut short
		{"a;b 1.5\n", "folded", ""},
		{"main 3\nf 1\n", "folded", ""},
		{"java 19983 cycles:\nffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n", "perf-script", ""},
		{"           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])\n           false 39654 19115.489714:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])\n", "perf-script", ""},
		{"\t  401136 leaf_a+0x16 (/tmp/cwork)\n\t  401200 main (/tmp/cwork)\n\t  401300 _start (/tmp/cwork)\n", "perf-script", ""},
		{"# ========\n# captured on    : x\n# ========\n#\ncwork 1 [000] 1.0: 1 cpu-clock: \n\t 1 f (x)\n", "perf-script", ""},
		{"#\n# Samples: 679  of event 'cpu-clock'\n", "perf-report", ""},
		{"    84.87%          5910  xz        \n1 a;b\n", "perf-report", ""},
		{"P=(ID=1 N=(x) T=0.01)\nC1 FN0=(F0=(a)+1 N=(f))+0 V0=(PERF_TICKS):(1,1,1)\n", "igprof", ""},
		{"PERFILE2\x10\x00\x00\x00\x00\x00\x00\x00", "perf-data", ""},
		{"", "", "no data"},
		{"\n \n\r\n", "", "no data"},
		{"# only comments\n", "", "no data"},
		{"hello world\n", "", `first line: "hello world"`},
		{"a;b 1\nnot folded\nnor this\n", "", "not a profile in a format pfold reads (tried " + strings.Join(Names(), ", ") + ")"},
		// What issue 14 saw guessed: syslog, random bytes, JSON, CSV.
		{"Nov  2 10:00:01 host sshd[1234]: Accepted publickey for root from 10.0.0.1 port 50000\nNov  2 10:00:02 host systemd[1]: Started Session 3 of user root.\n", "", `first line: "Nov  2 10:00:01 host sshd[1234]: Accepted publickey for root from 10.0.0.1 port "…`},
		{`{"name": "x", "values": [1, 2, 3]}`, "", "this is JSON"},
		{"id,name,value\n1,a,2\n2,b,3\n", "", `first line: "id,name,value"`},
		{"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00", "", "an ELF executable or library, not a profile: profile it: perf record -g"},
		{"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00>\x00", "", "an ELF core dump"},
		{"\x89PNG\r\n\x1a\n\x00\x00", "", "a PNG image"},
		{"PK\x03\x04\x14\x00", "", "a zip archive"},
		// Archives whose members are profiles: the magic bytes say what
		// the file is before a sniffer sees the text the archive holds
		// (a tar of a folded file folded to a stack of header bytes).
		{tarOf("a.folded", "a;b 1\nc;d 2\n", tar.FormatGNU), "", "this is a tar archive, not a profile: unpack it"},
		{tarOf("a.folded", "a;b 1\nc;d 2\n", tar.FormatPAX), "", "this is a tar archive, not a profile: unpack it"},
		{tarOf("a.folded", "a;b 1\nc;d 2\n", tar.FormatUSTAR), "", "this is a tar archive, not a profile: unpack it"},
		{"!<arch>\na.folded/       0           0     0     644     12        `\na;b 1\nc;d 2\n", "", "this is an ar archive"},
		{"<?xml version=\"1.0\"?>\n<svg version=\"1.1\" width=\"1200\">", "", "an SVG image"},
		// What pfold's other binaries write. ptop's counts, indented
		// numbers then a name, are frame lines to perf script's sniffer.
		{"==================================\n  Samples: 259 in 355 stacks\n  Frames: 470 (470 shown)\n==================================\n     TOTAL    (pct)     SAMPLES    (pct)     FRAME\n" +
			strings.Repeat("  50000000  (19.3%)    48500000  (18.7%)     _PyEval_EvalFrameDefault\n", 5), "", "this is a stackprof-style text report (stackprof --text, ptop), not a profile: it is a report already"},
		{"==================================\n  Mode: cpu(1000)\n  Samples: 4 (0.00% miss rate)\n", "", "a stackprof-style text report"},
		{"digraph profile {\n  node [shape=box];\n}\n", "", "a Graphviz graph (pdot's output?), not a profile: render it with dot -Tsvg"},
		{"2ELIFREP\x00\x00\x00\x00\x00\x00\x00h", "", "this is a big-endian perf.data profile, a format pfold does not read: it was recorded on a big-endian machine (s390x, ppc64); perf script reads it: perf script -i FILE | pfold"},
		{"PERFFILE\x00\x00\x00\x00\x00\x00\x00h", "", "this is an old perf.data profile, a format pfold does not read: it is in perf's first file format (PERFFILE)"},
		{"# callgrind format\nversion: 1\ncreator: pcallgrind\n", "", "this is a callgrind profile, a format pfold does not read: open it with kcachegrind or callgrind_annotate (pcallgrind writes this format)"},
		{"a;b 10 20\na;c 5 0\n", "", "this is a differential of folded stacks (BEFORE AFTER, as pdiff writes it), not a profile: pflame draws it"},
	}
	for _, tt := range tests {
		f, err := Detect([]byte(tt.in))
		if tt.want == "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%.40q: %v, %v; want error %q", tt.in, f, err, tt.err)
			}
			continue
		}
		if err != nil || f.Name != tt.want {
			t.Errorf("%.40q: %v, %v; want %q", tt.in, f, err, tt.want)
		}
	}
}

// TestDetectRandomBytes: random bytes are binary data, never a profile.
func TestDetectRandomBytes(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 200; i++ {
		b := make([]byte, 1+rnd.Intn(8192))
		rnd.Read(b)
		f, err := Detect(b)
		var np *NotProfileError
		if err == nil || !errors.As(err, &np) {
			t.Fatalf("%d random bytes taken for %v (%v)", len(b), f, err)
		}
		if len(b) > 64 && np.What != "binary data" {
			t.Errorf("%d random bytes: %q", len(b), err)
		}
	}
}

// TestDetectFirstLineCut: the quoted first line is escaped and cut to 80
// characters.
func TestDetectFirstLineCut(t *testing.T) {
	_, err := Detect([]byte(strings.Repeat("é", 100) + "\n"))
	if err == nil || !strings.Contains(err.Error(), `"`+strings.Repeat("é", 40)+`"…`) {
		t.Errorf("err = %v", err)
	}
	// Bytes that are no UTF-8 are quoted, not cut away: the cut backs
	// off an incomplete character only (random bytes quoted "" before).
	_, err = Detect([]byte("\xff\xfe" + strings.Repeat("a", 77) + "\xe2\x82\xac\n"))
	if err == nil || !strings.Contains(err.Error(), `"\xff\xfe`+strings.Repeat("a", 77)+`"…`) {
		t.Errorf("err = %v", err)
	}
	_, err = Detect([]byte("\x01\x02\x03\x04" + strings.Repeat("\x80", 100)))
	if err == nil || !strings.Contains(err.Error(), `first line: "\x01\x02\x03\x04\x80`) {
		t.Errorf("err = %v", err)
	}
	_, err = Detect([]byte("tab\there\x1b[0m\n"))
	if err == nil || !strings.Contains(err.Error(), `"tab\there\x1b[0m"`) {
		t.Errorf("err = %v", err)
	}
}

// TestDetectCompressed: Detect sees decompressed bytes.
func TestDetectCompressed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cwork.gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	data, err := os.ReadFile("../testdata/perfreport/cwork.perf-report-folded.txt")
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(data)
	zw.Close()
	os.WriteFile(path, b.Bytes(), 0o644)
	if got, err := detectFile(t, path); err != nil || got != "perf-report" {
		t.Errorf("%q, %v", got, err)
	}
}

func TestLookup(t *testing.T) {
	for _, n := range Names() {
		if f, err := Lookup(n); err != nil || f.Name != n {
			t.Errorf("%s: %v, %v", n, f, err)
		}
	}
	if _, err := Lookup("perf"); err == nil || !strings.Contains(err.Error(), strings.Join(Names(), ", ")+" or auto") {
		t.Errorf("err = %v", err)
	}
}

// TestDescribe: what the consumers of folded stacks say about input that
// is not folded.
func TestDescribe(t *testing.T) {
	for in, want := range map[string]string{
		"perf 1 [000] 1.0: 1 cpu-clock: \n\t 401136 f (x)\n\n": "looks like perf script output: pipe it through pfold first",
		"a;b 1\n": "",
		"hello\n": "",
		"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00": "looks like an ELF executable or library, not a profile: profile it: perf record -g -- PROGRAM, then pfold perf.data",
		"\x89PNG\r\n\x1a\n\x00\x00": "looks like a PNG image, not a profile",
		"digraph profile {\n}\n":    "looks like a Graphviz graph (pdot's output?), not a profile: render it with dot -Tsvg",
	} {
		if got := Describe([]byte(in)); got != want {
			t.Errorf("%.30q: %q, want %q", in, got, want)
		}
	}
}

// TestRefuseFolded: only a first line that cannot start folded text is
// refused; text that merely does not parse is left to the reader.
func TestRefuseFolded(t *testing.T) {
	for in, want := range map[string]string{
		"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00": "this is an ELF executable or library: profile it: perf record -g -- PROGRAM, then pfold perf.data",
		"PERFILE2h\x00\x00\x00":        "this is a perf.data recording: pipe it through pfold first",
		"# callgrind format":           "this is a callgrind profile: open it with kcachegrind or callgrind_annotate",
		"\x89PNG\r\n\x1a\n":            "this is a PNG image",
		"a;b 1":                        "",
		"MZ;start 3":                   "", // weak: a frame may start so
		"# a comment":                  "",
		"digraph profile {":            "", // not a stack either: the reader says so at the end
		"perf 1 [000] 1.0: cpu-clock:": "",
	} {
		if got := RefuseFolded([]byte(in)); got != want {
			t.Errorf("%.30q: %q, want %q", in, got, want)
		}
	}
}

// TestSharedFlags: formats that share a flag define it alike (pfold's
// command line has one flag of each name, taken from the first format
// that lists it), and no two flags share an alias.
func TestSharedFlags(t *testing.T) {
	type def struct {
		format string
		flag   format.Flag
	}
	seen := map[string]def{}
	alias := map[string]string{}
	for _, f := range Registered {
		for _, fl := range f.Flags {
			if d, ok := seen[fl.Name]; ok {
				if d.flag.Kind != fl.Kind || d.flag.Usage != fl.Usage || d.flag.Default != fl.Default || !slices.Equal(d.flag.Aliases, fl.Aliases) {
					t.Errorf("--%s: %s defines it as %+v, %s as %+v", fl.Name, d.format, d.flag, f.Name, fl)
				}
				continue
			}
			seen[fl.Name] = def{f.Name, fl}
			for _, a := range append([]string{fl.Name}, fl.Aliases...) {
				if other, ok := alias[a]; ok && other != fl.Name {
					t.Errorf("-%s names both --%s and --%s", a, other, fl.Name)
				}
				alias[a] = fl.Name
			}
		}
	}
}

// tarOf is a tar archive holding one file, in the given tar format.
func tarOf(name, body string, f tar.Format) string {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Format: f})
	tw.Write([]byte(body))
	tw.Close()
	return b.String()
}

// TestDetectNoFalseChange: no input in testdata is taken for one whose
// format changes part way (Detect's look at an input's start, for
// `cat a.folded b.perf.txt` with a short a.folded), nor its start cut at
// a line end, nor that start given twice (dumps appended to each other).
func TestDetectNoFalseChange(t *testing.T) {
	detected := 0
	eachTestdataInput(t, format.SniffSize, func(path string, prefix []byte) {
		var change *ChangeError
		if _, err := Detect(prefix); errors.As(err, &change) {
			t.Errorf("%s: %v", path, err)
			return
		} else if err != nil {
			return // not a profile
		}
		detected++
		for _, size := range []int{300, 600, 1100, 2100, 4200, 9000, 20000, 40000} {
			if size >= len(prefix) {
				break
			}
			end := bytes.LastIndexByte(prefix[:size], '\n') + 1
			if end == 0 {
				continue
			}
			cut := prefix[:end]
			for _, in := range [][]byte{cut, append(slices.Clip(cut), cut...)} {
				if _, err := Detect(in); errors.As(err, &change) {
					t.Errorf("%s cut to %d bytes (%d given): %v", path, end, len(in), err)
				}
			}
		}
	})
	if detected < 500 {
		t.Errorf("%d inputs detected in testdata: the walk missed them", detected)
	}
}

// eachTestdataInput calls fn with the path and the first limit bytes
// (decompressed) of every file under testdata that opens as an input.
func eachTestdataInput(t *testing.T, limit int64, fn func(path string, b []byte)) {
	t.Helper()
	err := filepath.Walk("../testdata", func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || info.Size() == 0 {
			return err
		}
		in, err := stream.Open(path)
		if err != nil {
			return nil // not an input (a broken compressed fixture)
		}
		b, err := io.ReadAll(io.LimitReader(in, limit))
		in.Close()
		if err == nil {
			fn(path, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
