package stream

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestMapFile: the rest of a file from its offset, a page in or not;
// nothing mapped at its end or for an empty file.
func TestMapFile(t *testing.T) {
	content := bytes.Repeat([]byte("0123456789abcdef"), 3*os.Getpagesize()/16+5)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, off := range []int64{0, 1, int64(os.Getpagesize()), int64(os.Getpagesize()) + 3, int64(len(content)) - 1, int64(len(content))} {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		data, unmap, ok := MapFile(f)
		if !canMap || off == int64(len(content)) {
			if ok {
				t.Errorf("offset %d: mapped", off)
				unmap()
			}
			continue
		}
		if !ok || !bytes.Equal(data, content[off:]) {
			t.Errorf("offset %d: %v, %d bytes", off, ok, len(data))
		}
		if ok {
			unmap()
		}
	}
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o644)
	if e, err := os.Open(empty); err == nil {
		if _, _, ok := MapFile(e); ok {
			t.Error("empty file mapped")
		}
		e.Close()
	}
}
