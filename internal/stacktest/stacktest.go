package stacktest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
)

// Random returns n stack adds over about uniq distinct stacks, with
// some decimal counts when dec is set.
func Random(n, uniq int, dec bool) (stacks []string, counts []fold.Count) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		k := rng.IntN(uniq)
		depth := 3 + k%17
		var b strings.Builder
		b.WriteString("proc")
		for d := 0; d < depth; d++ {
			fmt.Fprintf(&b, ";func_%d_%d", d, (k>>d)%7)
		}
		fmt.Fprintf(&b, ";leaf%d", k)
		stacks = append(stacks, b.String())
		c := fold.Int(uint64(1 + rng.IntN(1000)))
		if dec && i%10 == 0 {
			c = fold.Dec(0.25)
		}
		counts = append(counts, c)
	}
	return
}

// WriteFile writes data to a file name in a temporary directory of t and
// returns its path.
func WriteFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Files writes n files in a temporary directory of t, in0 to in{n-1},
// each with what write(i, …) writes, and returns their paths and their
// summed size.
func Files(t testing.TB, n int, write func(i int, b *bytes.Buffer)) (names []string, size int64) {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		var b bytes.Buffer
		write(i, &b)
		p := filepath.Join(dir, fmt.Sprintf("in%d", i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
		size += int64(b.Len())
	}
	return names, size
}

// Aggregate sums identical stacks of folded text and returns them sorted
// bytewise, as pfold writes them: the form oracle outputs are compared in.
func Aggregate(t testing.TB, text []byte) string {
	t.Helper()
	sums := map[string]fold.Count{}
	for i, line := range bytes.Split(text, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		stack, c, err := fold.ParseLine(line)
		if err != nil {
			t.Fatalf("line %d: %v: %q", i+1, err, line)
		}
		s, err := sums[string(stack)].Add(c)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		sums[string(stack)] = s
	}
	return Folded(sums)
}

// Folded returns the stacks of sums with their counts as folded lines,
// sorted bytewise by stack, as pfold writes them.
func Folded(sums map[string]fold.Count) string {
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []byte
	for _, k := range keys {
		out = fold.AppendLine(out, []byte(k), sums[k])
	}
	return string(out)
}

// FirstDiff describes the first line where got and want differ, long
// lines shortened, for test failures on folded text.
func FirstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, shorten(a), shorten(b))
		}
	}
	return "(no line differs)"
}

func shorten(s string) string {
	if len(s) > 300 {
		return s[:150] + " … " + s[len(s)-150:]
	}
	return s
}

// ReadFile returns the content of path, failing the test when it cannot
// be read.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// GzipFile writes data gzipped to a file name in a temporary directory
// of t and returns its path. Name it without .gz: the binaries tell
// compression by magic bytes, not names.
func GzipFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return WriteFile(t, name, b.Bytes())
}

// Gunzip returns the uncompressed bytes of gzipped data, read by the
// standard library's reader whoever wrote them.
func Gunzip(t testing.TB, data []byte) []byte {
	t.Helper()
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// PlainAndGzip writes first to a file 1.folded and second gzipped to a
// file 2.folded.gz, each in a temporary directory of t, and returns
// their paths: the two inputs of a binary's test that files are read in
// order as one stream, compressed or not.
func PlainAndGzip(t testing.TB, first, second string) (plain, gzipped string) {
	t.Helper()
	return WriteFile(t, "1.folded", []byte(first)), GzipFile(t, "2.folded.gz", []byte(second))
}

// Golden compares got with the golden file at path; with update (the
// test's -update flag) it rewrites the file first.
func Golden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it): %s", path, FirstDiff(got, string(want)))
	}
}

// ManyFrames returns n folded lines, unsorted, with about n/2 distinct
// frame names and more call edges: deep and shallow stacks over shared
// callers, recursion, a frame with a location (name:file:line), and a
// decimal count in every dec-th line (none when dec is 0): quarters,
// whose float64 sums are exact in any order, as a spilled table adds
// them. It is the input of the commands' tests that a small --mem makes
// their tables spill.
func ManyFrames(n, dec int) []byte {
	rng := rand.New(rand.NewPCG(uint64(n), 16))
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "proc%d", rng.IntN(3))
		depth := 1 + rng.IntN(8)
		for d := range depth {
			switch k := rng.IntN(20); {
			case k == 0:
				b.WriteString(";recurse;recurse")
			case k == 1:
				fmt.Fprintf(&b, ";located:src/f%d.c:%d", rng.IntN(50), 1+rng.IntN(300))
			case d < 3:
				fmt.Fprintf(&b, ";common_%d_%d", d, rng.IntN(40))
			default:
				fmt.Fprintf(&b, ";fn_%d", rng.IntN(n/2+1))
			}
		}
		if dec > 0 && i%dec == 0 {
			fmt.Fprintf(&b, " %d.%d\n", rng.IntN(100), 25*(1+rng.IntN(3)))
		} else {
			fmt.Fprintf(&b, " %d\n", 1+rng.IntN(1000))
		}
	}
	return b.Bytes()
}

// FileSize returns the size of the file at path.
func FileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
