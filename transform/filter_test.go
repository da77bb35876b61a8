package transform

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

func filter(t testing.TB, in string, ts []Transform, opt FilterOptions) (string, FilterStats) {
	t.Helper()
	fr := stream.NewFoldedReader(stream.NewReaderStdin(nil, strings.NewReader(in)), stream.NewDiag(io.Discard, false))
	var b strings.Builder
	st, err := Filter(fr, ts, opt, func(stack []byte, c fold.Count) error {
		b.Write(fold.AppendLine(nil, stack, c))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), st
}

func TestFilter(t *testing.T) {
	re := regexp.MustCompile
	replace := func(s string) Transform {
		tr, err := Replace(s)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	const in = "p2;b 4\np1;a 3\np2;a 3\np1;c;x 1\n"
	tests := []struct {
		name    string
		ts      []Transform
		noMerge bool
		want    string
		aggs    int
	}{
		{"no transform streams as is", nil, false, in, 0},
		{"filters keep the input order", []Transform{GrepV(re("^c$"))}, false, "p2;b 4\np1;a 3\np2;a 3\n", 0},
		{"a rewrite aggregates at the end", []Transform{NoRoot()}, false, "a 6\nb 4\nc;x 1\n", 1},
		{"no-merge streams rewrites", []Transform{NoRoot()}, true, "b 4\na 3\na 3\nc;x 1\n", 0},
		{"min-count after a rewrite sees sums", []Transform{NoRoot(), MinCount(fold.Int(5))}, false, "a 6\n", 1},
		{"min-count before a rewrite sees lines", []Transform{MinCount(fold.Int(4)), NoRoot()}, false, "b 4\n", 1},
		{"min-count with no-merge sees lines", []Transform{NoRoot(), MinCount(fold.Int(5))}, true, "", 0},
		{"top after a rewrite", []Transform{NoRoot(), TopN(1)}, false, "a 6\n", 1},
		{"top of lines", []Transform{TopN(2)}, false, "p2;b 4\np1;a 3\n", 0},
		{"aggregation before each count stage", []Transform{NoRoot(), MinCount(fold.Int(2)), MaxDepth(1), TopN(2)}, false, "a 6\nb 4\n", 2},
		{"replace then grep", []Transform{replace("s/^a$/b/"), Grep(re("^b$"))}, false, "p1;b 3\np2;b 7\n", 1},
		{"grep then replace", []Transform{Grep(re("^b$")), replace("s/^a$/b/")}, false, "p2;b 4\n", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, st := filter(t, in, tc.ts, FilterOptions{NoMerge: tc.noMerge})
			if got != tc.want {
				t.Errorf("got\n%swant\n%s", got, tc.want)
			}
			if st.Aggregations != tc.aggs {
				t.Errorf("%d aggregations, want %d", st.Aggregations, tc.aggs)
			}
			// Conservation: what went in came out or was dropped.
			sum := st.Out
			for _, s := range st.Stages {
				sum, _ = sum.Add(s.Count)
			}
			if sum != st.In || st.In != fold.Int(11) {
				t.Errorf("in %v, out %v, dropped %+v", st.In, st.Out, st.Stages)
			}
		})
	}
}

func TestFilterSpills(t *testing.T) {
	var in strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&in, "proc%d;main;handler_%05d;leaf 1\n", i%7, i%5000)
	}
	small, st := filter(t, in.String(), []Transform{NoRoot()}, FilterOptions{Agg: stream.Options{Mem: 32 << 10, TmpDir: t.TempDir()}})
	if st.Runs == 0 {
		t.Fatal("nothing spilled")
	}
	big, _ := filter(t, in.String(), []Transform{NoRoot()}, FilterOptions{})
	if small != big || strings.Count(big, "\n") != 5000 {
		t.Errorf("spilled output differs or is not summed (%d lines)", strings.Count(big, "\n"))
	}
}

func BenchmarkFilter(b *testing.B) {
	var in strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&in, "java-%d;start_thread;JavaThread::run;Interpreter;Lcom/example/Server;::handle_%d;0x7f05aabb%04x;sys_write %d\n", i%8, i%300, i%4096, 1+i%9)
	}
	text := in.String()
	replace, _ := Replace(`s/^L//`)
	ts := []Transform{NoRoot(), DropFrame(regexp.MustCompile("^Interpreter$")), replace, StripAddrs()}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		fr := stream.NewFoldedReader(stream.NewReaderStdin(nil, strings.NewReader(text)), stream.NewDiag(io.Discard, false))
		if _, err := Filter(fr, ts, FilterOptions{}, func([]byte, fold.Count) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFilterReadTwice checks that filtering regular files, which may
// read them twice (filterSorted), writes the same stacks, statistics and
// diagnostics as filtering the same text from a pipe, which aggregates.
func TestFilterReadTwice(t *testing.T) {
	re := regexp.MustCompile
	var sorted, many strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&many, "p;main;f%05d;leaf 2\n", i) // sorted, rewritten by --no-root
	}
	sorted.WriteString("a;x;b 1\na;x;b 2\na;y 5\nbad line\nb 1\nb;x 3\nc;x;x 7\nc;y 1\n\nx;b 4\n")
	inputs := map[string]string{
		"sorted":          sorted.String(),
		"unsorted":        "b;x 1\na;x 2\nb 3\n",
		"unsorted late":   "a 1\nb 2\nc;x 3\nb 1\n",
		"decimal":         "a;x 1\nb 1.5\nb;x 2\n",
		"all rewritten":   many.String(),
		"empty":           "",
		"only malformed":  "x\n",
		"no newline":      "a;x 1\nb 2",
		"duplicates kept": "a 1\na 2\na;x 3\n",
	}
	chains := map[string][]Transform{
		"drop-frame":          {DropFrame(re("^x$"))},
		"no-root":             {NoRoot()},
		"grep-v then drop":    {GrepV(re("^y$")), DropFrame(re("^x$"))},
		"drop then min-count": {DropFrame(re("^x$")), MinCount(fold.Int(3)), MaxDepth(1)},
		"min-count then drop": {MinCount(fold.Int(2)), DropFrame(re("^x$")), TopN(2)},
		"top first":           {TopN(3), DropFrame(re("^x$"))},
	}
	dir := t.TempDir()
	defer func(w int) { stream.MapWindow = w }(stream.MapWindow)
	for iname, in := range inputs {
		path := filepath.Join(dir, strings.ReplaceAll(iname, " ", "_"))
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(in))
		zw.Close()
		if err := os.WriteFile(path+".gz", gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for cname, ts := range chains {
			run := func(fr *stream.FoldedReader, names []string) (string, FilterStats, string) {
				var out strings.Builder
				st, err := Filter(fr, ts, FilterOptions{Names: names}, func(stack []byte, c fold.Count) error {
					out.Write(fold.AppendLine(nil, stack, c))
					return nil
				})
				var nf *stream.NotFoldedError
				if errors.As(err, &nf) {
					// Nothing folded: every way of reading must say so.
					return "not folded", FilterStats{}, ""
				}
				if err != nil {
					t.Fatalf("%s, %s: %v", iname, cname, err)
				}
				return out.String(), st, fmt.Sprint(fr.Lines, fr.Stacks)
			}
			var pipeDiag strings.Builder
			pd := stream.NewDiag(&pipeDiag, false)
			want, wst, wlines := run(stream.NewFoldedReader(stream.NewReaderStdin(nil, strings.NewReader(in)), pd), nil)
			pd.Flush()
			// Mapped in one window or many, or compressed and read.
			for _, f := range []struct {
				path   string
				window int
			}{{path, 16 << 20}, {path, os.Getpagesize()}, {path + ".gz", 16 << 20}} {
				stream.MapWindow = f.window
				var fileDiag strings.Builder
				fd := stream.NewDiag(&fileDiag, false)
				r := stream.NewReader([]string{f.path})
				got, gst, glines := run(stream.NewFoldedReader(r, fd), []string{f.path})
				r.Close()
				fd.Flush()
				if got != want {
					t.Errorf("%s, %s, %s: got\n%swant\n%s", iname, cname, f.path, got, want)
				}
				if got == "not folded" {
					continue // an error: the counts up to it may differ
				}
				if fmt.Sprint(gst) != fmt.Sprint(wst) || glines != wlines || pd.Count() != fd.Count() {
					t.Errorf("%s, %s, %s: stats %+v %s %d, want %+v %s %d", iname, cname, f.path, gst, glines, fd.Count(), wst, wlines, pd.Count())
				}
				if strings.ReplaceAll(fileDiag.String(), f.path, "-") != pipeDiag.String() {
					t.Errorf("%s, %s, %s: diagnostics %q, want %q", iname, cname, f.path, fileDiag.String(), pipeDiag.String())
				}
			}
		}
	}
}

// BenchmarkFilterSortedFile is pfilter --drop-frame on a file of sorted
// stacks, pfold's output, where few stacks have the frame: the path that
// reads the file twice (filterSorted).
func BenchmarkFilterSortedFile(b *testing.B) {
	var in bytes.Buffer
	for i := range 50000 {
		interp := ""
		if i%100 == 0 {
			interp = "Interpreter;"
		}
		fmt.Fprintf(&in, "java;start_thread;JavaThread::run;%sLcom/example/Server;::handle_%06d;sys_write %d\n", interp, i, 1+i%9)
	}
	path := filepath.Join(b.TempDir(), "in.folded")
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	ts := []Transform{DropFrame(regexp.MustCompile("^Interpreter$"))}
	for _, bc := range []struct {
		name  string
		names []string
	}{{"read twice", []string{path}}, {"aggregate", nil}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(in.Len()))
			b.ReportAllocs()
			for b.Loop() {
				r := stream.NewReader([]string{path})
				fr := stream.NewFoldedReader(r, stream.NewDiag(io.Discard, false))
				if _, err := Filter(fr, ts, FilterOptions{Names: bc.names}, func([]byte, fold.Count) error { return nil }); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
}
