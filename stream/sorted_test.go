package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/stacktest"
)

// collect drains s into "stack count" lines.
func collect(t testing.TB, s Stacks) (string, error) {
	t.Helper()
	var b strings.Builder
	for s.Next() {
		fmt.Fprintf(&b, "%s %s\n", s.Stack(), s.Count())
	}
	return b.String(), s.Err()
}

func TestFoldedReader(t *testing.T) {
	in := "a;b 1\n\n  \nno count\na;c -2\n 3\na;c 2.5\r\nx y\n"
	var warn bytes.Buffer
	fr := NewFoldedReader(NewReaderStdin(nil, strings.NewReader(in)), NewDiag(&warn, false))
	var got []string
	for fr.Next() {
		got = append(got, fmt.Sprintf("%s=%s@%d", fr.Stack(), fr.Count(), fr.Line()))
	}
	if err := fr.Err(); err != nil {
		t.Fatal(err)
	}
	if want := "a;b=1@1 a;c=2.5@7"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
	if fr.Lines != 8 || fr.Stacks != 2 {
		t.Errorf("Lines %d Stacks %d, want 8 2", fr.Lines, fr.Stacks)
	}
	for _, want := range []string{"-:4: bad count", "-:5: bad count", "-:6: empty stack", "-:8: bad count"} {
		if !strings.Contains(warn.String(), want) {
			t.Errorf("warnings lack %q:\n%s", want, warn.String())
		}
	}

	fr = NewFoldedReader(NewReaderStdin(nil, strings.NewReader(in)), NewDiag(io.Discard, true))
	for fr.Next() {
	}
	var se *SyntaxError
	if !errors.As(fr.Err(), &se) || se.Line != 4 {
		t.Errorf("strict: %v, want a syntax error at line 4", fr.Err())
	}
}

func TestSortedInput(t *testing.T) {
	p := stacktest.WriteFile(t, "s.folded", []byte("a 1\na 2\na;b 1.5\nbad\na;b 1\nb 4\nb 1\n"))
	var warn bytes.Buffer
	s := NewSortedInput(p, NewDiag(&warn, false), nil)
	got, err := collect(t, s)
	s.Close()
	if err != nil || got != "a 3\na;b 2.5\nb 5\n" {
		t.Errorf("got %q, %v", got, err)
	}
	if s.Total().String() != "10.5" {
		t.Errorf("Total %v, want 10.5", s.Total())
	}
	if !strings.Contains(warn.String(), ":4: no count") {
		t.Errorf("malformed line not reported: %q", warn.String())
	}

	double := func(c fold.Count) fold.Count { return c.Scale(2) }
	s = NewSortedInput(p, NewDiag(io.Discard, false), double)
	got, _ = collect(t, s)
	s.Close()
	if got != "a 6\na;b 5\nb 10\n" {
		t.Errorf("scaled: %q", got)
	}

	p = stacktest.WriteFile(t, "u.folded", []byte("a 1\nc 1\nb 1\n"))
	s = NewSortedInput(p, NewDiag(io.Discard, false), nil)
	_, err = collect(t, s)
	s.Close()
	var ue *UnsortedError
	if !errors.As(err, &ue) || ue.Line != 3 {
		t.Errorf("unsorted input: %v, want an UnsortedError at line 3", err)
	}
}

func TestCheckSorted(t *testing.T) {
	for _, tc := range []struct {
		text   string
		sorted bool
		line   int
		total  string
	}{
		{"", true, 0, "0"},
		{"a 1\na 1\na;b 2\nb 3\n", true, 0, "7"},
		{"a;b 1\na 1\n", false, 2, ""},
		// A stack and its caller: "a;b" sorts after "a" but "a;b 1"
		// sorts before "a 1"... no: ' ' < ';'. The order is the stacks'.
		{"a 9\na;b 1\n", true, 0, "10"},
		{"a;b 1\nbad line\na;c 1\n", true, 0, "2"},
	} {
		chk, err := CheckSorted(stacktest.WriteFile(t, "f", []byte(tc.text)), nil, nil)
		if err != nil || chk.Sorted != tc.sorted || chk.Line != tc.line || tc.sorted && chk.Total.String() != tc.total {
			t.Errorf("CheckSorted(%q) = %+v, %v", tc.text, chk, err)
		}
	}
	if _, err := CheckSorted(filepath.Join(t.TempDir(), "missing"), nil, nil); err == nil {
		t.Error("missing file: no error")
	}
}

func TestAggregatorSorted(t *testing.T) {
	stacks, counts := stacktest.Random(20000, 3000, true)
	want, _ := aggregate(t, Options{}, stacks, counts)
	for _, mem := range []int64{0, 64 << 10} { // in memory, and spilled
		a := NewAggregator(Options{Mem: mem, TmpDir: t.TempDir()})
		for i, s := range stacks {
			if err := a.Add([]byte(s), counts[i]); err != nil {
				t.Fatal(err)
			}
		}
		s := a.Sorted()
		got, err := collect(t, s)
		s.Close()
		if mem > 0 && a.Stats().Runs == 0 {
			t.Errorf("mem %d: nothing spilled", mem)
		}
		a.Close()
		if err != nil || got != want {
			t.Errorf("mem %d: Sorted differs from WriteTo (err %v)", mem, err)
		}
	}

	// Stopping early ends the producer.
	a := NewAggregator(Options{})
	a.Add([]byte("a"), fold.Int(1))
	a.Add([]byte("b"), fold.Int(1))
	s := a.Sorted()
	if !s.Next() || string(s.Stack()) != "a" {
		t.Fatal("first stack")
	}
	s.Close()
	if s.Next() {
		t.Error("Next after Close")
	}
	a.Close()

	// A failing aggregation surfaces through Err.
	a = NewAggregator(Options{Mem: 1, TmpDir: filepath.Join(t.TempDir(), "missing")})
	a.Add([]byte("a"), fold.Int(1))
	err := a.Add([]byte("b"), fold.Int(1)) // spills into a missing directory
	if err == nil {
		s = a.Sorted()
		_, err = collect(t, s)
		s.Close()
	}
	if err == nil {
		t.Error("spill into a missing directory: no error")
	}
	a.Close()
}

// sliceStacks is a Stacks over fixed pairs.
type sliceStacks struct {
	pairs []string // "stack=count"
	i     int
	err   error
}

func (s *sliceStacks) Next() bool {
	s.i++
	return s.i <= len(s.pairs)
}
func (s *sliceStacks) cur() (string, string) {
	st, c, _ := strings.Cut(s.pairs[s.i-1], "=")
	return st, c
}
func (s *sliceStacks) Stack() []byte { st, _ := s.cur(); return []byte(st) }
func (s *sliceStacks) Count() fold.Count {
	_, c := s.cur()
	n, _ := fold.ParseCount([]byte(c))
	return n
}
func (s *sliceStacks) Err() error   { return s.err }
func (s *sliceStacks) Close() error { return nil }

func TestJoin(t *testing.T) {
	a := &sliceStacks{pairs: []string{"a=1", "a;b=2", "c=3.5"}}
	b := &sliceStacks{pairs: []string{"a;b=5", "b=6", "d=7"}}
	var got []string
	err := Join(a, b, func(stack []byte, ca, cb fold.Count) error {
		got = append(got, fmt.Sprintf("%s:%s:%s", stack, ca, cb))
		return nil
	})
	if want := "a:1:0 a;b:2:5 b:0:6 c:3.5:0 d:0:7"; err != nil || strings.Join(got, " ") != want {
		t.Errorf("Join = %v, %v; want %s", got, err, want)
	}
	boom := errors.New("boom")
	err = Join(&sliceStacks{}, &sliceStacks{pairs: []string{"x=1"}, err: boom}, func([]byte, fold.Count, fold.Count) error { return nil })
	if err != boom {
		t.Errorf("source error: %v", err)
	}
}

func TestMerge(t *testing.T) {
	srcs := []Stacks{
		&sliceStacks{pairs: []string{"a=1", "c=2"}},
		&sliceStacks{pairs: []string{"a=4", "b=1", "c=0.5"}},
		&sliceStacks{},
	}
	var got []string
	err := Merge(srcs, func(stack []byte, c fold.Count) error {
		got = append(got, string(stack)+"="+c.String())
		return nil
	})
	if want := "a=5 b=1 c=2.5"; err != nil || strings.Join(got, " ") != want {
		t.Errorf("Merge = %v, %v; want %s", got, err, want)
	}
}

// TestMergeTwo checks that two sources, merged side by side, give what
// the heap merge of many gives, and stop at a source's error.
func TestMergeTwo(t *testing.T) {
	a := []string{"a=1", "a;b=2", "c=3.5", "e=18446744073709551615"}
	b := []string{"a;b=5", "b=6", "c=1", "d=7"}
	merged := func(srcs ...Stacks) string {
		var got []string
		err := Merge(srcs, func(stack []byte, c fold.Count) error {
			got = append(got, string(stack)+"="+c.String())
			return nil
		})
		return fmt.Sprint(got, err)
	}
	two := merged(&sliceStacks{pairs: a}, &sliceStacks{pairs: b})
	many := merged(&sliceStacks{pairs: a}, &sliceStacks{pairs: b}, &sliceStacks{})
	if two != many || two != "[a=1 a;b=7 b=6 c=4.5 d=7 e=18446744073709551615] <nil>" {
		t.Errorf("two sources: %s, heap merge: %s", two, many)
	}
	boom := errors.New("boom")
	if err := Merge([]Stacks{&sliceStacks{pairs: a}, &sliceStacks{err: boom}}, func([]byte, fold.Count) error { return nil }); err != boom {
		t.Errorf("source error: %v", err)
	}
	over := []Stacks{&sliceStacks{pairs: a[3:]}, &sliceStacks{pairs: []string{"e=1"}}}
	if err := Merge(over, func([]byte, fold.Count) error { return nil }); !errors.Is(err, fold.ErrOverflow) {
		t.Errorf("overflow: %v", err)
	}
}

// BenchmarkJoinSorted is pdiff's streamed path: two sorted files read
// side by side.
func BenchmarkJoinSorted(b *testing.B) {
	names, size := stacktest.Files(b, 2, func(i int, buf *bytes.Buffer) {
		for j := range 100000 {
			fmt.Fprintf(buf, "proc;main;server_loop;handle_request_%08d;parse %d\n", j*(i+2), 1+j%9)
		}
	})
	diag := NewDiag(io.Discard, false)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		x, y := NewSortedInput(names[0], diag, nil), NewSortedInput(names[1], diag, nil)
		if err := Join(x, y, func([]byte, fold.Count, fold.Count) error { return nil }); err != nil {
			b.Fatal(err)
		}
		x.Close()
		y.Close()
	}
}

// TestCheckSortedMapped checks that the check of a mapped file finds
// what the check of the same file read finds, in windows of any size.
func TestCheckSortedMapped(t *testing.T) {
	var long, late strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&long, "f%05d;%s %d\n", i, strings.Repeat("x", i%7*1000), i%5)
		fmt.Fprintf(&late, "main;f%05d 1\n", i)
	}
	late.WriteString("main;a 1\n")
	defer func(w int) { MapWindow = w }(MapWindow)
	for _, MapWindow = range []int{16 << 20, os.Getpagesize()} {
		testCheckSortedMapped(t, long.String(), late.String())
	}
}

func testCheckSortedMapped(t *testing.T, more ...string) {
	for _, text := range append(more,
		"a 1\nb 2\nb 3\nc;d 4\n",
		"a 1\n\nbad\nb 2\r\n  \nc 1.5\nc 1",
		"b 1\na 2\n",
		"a 1\nb 1\nbad\na 5\n",
		"a 18446744073709551615\nb 1\n",
		"\n\n",
		"x",
	) {
		path := stacktest.WriteFile(t, "in.folded", []byte(text))
		for _, conv := range []CountFunc{nil, func(c fold.Count) fold.Count { return c.Scale(0.5) }} {
			mapped, ok, merr := checkSortedMapped(path, conv, nil)
			read, rerr := checkSortedRead(path, conv, nil)
			if !ok || mapped != read || (merr == nil) != (rerr == nil) || merr != nil && merr.Error() != rerr.Error() {
				t.Errorf("%.40q (%d bytes), window %d: mapped %+v %v %v, read %+v %v", text, len(text), MapWindow, mapped, ok, merr, read, rerr)
			}
		}
	}
}

// BenchmarkCheckSorted is the first pass of pmerge and pdiff over a
// sorted file.
func BenchmarkCheckSorted(b *testing.B) {
	var buf bytes.Buffer
	for j := range 100000 {
		fmt.Fprintf(&buf, "proc;main;server_loop;handle_request_%08d;parse %d\n", j, 1+j%9)
	}
	path := filepath.Join(b.TempDir(), "in.folded")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		check func(string, CountFunc, *Progress) (SortCheck, error)
	}{{"mapped", CheckSorted}, {"read", checkSortedRead}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if chk, err := bc.check(path, nil, nil); err != nil || !chk.Sorted {
					b.Fatal(chk, err)
				}
			}
		})
	}
}
