package xctrace

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/xctrace"

func fold1(t testing.TB, inputs ...formattest.Input) formattest.Result {
	t.Helper()
	res, err := formattest.Fold(Format, nil, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGolden folds inferno's two exports; the goldens equal
// inferno-collapse-xctrace's output (testdata/xctrace/*.inferno.oracle.folded,
// run here).
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.xml.gz"}, Ext: ".xml", Min: 2,
		References: []formattest.Reference{{Name: "inferno", Tool: "inferno-collapse-xctrace"}},
	}.Test(t)
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
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "unknown backtrace ref", In: head + "<row><backtrace ref=\"99\"/></row><row><backtrace id=\"1\"><frame id=\"2\" name=\"a\"/></backtrace></row></node></trace-query-result>",
			Want: "a 1\n", Malformed: 1, Warn: []string{"in:4:"}},
		{Name: "unknown frame ref", In: head + "<row><backtrace id=\"1\"><frame ref=\"7\"/><frame id=\"2\" name=\"a\"/></backtrace></row></node></trace-query-result>",
			Want: "a;[unknown] 1\n", Malformed: 1, Warn: []string{"in:4:"}},
		{Name: "frame without name", In: head + "<row><backtrace id=\"1\"><frame id=\"2\"/></backtrace></row></node></trace-query-result>",
			Want: "[unknown] 1\n", Malformed: 1, Warn: []string{"in:4:"}},
		{Name: "cut short", In: head + "<row><backtrace id=\"1\"><frame id=\"2\" name=\"a\"/></backtrace></row>\n<row><backtrace ref=\"1\"/>",
			Want: "a 1\n", Malformed: 1, Warn: []string{"in:5:"}},
		{Name: "not XML", In: head + "<row><backtrace id=\"1\"><frame id=\"2\" name=\"a\"/></backtrace></row>\n<row <<</row>",
			Want: "a 1\n", Malformed: 1, Warn: []string{"in:5:"}},
		{Name: "second id", In: head + "<row><backtrace id=\"1\"><frame id=\"2\" name=\"a\"/></backtrace></row>\n<row><backtrace id=\"1\"><frame id=\"3\" name=\"b\"/></backtrace></row><row><backtrace ref=\"1\"/></row></node></trace-query-result>",
			Want: "a 1\nb 2\n", Malformed: 1, Warn: []string{"in:5:"}},
	})
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

// TestSniff: both exports are recognised; nothing else in testdata,
// nor other XML, is.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.xml.gz"},
		NotSureText: []string{
			"Nov  2 10:00:01 host kernel: <?xml <trace-query-result>\n",
			`{"xml": "<trace-query-result>"}`,
			`<?xml version="1.0"?><trace-toc><run number="1"/></trace-toc>`,
			`<?xml version="1.0"?><svg><text>trace-query-result</text></svg>`,
		},
	}.Test(t)
}

func FuzzXCTrace(f *testing.F) {
	b := dir.Read(f, "basic.xml.gz")
	i := bytes.Index(b[20000:], []byte("</row>")) + 20000 + len("</row>")
	f.Add(append(b[:i:i], "</node></trace-query-result>\n"...))
	f.Add([]byte(head + `<row><backtrace id="1"><frame id="2" name="a"/><frame ref="2"/></backtrace></row><row><backtrace ref="1"/></row></node></trace-query-result>`))
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkXCTrace folds inferno's basic.xml (1.8 MB, 9581 samples), the
// stacks going nowhere: the parser alone.
func BenchmarkXCTrace(b *testing.B) {
	data := dir.Read(b, "basic.xml.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	emit := func([]byte, fold.Count) error { return nil }
	diag := stream.NewDiag(io.Discard, false)
	defer formattest.CPURate(b, int64(len(data)))()
	for b.Loop() {
		p, _ := Format.NewDocument(format.MapOptions{}, emit, diag)
		if err := p.Read("x", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzOracle folds any input with the parser and with the one it
// replaced (encoding/xml's RawToken, oracle_test.go): where encoding/xml
// reads the whole input, both give the same stacks, warnings (lines
// included), stats and errors, strict or not, whether the input comes
// whole or byte by byte.
func FuzzOracle(f *testing.F) {
	b := dir.Read(f, "basic.xml.gz")
	i := bytes.Index(b[20000:], []byte("</row>")) + 20000 + len("</row>")
	f.Add(append(b[:i:i], "</node></trace-query-result>\n"...))
	f.Add([]byte(head + `<row><backtrace id="1"><frame id="2" name="a"/><frame ref="2"/></backtrace></row><row><backtrace ref="1"/></row></node></trace-query-result>`))
	f.Add([]byte("\xef\xbb\xbf<?xml version='1.0' encoding='UTF-8'?>\r\n<!DOCTYPE x [<!ENTITY a 'b'> <!-- c> -->]><trace-query-result><!-- x --><node><![CDATA[<row>]]><row ><x:backtrace a:id='9' id=\"1\"\n><frame id=\"2\" name=\"a&amp;b&#10;c&#x3b;\r\nd\"/><frame ref=\"3\"/></x:backtrace></row><row><backtrace ref='1'/></row><?pi x?></node></trace-query-result>"))
	f.Add([]byte(`<?xml version="1.1"?><trace-query-result/>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		formattest.Fuzz(t, Format, data)
		formattest.CompareOracle(t, Format, refFormat, nil, data, "not well-formed XML", "XML: ")
	})
}

// largeExport is a long recording: basic.xml's rows again and again to
// 64 MB, each copy's ids and references renumbered (as a later part of
// the trace would define its frames and backtraces anew), as benchgen
// -format xctrace writes it.
func largeExport(b *testing.B) []byte {
	data := dir.Read(b, "basic.xml.gz")
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

// BenchmarkParse is the parser alone on a 64 MB export (largeExport).
func BenchmarkParse(b *testing.B) { formattest.BenchmarkRead(b, Format, nil, largeExport(b)) }

// BenchmarkParseOracle is BenchmarkParse with the parser this one
// replaced (encoding/xml), for the record.
func BenchmarkParseOracle(b *testing.B) { formattest.BenchmarkRead(b, refFormat, nil, largeExport(b)) }

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

// TestWords: simpleName and valueEnd, which read a word at a time, find
// what a byte-by-byte reading finds, for every byte at every place of a
// word and past it.
func TestWords(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			for n := at; n <= 20; n++ {
				b := bytes.Repeat([]byte("aZ0_.-"), 4)[:n]
				if at < n {
					b[at] = byte(c)
				}
				want := 0
				for want < len(b) && nameClass[b[want]] == nameByte {
					want++
				}
				if got := simpleName(b, 0); got != want {
					t.Fatalf("simpleName(%q) = %d, want %d", b, got, want)
				}
				for _, q := range []byte{'"', '\''} {
					want := 0
					for want < len(b) && b[want] != q && b[want] != '<' {
						want++
					}
					if got := valueEnd(b, 0, q); got != want {
						t.Fatalf("valueEnd(%q, %c) = %d, want %d", b, q, got, want)
					}
				}
			}
		}
	}
}

// TestNameWords: name, which reads the usual names a word at a time in
// place, reads what the reading it shortcuts (nameRest after
// simpleName) reads, for every byte at every place of a name and past
// it, whatever its first byte.
func TestNameWords(t *testing.T) {
	for _, first := range []byte{'a', 'Z', '_', '0', '.', ':', '-', 0xc3, ' '} {
		for c := range 256 {
			for at := range 20 {
				for n := 0; n <= 20; n++ {
					b := bytes.Repeat([]byte("aZ0_.-"), 4)[:n]
					if n > 0 {
						b[0] = first
					}
					if at < n {
						b[at] = byte(c)
					}
					for i := 0; i <= min(n, 2); i++ {
						e, l, p, st := name(b, i)
						we, wl, wp, wst := nameRest(b, i, simpleName(b, i))
						if e != we || l != wl || p != wp || st != wst {
							t.Fatalf("name(%q, %d) = %d %v %v %d, want %d %v %v %d", b, i, e, l, p, st, we, wl, wp, wst)
						}
					}
				}
			}
		}
	}
}
