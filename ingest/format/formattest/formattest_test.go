package formattest

import (
	"bytes"
	"errors"
	"flag"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

// toy is a format for these tests: "STACK COUNT" lines, under a "toy"
// first line; --double doubles the counts.
var toy = format.Format{
	Name: "toy",
	Sniff: func(prefix []byte) format.Score {
		if bytes.HasPrefix(prefix, []byte("toy\n")) {
			return format.Sure
		}
		return format.No
	},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return &toyParser{emit: emit, diag: diag, double: opts.Bool("double")}, nil
	},
}

type toyParser struct {
	emit   format.EmitFunc
	diag   *stream.Diag
	double bool
}

func (p *toyParser) Line(name string, n int, line []byte) error {
	if n == 1 && string(line) == "toy" {
		return nil
	}
	stack, count, ok := bytes.Cut(line, []byte(" "))
	c, err := strconv.ParseUint(string(count), 10, 64)
	if !ok || err != nil {
		return p.diag.Malformed(name, n, line, "no count")
	}
	if len(stack) == 0 {
		return p.diag.Malformed(name, n, line, "no stack")
	}
	if p.double {
		c *= 2
	}
	return p.emit(stack, fold.Int(c))
}

func (p *toyParser) End() error { return nil }

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := writeFile(path, []byte(data), strings.HasSuffix(path, ".gz")); err != nil {
		t.Fatal(err)
	}
}

// TestGolden: goldens are written with -update, checked against the
// fold, and compared with the oracles: equal, listed as differing with a
// fix, or listed as absent; gzipped inputs, goldens and oracles are read.
func TestGolden(t *testing.T) {
	root := t.TempDir()
	dir := Dir(filepath.Join(root, "toy"))
	write(t, dir.Path("a.txt"), "toy\nx;y 1\nx 2\nx;y 3\n")
	write(t, dir.Path("b.txt.gz"), "toy\nz 5\nbad\n")
	write(t, dir.Path("golden/a.folded"), "x 2\nx;y 4\n")
	write(t, dir.Path("golden/a.double.folded"), "x 4\nx;y 8\n")
	write(t, dir.Path("golden/b.folded.gz"), "z 5\n")
	write(t, dir.Path("golden/b.double.folded.gz"), "z 10\n")
	write(t, dir.Path("a.oracle.folded"), "x 2\nx;y 4\n")
	write(t, dir.Path("a.double.oracle.folded"), "x 4\nx;y 8\n")
	write(t, dir.Path("b.oracle.folded.gz"), "z 6\n")
	g := Golden{
		Format: toy, Dir: dir, Inputs: []string{"*.txt", "*.txt.gz"}, Ext: ".txt", Min: 2,
		Options:   []Option{Flags("double")},
		Malformed: map[string]int{"b": 1, "b.double": 1},
		References: []Reference{{
			Tool: "the toy script",
			Differs: map[string]Diff{"b": {Why: "the script counts one too many", Fix: func(_ testing.TB, _ *Run, o string) string {
				return strings.Replace(o, "z 6", "z 5", 1)
			}}},
			Absent: map[string]string{"b.double": "not made"},
		}},
	}
	checked := 0
	g.Check = func(t *testing.T, r *Run) { checked++ }
	if n := g.Test(t); n != 4 || checked != 4 {
		t.Errorf("%d runs, %d checked", n, checked)
	}
}

// TestSniff: the sniffer is tried on every file under the testdata root.
func TestSniff(t *testing.T) {
	root := t.TempDir()
	dir := Dir(filepath.Join(root, "toy"))
	write(t, dir.Path("a.txt"), "toy\nx 1\n")
	write(t, dir.Path("b.txt.gz"), "toy\nx 1\n")
	write(t, dir.Path("golden/a.folded"), "x 1\n")
	for i := range 100 {
		write(t, filepath.Join(root, "other", strconv.Itoa(i)+".txt"), "x 1\n")
	}
	write(t, filepath.Join(root, "other", "looks-like.txt"), "toy\nhello\n")
	Sniff{
		Format: toy, Dir: dir, Sure: []string{"*.txt", "*.txt.gz"},
		SureText: []string{"toy\n"}, NotSureText: []string{"yot\n"},
		Except: map[string]string{"other/looks-like.txt": "starts as a toy input does"},
	}.Test(t)
}

func TestCases(t *testing.T) {
	Cases(t, toy, []Case{
		{Name: "summed", In: "a 1\nb 2\na 3\n", Want: "a 4\nb 2\n"},
		{Name: "double", In: "a 1\n", Opts: format.MapOptions{"double": true}, Want: "a 2\n"},
		{Name: "bad", In: "a 1\nbad\n", Want: "a 1\n", Malformed: 1, Warn: []string{"in:2:"}},
	})
	refusing := toy
	refusing.New = func(format.Options, format.EmitFunc, *stream.Diag) (format.Parser, error) {
		return nil, errors.New("--x and --no-x contradict each other")
	}
	Cases(t, refusing, []Case{{Name: "refused", Err: "contradict"}})
	if got := FoldText(t, toy, nil, "toy\nq 0\n"); got != "q 0\n" {
		t.Errorf("zero counts: %q", got)
	}
}

func TestHelpers(t *testing.T) {
	if got := string(Repeat([]byte("h"), []byte("ab"), 6)); got != "hababab" {
		t.Errorf("Repeat: %q", got)
	}
	if m := Parse(t, "a 1\nb 2.5\na 2\n"); m["a"] != 3 || m["b"] != 2.5 || Total(t, "a 1\nb 2.5\n") != 3.5 {
		t.Errorf("Parse: %v", m)
	}
	if o := Flags("a", "b"); o.Name != "a+b" || o.Opts["a"] != true || o.Opts["b"] != true {
		t.Errorf("Flags: %+v", o)
	}
	dir := Dir(t.TempDir())
	write(t, dir.Path("x.gz"), "1\n2\n3\n")
	if got := string(dir.Head(t, "x.gz", 2)); got != "1\n2\n" {
		t.Errorf("Head: %q", got)
	}
}

func BenchmarkToy(b *testing.B) {
	Benchmark(b, toy, nil, Repeat([]byte("toy\n"), []byte("a;b 1\n"), 1<<16), []byte("c 2\n"))
}

func FuzzToy(f *testing.F) { FuzzFormat(f, toy, []byte("toy\na 1\n")) }
