package stream

import (
	"bytes"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
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
