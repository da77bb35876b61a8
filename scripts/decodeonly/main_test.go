package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// TestCountLines: decodeonly counts every line of a plain, a zstd and an
// lz4 input, over several chunks, and of several inputs in order.
func TestCountLines(t *testing.T) {
	var text bytes.Buffer
	lines := 0
	for text.Len() < 10<<20 { // more than two 4 MiB chunks
		fmt.Fprintf(&text, "prog 1 %d.000001: 1 cpu-clock:\n\t    1234 f%d (/bin/prog)\n\n", lines, lines%97)
		lines += 3
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "dump.txt")
	if err := os.WriteFile(plain, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var zst bytes.Buffer
	zw, err := zstd.NewWriter(&zst)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(text.Bytes())
	zw.Close()
	var l4 bytes.Buffer
	lw := lz4.NewWriter(&l4)
	lw.Write(text.Bytes())
	lw.Close()
	zstName, lz4Name := filepath.Join(dir, "dump.txt.zst"), filepath.Join(dir, "dump.txt.lz4")
	if err := os.WriteFile(zstName, zst.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lz4Name, l4.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, names := range [][]string{{plain}, {zstName}, {lz4Name}, {zstName, lz4Name, plain}} {
		got, err := countLines(names)
		if err != nil {
			t.Fatal(err)
		}
		if want := lines * len(names); got != want {
			t.Errorf("%v: %d lines, want %d", names, got, want)
		}
	}
	if _, err := countLines([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing input: no error")
	}
}
