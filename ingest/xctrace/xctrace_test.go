package xctrace

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/xctrace"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(r); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func fold1(t testing.TB, inputs ...formattest.Input) formattest.Result {
	t.Helper()
	res, err := formattest.Fold(Format, nil, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGolden folds inferno's two exports; the goldens equal
// inferno-collapse-xctrace's output (testdata/xctrace/*.oracle.folded,
// run here).
func TestGolden(t *testing.T) {
	for _, base := range []string{"basic", "simple_frame_without_binary_info"} {
		t.Run(base, func(t *testing.T) {
			res := fold1(t, formattest.Input{Name: base, Data: read(t, base+".xml.gz")})
			if res.Malformed != 0 {
				t.Errorf("warnings: %s", res.Warnings)
			}
			golden := filepath.Join("golden", base+".folded")
			if *update {
				os.MkdirAll(filepath.Join(dir, "golden"), 0o755)
				os.WriteFile(filepath.Join(dir, golden), []byte(res.Folded), 0o644)
			}
			want := string(read(t, golden))
			if res.Folded != want {
				t.Fatalf("output differs from %s", golden)
			}
			if oracle := string(read(t, base+".inferno.oracle.folded")); want != oracle {
				t.Errorf("golden differs from inferno's output")
			}
		})
	}
}

const head = `<?xml version="1.0"?>
<trace-query-result>
<node xpath='//trace-toc[1]/run[1]/data[1]/table[11]'><schema name="time-profile"><col><mnemonic>stack</mnemonic></col></schema>
`

// TestReferences: frames and backtraces written once and referred to
// after, rows without a backtrace, several nodes, Rust names.
func TestReferences(t *testing.T) {
	doc := head + `<row><weight id="9" fmt="1.00 ms">1000000</weight><backtrace id="10"><frame id="11" name="leaf" addr="0x1"><binary id="12" name="a"/></frame><frame id="13" name="main" addr="0x2"/></backtrace></row>
<row><weight ref="9"/><backtrace ref="10"/></row>
<row><sentinel/></row>
<row><backtrace id="20"><frame id="21" name="_$LT$T$u20$as$u20$core..fmt..Debug$GT$::fmt::h0123456789abcdef" addr="0x3"></frame><frame ref="13"/></backtrace></row>
</node>
<node><row><backtrace ref="20"/></row><row><backtrace id="30"><frame id="31" name="x;&#10;y"/><frame ref="11"/><frame ref="13"/></backtrace></row></node>
</trace-query-result>
`
	var p *parser
	f := Format
	f.NewDocument = func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		q, err := Format.NewDocument(opts, emit, diag)
		p = q.(*parser)
		return q, err
	}
	res, err := formattest.Fold(f, nil, formattest.Input{Name: "x", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	want := "main;<T as core::fmt::Debug>::fmt 2\nmain;leaf 2\nmain;leaf;x: y 1\n"
	if res.Folded != want || res.Malformed != 0 {
		t.Errorf("%s\nwant\n%s%s", res.Folded, want, res.Warnings)
	}
	if s := p.Stats(); s != "6 rows, 1 without a backtrace left out" {
		t.Errorf("stats %q", s)
	}
}

// TestMalformed: what inferno stops at is reported; the rows read are
// kept.
func TestMalformed(t *testing.T) {
	cases := []struct {
		name, doc, want string
		warnings        int
		at              string
	}{
		{"unknown backtrace ref", head + "<row><backtrace ref=\"99\"/></row><row><backtrace id=\"1\"><frame id=\"2\" name=\"a\"/></backtrace></row></node></trace-query-result>",
			"a 1\n", 1, "x:4:"},
		{"unknown frame ref", head + "<row><backtrace id=\"1\"><frame ref=\"7\"/><frame id=\"2\" name=\"a\"/></backtrace></row></node></trace-query-result>",
			"a;[unknown] 1\n", 1, "x:4:"},
		{"frame without name", head + "<row><backtrace id=\"1\"><frame id=\"2\"/></backtrace></row></node></trace-query-result>",
			"[unknown] 1\n", 1, "x:4:"},
		{"cut short", head + "<row><backtrace id=\"1\"><frame id=\"2\" name=\"a\"/></backtrace></row>\n<row><backtrace ref=\"1\"/>",
			"a 1\n", 1, "x:5:"},
		{"not XML", head + "<row><backtrace id=\"1\"><frame id=\"2\" name=\"a\"/></backtrace></row>\n<row <<</row>",
			"a 1\n", 1, "x:5:"},
		{"second id", head + "<row><backtrace id=\"1\"><frame id=\"2\" name=\"a\"/></backtrace></row>\n<row><backtrace id=\"1\"><frame id=\"3\" name=\"b\"/></backtrace></row><row><backtrace ref=\"1\"/></row></node></trace-query-result>",
			"a 1\nb 2\n", 1, "x:5:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := fold1(t, formattest.Input{Name: "x", Data: []byte(tc.doc)})
			if res.Folded != tc.want || res.Malformed != tc.warnings || !strings.Contains(res.Warnings, tc.at) {
				t.Errorf("%s\nwant\n%s%s", res.Folded, tc.want, res.Warnings)
			}
			if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "x", Data: []byte(tc.doc)}); err == nil || !strings.Contains(err.Error(), tc.at) {
				t.Errorf("strict: %v", err)
			}
		})
	}
	// References do not reach into the next input.
	a := head + `<row><backtrace id="1"><frame id="2" name="a"/></backtrace></row></node></trace-query-result>`
	b := head + `<row><backtrace ref="1"/></row></node></trace-query-result>`
	res := fold1(t, formattest.Input{Name: "a", Data: []byte(a)}, formattest.Input{Name: "b", Data: []byte(b)})
	if res.Folded != "a 1\n" || res.Malformed != 1 || !strings.Contains(res.Warnings, "b:4:") {
		t.Errorf("%s%s", res.Folded, res.Warnings)
	}
	// Rows outside <trace-query-result><node> are not read.
	res = fold1(t, formattest.Input{Name: "c", Data: []byte(`<?xml version="1.0"?><other><node><row><backtrace id="1"><frame id="2" name="a"/></backtrace></row></node></other>`)})
	if res.Folded != "" || res.Malformed != 0 {
		t.Errorf("%q %s", res.Folded, res.Warnings)
	}
}

var notSure = []string{
	"../perf/recorded/*.txt", "../perf/recorded/*.gz", "../perf/flamegraph/*.txt", "../dtrace/*.txt",
	"../pfilter/iperf.folded", "../stackprof/*.json", "../stackprof/*.dump", "../igprof/*.gz",
	"../igprof/*.txt", "../perfreport/*.txt",
	"../sample/*.txt", "../sample/*.gz", "../instruments/*.txt", "../vtune/*.csv", "../vtunemc/*.csv", "../vsprof/*.csv",
}

func TestSniff(t *testing.T) {
	for _, f := range []string{"basic.xml.gz", "simple_frame_without_binary_info.xml.gz"} {
		b := read(t, f)
		if s := Format.Sniff(b[:format.SniffSize]); s != format.Sure {
			t.Errorf("%s: %v", f, s)
		}
	}
	n := 0
	for _, g := range notSure {
		others, _ := filepath.Glob(filepath.Join(dir, g))
		for _, p := range others {
			n++
			rel, _ := filepath.Rel(dir, p)
			b := read(t, rel)
			if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
				t.Errorf("%s taken for xctrace", p)
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d other inputs", n)
	}
	rnd := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(rnd)
	for _, s := range []string{
		"Nov  2 10:00:01 host kernel: <?xml <trace-query-result>\n",
		string(rnd),
		`{"xml": "<trace-query-result>"}`,
		`<?xml version="1.0"?><trace-toc><run number="1"/></trace-toc>`,
		`<?xml version="1.0"?><svg><text>trace-query-result</text></svg>`,
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%.40q taken for xctrace", s)
		}
	}
}

func FuzzXCTrace(f *testing.F) {
	b := read(f, "basic.xml.gz")
	i := bytes.Index(b[20000:], []byte("</row>")) + 20000 + len("</row>")
	f.Add(append(b[:i:i], "</node></trace-query-result>\n"...))
	f.Add([]byte(head + `<row><backtrace id="1"><frame id="2" name="a"/><frame ref="2"/></backtrace></row><row><backtrace ref="1"/></row></node></trace-query-result>`))
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkXCTrace folds inferno's basic.xml (1.8 MB, 9581 samples), the
// stacks going nowhere: the parser alone.
func BenchmarkXCTrace(b *testing.B) {
	data := read(b, "basic.xml.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	emit := func([]byte, fold.Count) error { return nil }
	diag := stream.NewDiag(io.Discard, false)
	defer cpuRate(b, int64(len(data)))()
	for b.Loop() {
		p, _ := Format.NewDocument(format.MapOptions{}, emit, diag)
		if err := p.Read("x", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

type oracleRun struct {
	folded, warnings, stats string
	malformed               int
	err                     error
}

// runFormat folds data with f (Format or the oracle, refFormat) the way
// pfold does, the input read through wrap, and says what came out.
func runFormat(f format.Format, data []byte, wrap func(io.Reader) io.Reader, strict bool) oracleRun {
	sums := map[string]fold.Count{}
	var warn bytes.Buffer
	diag := stream.NewDiag(&warn, strict)
	p, err := f.NewDocument(format.MapOptions{}, func(stack []byte, c fold.Count) error {
		s, err := sums[string(stack)].Add(c)
		sums[string(stack)] = s
		return err
	}, diag)
	if err != nil {
		return oracleRun{err: err}
	}
	err = p.Read("fuzz", wrap(bytes.NewReader(data)))
	diag.Flush()
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []byte
	for _, k := range keys {
		out = fold.AppendLine(out, []byte(k), sums[k])
	}
	return oracleRun{folded: string(out), warnings: warn.String(), malformed: diag.Count(), stats: p.(format.Stater).Stats(), err: err}
}

// FuzzOracle folds any input with the parser and with the one it
// replaced (encoding/xml's RawToken, oracle_test.go): where encoding/xml
// reads the whole input, both give the same stacks, warnings (lines
// included), stats and errors, strict or not, whether the input comes
// whole or byte by byte.
func FuzzOracle(f *testing.F) {
	b := read(f, "basic.xml.gz")
	i := bytes.Index(b[20000:], []byte("</row>")) + 20000 + len("</row>")
	f.Add(append(b[:i:i], "</node></trace-query-result>\n"...))
	f.Add([]byte(head + `<row><backtrace id="1"><frame id="2" name="a"/><frame ref="2"/></backtrace></row><row><backtrace ref="1"/></row></node></trace-query-result>`))
	f.Add([]byte("\xef\xbb\xbf<?xml version='1.0' encoding='UTF-8'?>\r\n<!DOCTYPE x [<!ENTITY a 'b'> <!-- c> -->]><trace-query-result><!-- x --><node><![CDATA[<row>]]><row ><x:backtrace a:id='9' id=\"1\"\n><frame id=\"2\" name=\"a&amp;b&#10;c&#x3b;\r\nd\"/><frame ref=\"3\"/></x:backtrace></row><row><backtrace ref='1'/></row><?pi x?></node></trace-query-result>"))
	f.Add([]byte(`<?xml version="1.1"?><trace-query-result/>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		formattest.Fuzz(t, Format, data)
		wrap := func(r io.Reader) io.Reader { return r }
		if len(data)%2 == 1 {
			wrap = iotest.OneByteReader
		}
		for _, strict := range []bool{false, true} {
			got := runFormat(Format, data, wrap, strict)
			want := runFormat(refFormat, data, func(r io.Reader) io.Reader { return r }, strict)
			if strings.Contains(want.warnings, "not well-formed XML") || strings.Contains(want.warnings, "XML: ") ||
				want.err != nil && (strings.Contains(want.err.Error(), "not well-formed XML") || strings.Contains(want.err.Error(), "XML: ")) {
				continue // encoding/xml stopped where the XML is not well formed
			}
			if got.folded != want.folded || got.warnings != want.warnings || got.malformed != want.malformed || got.stats != want.stats ||
				(got.err == nil) != (want.err == nil) || got.err != nil && got.err.Error() != want.err.Error() {
				t.Fatalf("strict %v:\ngot  %q %q %d %q %v\nwant %q %q %d %q %v", strict,
					got.folded, got.warnings, got.malformed, got.stats, got.err,
					want.folded, want.warnings, want.malformed, want.stats, want.err)
			}
		}
	})
}

// largeExport is a long recording: basic.xml's rows again and again to
// 64 MB, each copy's ids and references renumbered (as a later part of
// the trace would define its frames and backtraces anew), as benchgen
// -format xctrace writes it.
func largeExport(b *testing.B) []byte {
	data := read(b, "basic.xml.gz")
	first := bytes.Index(data, []byte("<row>"))
	last := bytes.LastIndex(data, []byte("</row>")) + len("</row>\n")
	head, rows, tail := data[:first], data[first:last], data[last:]
	num := regexp.MustCompile(`\b(id|ref)="([0-9]+)"`)
	var buf bytes.Buffer
	buf.Write(head)
	for k := 0; buf.Len() < 64<<20; k++ {
		if k == 0 {
			buf.Write(rows)
			continue
		}
		buf.Write(num.ReplaceAllFunc(rows, func(m []byte) []byte {
			sub := num.FindSubmatch(m)
			n, _ := strconv.Atoi(string(sub[2]))
			return fmt.Appendf(nil, `%s="%d"`, sub[1], n+k*1000000)
		}))
	}
	buf.Write(tail)
	return buf.Bytes()
}

func benchParse(b *testing.B, f format.Format, data []byte) {
	emit := func([]byte, fold.Count) error { return nil }
	diag := stream.NewDiag(io.Discard, false)
	p, _ := f.NewDocument(format.MapOptions{}, emit, diag)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer cpuRate(b, int64(len(data)))()
	for b.Loop() {
		if err := p.Read("x", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse is the parser alone on a 64 MB export (largeExport).
func BenchmarkParse(b *testing.B) { benchParse(b, Format, largeExport(b)) }

// BenchmarkParseOracle is BenchmarkParse with the parser this one
// replaced (encoding/xml), for the record.
func BenchmarkParseOracle(b *testing.B) { benchParse(b, refFormat, largeExport(b)) }

// cpuRate reports the throughput by the process's CPU time (user and
// system), which a machine shared with other jobs does not inflate as it
// does the wall time behind MB/s.
func cpuRate(b *testing.B, bytes int64) func() {
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	return func() {
		var after syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
		if cpu > 0 {
			b.ReportMetric(float64(bytes)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
		}
	}
}

// TestLimit: a tag longer than the scanner holds stops the reading with
// a message at its line and offset; the rows before it are folded.
func TestLimit(t *testing.T) {
	var warn bytes.Buffer
	c := map[string]fold.Count{}
	q, _ := Format.NewDocument(nil, func(s []byte, n fold.Count) error { c[string(s)] = n; return nil }, stream.NewDiag(&warn, false))
	q.(*parser).limit = 1000
	doc := head + `<row><backtrace id="1"><frame id="2" name="a"/></backtrace></row>` + "\n" +
		`<row><backtrace id="3"><frame id="4" name="` + strings.Repeat("b", 5000) + `"/></backtrace></row></node></trace-query-result>`
	if err := q.Read("x", bytes.NewReader([]byte(doc))); err != nil {
		t.Fatal(err)
	}
	if len(c) != 1 || c["a"] != fold.Int(1) || !strings.Contains(warn.String(), "x:5: at byte 261: an XML tag or comment longer than 1000 bytes") {
		t.Errorf("%v %s", c, warn.String())
	}
}
