package stream

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pierrec/lz4/v4"
)

// TestRunRoundTrip: a run gives back the records written to it, whether
// the reader takes a record whole from its buffer or a byte at a time
// (decimal counts, stacks longer than the buffer, varints of every
// length, the end of the run).
func TestRunRoundTrip(t *testing.T) {
	type rec struct {
		stack string
		c     fold.Count
	}
	var recs []rec
	for i := range 5000 {
		s := strings.Repeat("f;", i%50) + "leaf"
		switch {
		case i%997 == 0:
			s = strings.Repeat("long;", 10000+i) // longer than the buffer
		case i%13 == 0:
			s = ""
		}
		c := fold.Int(uint64(i) << (i % 64))
		if i%7 == 0 {
			c = fold.Dec(float64(i) / 3)
		}
		if i == 4999 {
			c = fold.Int(math.MaxUint64)
		}
		recs = append(recs, rec{s, c})
	}
	path := filepath.Join(t.TempDir(), "run.lz4")
	w, err := createRun(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.write([]byte(r.stack), r.c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	r, err := openRun(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for i, want := range recs {
		if err := r.next(); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if s, c := r.cur(); !bytes.Equal(s, []byte(want.stack)) || c != want.c {
			t.Fatalf("record %d: %.40q %v, want %.40q %v", i, s, c, want.stack, want.c)
		}
	}
	if err := r.next(); err != io.EOF {
		t.Fatalf("after the last record: %v, want EOF", err)
	}
}

// TestRunCorrupt: a record that shares more bytes with the stack before
// it than that stack has, or that ends early, is an error naming the
// run, not a stack made up of whatever the buffer held.
func TestRunCorrupt(t *testing.T) {
	for name, body := range map[string][]byte{
		"shares too much": {3, 1, 'a', 0, 1},                  // the first record shares 3 bytes
		"cut short":       {0, 5, 'a', 'b'},                   // 5 bytes announced, 2 there
		"bad kind":        {0, 1, 'a', 7, 1},                  // kind 7
		"second shares":   {0, 2, 'a', 'b', 0, 1, 3, 0, 0, 1}, // shares 3 of "ab"
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.lz4")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			zw := lz4.NewWriter(f)
			if _, err := zw.Write(body); err != nil {
				t.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			r, err := openRun(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			for {
				err = r.next()
				if err != nil {
					break
				}
			}
			if err == io.EOF || !strings.Contains(err.Error(), path) {
				t.Fatalf("got %v, want an error naming %s", err, path)
			}
		})
	}
}
