package formattest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
)

// Dir is a format's directory of test data, as its tests reach it
// ("../../testdata/stap"). Its parent is the testdata directory every
// format's fixtures are in.
type Dir string

// Path returns the path of name, a path relative to d.
func (d Dir) Path(name string) string { return filepath.Join(string(d), name) }

// Read returns the file name of d (a path relative to d), decompressed
// when it ends in .gz; it fails the test when the file cannot be read.
func (d Dir) Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := readFile(d.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ReadEach returns the named files of d, each cut to its first max
// bytes when max is not 0: fuzz seeds, benchmark input.
func (d Dir) ReadEach(t testing.TB, max int, names ...string) [][]byte {
	t.Helper()
	files := make([][]byte, len(names))
	for i, n := range names {
		files[i] = d.Read(t, n)
		if max > 0 {
			files[i] = files[i][:min(len(files[i]), max)]
		}
	}
	return files
}

// Head returns the first n lines of the file name of d: small fuzz
// seeds, which the fuzzer minimises in reasonable time.
func (d Dir) Head(t testing.TB, name string, n int) []byte {
	t.Helper()
	b := d.Read(t, name)
	for i, c := range b {
		if c == '\n' {
			if n--; n == 0 {
				return b[:i+1]
			}
		}
	}
	return b
}

func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return b, err
	}
	return gunzip(path, b)
}

func gunzip(path string, b []byte) ([]byte, error) {
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if b, err = io.ReadAll(z); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// writeFile writes data to path, gzipped (as the goldens have always
// been: best compression, no name, no time) when gz is set.
func writeFile(path string, data []byte, gz bool) error {
	if gz {
		var b bytes.Buffer
		z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		z.Write(data)
		if err := z.Close(); err != nil {
			return err
		}
		data = b.Bytes()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Parse reads folded stacks into a map from stack to count, the counts
// of a stack given twice summed.
func Parse(t testing.TB, folded string) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for l := range strings.Lines(folded) {
		if l = strings.TrimSuffix(l, "\n"); l == "" {
			continue
		}
		stack, c, err := fold.ParseLine([]byte(l))
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		m[string(stack)] += c.Float64()
	}
	return m
}

// Total returns the sum of the counts of folded stacks.
func Total(t testing.TB, folded string) float64 {
	t.Helper()
	var n float64
	for _, c := range Parse(t, folded) {
		n += c
	}
	return n
}
