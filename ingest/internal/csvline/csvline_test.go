package csvline

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
		ok   bool
	}{
		{"", []string{""}, true},
		{"a", []string{"a"}, true},
		{"a,b,,c", []string{"a", "b", "", "c"}, true},
		{"a,", []string{"a", ""}, true},
		{",", []string{"", ""}, true},
		{`"a,b",c`, []string{"a,b", "c"}, true},
		{`"say ""hi""",x`, []string{`say "hi"`, "x"}, true},
		{`""`, []string{""}, true},
		{`"a"b,c`, []string{"ab", "c"}, true},
		{`a"b,c`, []string{`a"b`, "c"}, true},
		{`"f;g","lib, x",2`, []string{"f;g", "lib, x", "2"}, true},
		{` "x",y`, []string{` "x"`, "y"}, true},
		{`a,"open`, []string{"a"}, false},
		{`"a""`, nil, false},
	} {
		var s Splitter
		got, ok := s.Split([]byte(c.line))
		var gs []string
		for _, f := range got {
			gs = append(gs, string(f))
		}
		if ok != c.ok || !slices.Equal(gs, c.want) {
			t.Errorf("%q: %q %v, want %q %v", c.line, gs, ok, c.want, c.ok)
		}
	}
}

// TestReuse: fields stay valid while the splitter is not called again,
// however the buffer grows.
func TestReuse(t *testing.T) {
	var s Splitter
	s.Split([]byte(`"x"`))
	long := bytes.Repeat([]byte(`"ab""c",`), 100)
	got, ok := s.Split(long)
	if !ok || len(got) != 101 {
		t.Fatalf("%d fields, %v", len(got), ok)
	}
	for _, f := range got[:100] {
		if string(f) != `ab"c` {
			t.Fatalf("field %q", f)
		}
	}
}

// TestSplitEdges: fields at every offset of a word, quoted and not,
// split as the field-by-field reading in refFields splits them.
func TestSplitEdges(t *testing.T) {
	parts := []string{"", "a", "abcdefg", "abcdefgh", "abcdefghi", `"q"`, `"q,r"`, `"a""b"`, `"a"b`, `a"b`, `""`, `"`, "-", "#", `"x,y,z,w,v"`}
	var s Splitter
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				for _, line := range []string{a + "," + b + "," + c, a + b + "," + c, a + "," + b + c, a + b + c} {
					checkSplit(t, &s, []byte(line))
				}
			}
		}
	}
}

func checkSplit(t *testing.T, s *Splitter, line []byte) {
	t.Helper()
	want, _, wantOK := refFields(nil, nil, line)
	got, ok := s.Split(line)
	if ok != wantOK || len(got) != len(want) {
		t.Fatalf("%q: %q %v, want %q %v", line, got, ok, want, wantOK)
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%q: %q %v, want %q %v", line, got, ok, want, wantOK)
		}
	}
}

// FuzzSplit holds Split to refFields, the field-by-field reading it
// replaced.
func FuzzSplit(f *testing.F) {
	f.Add([]byte(`"a,b",c`))
	f.Add([]byte(`x,"say ""hi""",y"z,"open`))
	f.Add([]byte(`1,"Raytracer.Ray.get_Direction()","3,575,792",2.84,2.84,0.00,0.00,"Raytracer.exe",`))
	var s Splitter
	f.Fuzz(func(t *testing.T, line []byte) {
		checkSplit(t, &s, line)
	})
}

// refFields is the field-by-field reading Split did before it read a
// word at a time.
func refFields(dst [][]byte, buf, line []byte) (fields [][]byte, b []byte, ok bool) {
	// Unquoted text is never longer than the line: with that much room
	// b never moves, and the fields cut from it stay valid.
	b = buf[:0]
	if cap(b) < len(line) {
		b = make([]byte, 0, 2*len(line))
	}
	for {
		if len(line) > 0 && line[0] == '"' {
			start := len(b)
			i := 1
			for {
				j := bytes.IndexByte(line[i:], '"')
				if j < 0 {
					return dst, b, false
				}
				b = append(b, line[i:i+j]...)
				i += j + 1
				if i < len(line) && line[i] == '"' {
					b = append(b, '"')
					i++
					continue
				}
				break
			}
			// Text after the closing quote, up to the comma, is kept
			// as it is ("a"b is ab).
			k := bytes.IndexByte(line[i:], ',')
			if k < 0 {
				k = len(line) - i
			}
			b = append(b, line[i:i+k]...)
			dst = append(dst, b[start:len(b):len(b)])
			line = line[i+k:]
		} else {
			k := bytes.IndexByte(line, ',')
			if k < 0 {
				return append(dst, line), b, true
			}
			dst = append(dst, line[:k])
			line = line[k:]
		}
		if len(line) == 0 {
			return dst, b, true
		}
		line = line[1:] // the comma
	}
}

// lines are the rows of the VTune and Visual Studio fixtures.
func lines(b *testing.B) [][]byte {
	var all [][]byte
	for _, f := range []string{"../../../testdata/vtune/vtune.csv", "../../../testdata/vsprof/CallTreeSummary.csv", "../../../testdata/vtunemc/allocations.csv"} {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))...)
	}
	return all
}

// BenchmarkSplit splits the fixtures' lines one at a time, as the
// parsers do; BenchmarkEncodingCSV reads the same lines with
// encoding/csv (LazyQuotes, a variable number of fields, the record
// reused), one reader reset per line.
func BenchmarkSplit(b *testing.B) {
	ls := lines(b)
	var n int64
	for _, l := range ls {
		n += int64(len(l) + 1)
	}
	b.SetBytes(n)
	b.ReportAllocs()
	var s Splitter
	for b.Loop() {
		for _, l := range ls {
			s.Split(l)
		}
	}
}

func BenchmarkEncodingCSV(b *testing.B) {
	ls := lines(b)
	var n int64
	for _, l := range ls {
		n += int64(len(l) + 1)
	}
	b.SetBytes(n)
	b.ReportAllocs()
	var br bytes.Reader
	for b.Loop() {
		for _, l := range ls {
			br.Reset(l)
			r := csv.NewReader(&br)
			r.LazyQuotes, r.FieldsPerRecord, r.ReuseRecord = true, -1, true
			if _, err := r.Read(); err != nil && err != io.EOF {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkEncodingCSVStream reads the lines as one stream with one
// encoding/csv reader: its best case, though the parsers are handed
// lines, not a stream.
func BenchmarkEncodingCSVStream(b *testing.B) {
	ls := lines(b)
	data := append(bytes.Join(ls, []byte("\n")), '\n')
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := csv.NewReader(bytes.NewReader(data))
		r.LazyQuotes, r.FieldsPerRecord, r.ReuseRecord = true, -1, true
		for {
			if _, err := r.Read(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
