package formattest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/pfold/pfold/ingest/format"
)

// Sniff is a format's sniffer test: it must be sure of the format's
// inputs, and of nothing else in testdata, every other format's fixtures
// (inputs, oracles, goldens) and the files beside them included, nor of
// what is no profile (log lines, JSON, CSV, binary data). Each input is
// given as pfold gives it: its first format.SniffSize bytes,
// decompressed.
type Sniff struct {
	Format format.Format
	Dir    Dir
	// Sure are the inputs in Dir the sniffer must be sure of: file
	// names or patterns, each matching at least one file.
	Sure []string
	// SureText are more inputs it must be sure of; NotSureText, inputs
	// it must not be (near misses: the format's marks out of place).
	SureText, NotSureText []string
	// Except lists other files of testdata (paths relative to it) the
	// sniffer is sure of all the same, and why; it must be sure of
	// them, so that the list cannot outlive what it explains.
	Except map[string]string
}

// notProfiles are inputs no sniffer may be sure of.
var notProfiles = func() []string {
	rnd := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(rnd)
	return []string{
		"",
		"\n\n",
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey for root\nNov  2 10:00:02 host CRON[5]: (root) CMD (true)\n",
		`{"a": [1, 2], "b": {"c": "d"}}` + "\n",
		"a,b,c\n1,2,3\n",
		"\x00\x01\x02binary\xff\xfe",
		string(rnd),
	}
}()

// Test runs the sniffer on its inputs, on every file of testdata and on
// the texts.
func (s Sniff) Test(t *testing.T) {
	t.Helper()
	root := filepath.Dir(string(s.Dir))
	mine := map[string]bool{}
	for _, p := range s.Sure {
		m, err := filepath.Glob(s.Dir.Path(p))
		if err != nil || len(m) == 0 {
			t.Errorf("no input matches %s in %s", p, s.Dir)
		}
		for _, f := range m {
			mine[filepath.Clean(f)] = true
		}
	}
	except := map[string]bool{}
	for rel := range s.Except {
		except[filepath.Join(root, rel)] = true
	}
	others := 0
	for _, f := range testdata(t, root) {
		score := s.Format.Sniff(f.prefix)
		switch {
		case mine[f.path]:
			if score != format.Sure {
				t.Errorf("%s: %v, not sure", f.path, score)
			}
		case except[f.path]:
			delete(except, f.path)
			if score != format.Sure {
				t.Errorf("%s: listed in Except (%s) but not taken for %s", f.path, s.Except[rel(root, f.path)], s.Format.Name)
			}
		default:
			others++
			if score == format.Sure {
				t.Errorf("%s taken for %s", f.path, s.Format.Name)
			}
		}
	}
	for f := range except {
		t.Errorf("Except lists %s, which is no file", rel(root, f))
	}
	if others < 100 {
		t.Errorf("only %d other files in %s", others, root)
	}
	for _, in := range s.SureText {
		if score := s.Format.Sniff([]byte(in)); score != format.Sure {
			t.Errorf("%.60q: %v, not sure", in, score)
		}
	}
	for _, in := range slices.Concat(notProfiles, s.NotSureText) {
		if s.Format.Sniff([]byte(in)) == format.Sure {
			t.Errorf("%.60q taken for %s", in, s.Format.Name)
		}
	}
}

func rel(root, path string) string {
	r, _ := filepath.Rel(root, path)
	return r
}

type prefixFile struct {
	path   string
	prefix []byte
}

var (
	prefixesMu sync.Mutex
	prefixes   = map[string][]prefixFile{} // by root
)

// testdata returns the first format.SniffSize bytes of every file under
// root, decompressed (gzip, by its magic bytes), read once per test
// binary.
func testdata(t *testing.T, root string) []prefixFile {
	t.Helper()
	prefixesMu.Lock()
	defer prefixesMu.Unlock()
	if files, ok := prefixes[root]; ok {
		return files
	}
	var files []prefixFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := readPrefix(path)
		if err != nil {
			return err
		}
		files = append(files, prefixFile{filepath.Clean(path), b})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	prefixes[root] = files
	return files
}

func readPrefix(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, format.SniffSize))
	if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		return b, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b, err = io.ReadAll(io.LimitReader(z, format.SniffSize))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
