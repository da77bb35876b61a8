package stream

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pierrec/lz4/v4"
	"github.com/ulikunitz/xz"
)

type line struct {
	name  string
	n     int
	text  string
	first bool
}

func readAll(t testing.TB, r *Reader) ([]line, error) {
	var out []line
	for r.Scan() {
		out = append(out, line{r.Name(), r.Line(), string(r.Bytes()), r.FirstOfInput()})
	}
	r.Close()
	return out, r.Err()
}

func compress(t testing.TB, kind Compression, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	switch kind {
	case Gzip:
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
	case Zstd:
		w, _ := zstd.NewWriter(&b)
		w.Write(data)
		w.Close()
	case LZ4:
		w := lz4.NewWriter(&b)
		w.Write(data)
		w.Close()
	case XZ:
		w, _ := xz.NewWriter(&b)
		w.Write(data)
		w.Close()
	case Bzip2:
		raw, err := os.ReadFile("testdata/two.txt.bz2") // no bzip2 writer in the standard library
		if err != nil {
			t.Fatal(err)
		}
		return raw
	default:
		return data
	}
	return b.Bytes()
}

func TestReaderFormatsAndOrder(t *testing.T) {
	data := []byte("a;b 1\nc;d 2\n")
	var names []string
	for _, kind := range []Compression{None, Gzip, Bzip2, Zstd, LZ4, XZ} {
		// The name says nothing of the content: detection is by magic bytes.
		names = append(names, stacktest.WriteFile(t, "in-"+string(kind)+".txt", compress(t, kind, data)))
	}
	got, err := readAll(t, NewReader(names))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 12 {
		t.Fatalf("got %d lines, want 12: %v", len(got), got)
	}
	for i, l := range got {
		if l.name != names[i/2] || l.n != i%2+1 || l.text != strings.Split(string(data), "\n")[i%2] || l.first != (i%2 == 0) {
			t.Errorf("line %d: %+v", i, l)
		}
	}
}

func TestReaderStdinAndNoFinalNewline(t *testing.T) {
	r := NewReaderStdin([]string{"-"}, strings.NewReader("x 1\ny 2"))
	got, err := readAll(t, r)
	if err != nil || len(got) != 2 || got[1].text != "y 2" || got[0].name != "-" {
		t.Fatalf("got %v, %v", got, err)
	}
	// No names at all means stdin too.
	got, _ = readAll(t, NewReaderStdin(nil, strings.NewReader("z 3\n")))
	if len(got) != 1 || got[0].text != "z 3" {
		t.Fatalf("got %v", got)
	}
}

func TestReaderLongLine(t *testing.T) {
	long := bytes.Repeat([]byte("frame;"), 10<<20/6) // a 10 MB line
	data := append(append([]byte("short 1\n"), long...), " 7\nend 1\n"...)
	got, err := readAll(t, NewReader([]string{stacktest.WriteFile(t, "long.txt", data)}))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(got[1].text) != len(long)+2 || got[2].text != "end 1" {
		t.Fatalf("long line not read whole: %d lines", len(got))
	}
}

func TestReaderTruncated(t *testing.T) {
	data := bytes.Repeat([]byte("some;stack;frames 12345\n"), 20000)
	for _, kind := range []Compression{Gzip, Zstd, LZ4, XZ} {
		c := compress(t, kind, data)
		p := stacktest.WriteFile(t, "cut", c[:len(c)/2])
		_, err := readAll(t, NewReader([]string{p}))
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: truncated stream gave %v, want an error naming the file", kind, err)
		}
	}
	bz, _ := os.ReadFile("testdata/two.txt.bz2")
	_, err := readAll(t, NewReader([]string{stacktest.WriteFile(t, "cut.bz2", bz[:len(bz)-8])}))
	if err == nil {
		t.Error("bzip2: truncated stream read without error")
	}
}

func TestReaderMissingFile(t *testing.T) {
	_, err := readAll(t, NewReader([]string{filepath.Join(t.TempDir(), "nope.txt")}))
	if err == nil || !os.IsNotExist(err) {
		t.Fatalf("got %v, want a not-exist error", err)
	}
}

func TestReaderBytesRead(t *testing.T) {
	data := bytes.Repeat([]byte("x 1\n"), 1000)
	gz := compress(t, Gzip, data)
	r := NewReader([]string{stacktest.WriteFile(t, "a", data), stacktest.WriteFile(t, "b", gz)})
	readAll(t, r)
	if got, want := r.BytesRead(), int64(len(data)+len(gz)); got != want {
		t.Errorf("BytesRead = %d, want %d (raw bytes of both files)", got, want)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"256MiB": 256 << 20, "64KiB": 64 << 10, "1G": 1 << 30, "500mb": 500 << 20, "4096": 4096, "1.5k": 1536} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "12XB", "MiB", "0"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) gave no error", bad)
		}
	}
}

func TestDiag(t *testing.T) {
	var b strings.Builder
	d := NewDiag(&b, false)
	for i := 1; i <= 15; i++ {
		if err := d.Malformed("f.txt", i, []byte("bad line"), "no count"); err != nil {
			t.Fatal(err)
		}
	}
	d.Flush()
	out := b.String()
	if strings.Count(out, "f.txt:") != 10 || !strings.Contains(out, `f.txt:3: no count: "bad line"`) || !strings.Contains(out, "5 more malformed lines skipped (15 in all)") {
		t.Errorf("diag output:\n%s", out)
	}
	if err := NewDiag(&b, true).Malformed("f", 1, nil, "x"); err == nil {
		t.Error("strict diag returned no error")
	}
}

// TestReaderPerInput: NextInput, Peek, ScanInput and Rest read inputs one
// at a time, lines or bytes, and Peek consumes nothing.
func TestReaderPerInput(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 3<<20) // past the read buffer
	a := stacktest.WriteFile(t, "a.txt", []byte("a1\na2\n"))
	b := stacktest.WriteFile(t, "b.gz", compress(t, Gzip, append([]byte("head\n"), long...)))
	c := stacktest.WriteFile(t, "c.txt", []byte("c1"))
	r := NewReader([]string{a, b, c})
	defer r.Close()

	if !r.NextInput() || string(r.Peek(4)) != "a1\na" {
		t.Fatalf("peek a: %q", r.Peek(4))
	}
	if f, ok := r.PlainFile(); !ok {
		t.Error("a.txt is a plain file")
	} else {
		f.Close()
	}
	var lines []string
	for r.ScanInput() {
		lines = append(lines, string(r.Bytes()))
	}
	if strings.Join(lines, ",") != "a1,a2" {
		t.Fatalf("lines of a: %v", lines)
	}

	if !r.NextInput() || string(r.Peek(5)) != "head\n" {
		t.Fatal("peek b")
	}
	if _, ok := r.PlainFile(); ok {
		t.Error("a gzip file is not plain")
	}
	if !r.ScanInput() || string(r.Bytes()) != "head" {
		t.Fatal("first line of b")
	}
	rest, err := io.ReadAll(r.Rest())
	if err != nil || !bytes.Equal(rest, long) {
		t.Fatalf("rest of b: %d bytes, %v", len(rest), err)
	}

	if !r.NextInput() || string(r.Peek(100)) != "c1" || !r.ScanInput() || string(r.Bytes()) != "c1" || r.ScanInput() {
		t.Fatal("c")
	}
	if r.NextInput() || r.Err() != nil {
		t.Fatalf("after the last input: %v", r.Err())
	}
	if got := r.DataRead(); got != int64(6+5+len(long)+2) {
		t.Errorf("DataRead %d", got)
	}
}

// TestReaderBack: the lines read since an offset are given back while
// the buffer holds them, and not once a read past them dropped them.
func TestReaderBack(t *testing.T) {
	line := bytes.Repeat([]byte("y"), 999)
	var in []byte
	for range 3000 { // 3 MB: the buffer is filled again
		in = append(append(in, line...), '\n')
	}
	r := NewReaderOf("x", bytes.NewReader(append([]byte("first\nsecond\n"), in...)))
	r.ScanInput()
	start := r.Consumed() - int64(len(r.Bytes())) - 1
	if b := r.Back(start); string(b) != "first\n" {
		t.Fatalf("Back(start) after one line: %q", b)
	}
	r.ScanInput()
	at := r.Consumed()
	if b := r.Back(start); string(b) != "first\nsecond\n" {
		t.Fatalf("Back(start) after two lines: %q", b)
	}
	if b := r.Back(at); b == nil || len(b) != 0 {
		t.Fatalf("Back(Consumed()) = %q, want empty", b)
	}
	if b := r.Back(at + 1); b != nil {
		t.Fatalf("Back past Consumed: %q", b)
	}
	for r.ScanInput() {
	}
	if b := r.Back(start); b != nil {
		t.Fatalf("Back(start) after 3 MB: %d bytes", len(b))
	}
	if b := r.Back(r.Consumed() - 1000); !bytes.Equal(b, append(line, '\n')) {
		t.Fatalf("Back over the last line: %.20q…", b)
	}
}

// TestReaderScanLines: the blocks ScanLines returns, split at their
// newlines, are the lines Scan returns, with the same names, numbers
// and first lines of their inputs; Scan after ScanLines goes on from
// there.
func TestReaderScanLines(t *testing.T) {
	long := strings.Repeat("y", 3<<20) // past the read buffer
	var many strings.Builder
	for i := range 300000 {
		many.WriteString(strings.Repeat("z", i%23))
		many.WriteByte('\n')
	}
	names := []string{
		stacktest.WriteFile(t, "a.txt", []byte("a1\na2\n")),
		stacktest.WriteFile(t, "empty.txt", nil),
		stacktest.WriteFile(t, "nl.txt", []byte("\n\n")),
		stacktest.WriteFile(t, "b.gz", compress(t, Gzip, []byte("head\n"+long+"\ntail"))),
		stacktest.WriteFile(t, "many.txt", []byte(many.String())),
		stacktest.WriteFile(t, "c.txt", []byte("c1\r\nc2")),
	}
	want, err := readAll(t, NewReader(names))
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(names)
	var got []line
	for r.ScanLines() {
		block := string(r.Bytes())
		if block == "" {
			t.Fatal("an empty block")
		}
		n := r.Line()
		for i, text := range strings.SplitAfter(block, "\n") {
			if text == "" {
				break // after the last '\n'
			}
			got = append(got, line{r.Name(), n + i, strings.TrimSuffix(text, "\n"), r.FirstOfInput() && i == 0})
		}
	}
	r.Close()
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("line %d: %+.40v, want %+.40v", i, got[i], want[i])
		}
	}

	// Scan after ScanLines: the next line, numbered on.
	r = NewReaderOf("x", strings.NewReader("1\n2\n3"))
	if !r.ScanLines() || string(r.Bytes()) != "1\n2\n" || r.Line() != 1 || !r.FirstOfInput() {
		t.Fatalf("block %q, line %d", r.Bytes(), r.Line())
	}
	if !r.ScanLines() || string(r.Bytes()) != "3" || r.Line() != 3 || r.FirstOfInput() || r.ScanLines() {
		t.Fatalf("block %q, line %d", r.Bytes(), r.Line())
	}
	r = NewReaderOf("x", io.MultiReader(strings.NewReader("1\n2\n3"), strings.NewReader("\n4\n")))
	if !r.ScanLines() || string(r.Bytes()) != "1\n2\n" || r.Line() != 1 {
		t.Fatalf("block %q, line %d", r.Bytes(), r.Line())
	}
	if !r.Scan() || string(r.Bytes()) != "3" || r.Line() != 3 || r.FirstOfInput() {
		t.Fatalf("line %q, %d", r.Bytes(), r.Line())
	}
	if !r.ScanLines() || string(r.Bytes()) != "4\n" || r.Line() != 4 || r.ScanLines() {
		t.Fatalf("block %q, line %d", r.Bytes(), r.Line())
	}
}

// TestNotFolded: an input with no folded line is one error, which says
// what the input looks like when the CLI can tell (DescribeInput), and
// otherwise what was wrong with its first line; the first line of an
// input RefuseInput names ends the reading at once, whatever follows.
func TestNotFolded(t *testing.T) {
	defer func(d, r func([]byte) string) { DescribeInput, RefuseInput = d, r }(DescribeInput, RefuseInput)
	DescribeInput = func(prefix []byte) string {
		if bytes.HasPrefix(prefix, []byte("digraph")) {
			return "looks like a graph"
		}
		return ""
	}
	RefuseInput = func(line []byte) string {
		if bytes.HasPrefix(line, []byte("# callgrind format")) {
			return "this is a callgrind profile"
		}
		return ""
	}
	for in, want := range map[string]string{
		"a;b -3\nc\n":                            `-: no line is folded stacks ("root;...;leaf COUNT"), from line 1 on; line 1: bad count "-3": count is not a number: "a;b -3"`,
		"digraph p {\n}\n":                       `-: no line is folded stacks ("root;...;leaf COUNT"), from line 1 on: looks like a graph`,
		"# callgrind format\nversion: 1\n0 25\n": `-: not folded stacks ("root;...;leaf COUNT"): this is a callgrind profile`,
	} {
		var warn bytes.Buffer
		f := NewFoldedReader(NewReaderStdin(nil, strings.NewReader(in)), NewDiag(&warn, false))
		for f.Next() {
			t.Errorf("%q: read %q", in, f.Stack())
		}
		if f.Err() == nil || f.Err().Error() != want || warn.Len() != 0 {
			t.Errorf("%q: error %v, warnings %q; want %s and none", in, f.Err(), warn.String(), want)
		}
	}
}
