package stream

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/pfold/pfold/internal/stacktest"
)

// TestProgressCounts: every reader of a pass (mapped or read, plain or
// compressed, a file or standard input, its first pass or the second)
// counts in a Progress all the bytes of the files, decompressed and as
// they are, and every stack, batches and windows included.
func TestProgressCounts(t *testing.T) {
	defer func(w int) { MapWindow = w }(MapWindow)
	MapWindow = os.Getpagesize() // many windows
	var text bytes.Buffer
	for i := range 3*stacksBatch + 7 {
		fmt.Fprintf(&text, "main;f%05d %d\n", i, i+1)
	}
	text.WriteString("malformed\n")
	stacks := int64(3*stacksBatch + 7)
	plain := stacktest.WriteFile(t, "in.folded", text.Bytes())
	gz := stacktest.GzipFile(t, "in.folded.gz", text.Bytes())
	gzSize := int64(len(stacktest.ReadFile(t, gz)))
	size := int64(text.Len())
	quiet := NewDiag(io.Discard, false)
	drain := func(s interface{ Next() bool }) {
		for s.Next() {
		}
	}
	for _, tc := range []struct {
		name              string
		raw, data, stacks int64
		read              func(p *Progress)
	}{
		{"CheckSorted, mapped", size, size, stacks, func(p *Progress) { CheckSorted(plain, nil, p) }},
		{"CheckSorted, compressed", gzSize, size, stacks, func(p *Progress) { CheckSorted(gz, nil, p) }},
		{"SortedInput, mapped", size, size, stacks, func(p *Progress) {
			s := NewMappedSortedInput(plain, quiet, nil)
			defer s.Close()
			s.CountInto(p)
			drain(s)
		}},
		{"SortedInput, compressed", gzSize, size, stacks, func(p *Progress) {
			s := NewSortedInput(gz, quiet, nil)
			defer s.Close()
			s.CountInto(p)
			drain(s)
		}},
		{"FoldedReader, two files", size + gzSize, 2 * size, 2 * stacks, func(p *Progress) {
			r := NewReader([]string{plain, gz})
			defer r.Close()
			fr := NewFoldedReader(r, quiet)
			fr.CountInto(p)
			drain(fr)
		}},
		{"FoldedReader, standard input", size, size, stacks, func(p *Progress) {
			r := NewReaderStdin(nil, bytes.NewReader(text.Bytes()))
			defer r.Close()
			fr := NewFoldedReader(r, quiet)
			fr.CountInto(p)
			drain(fr)
		}},
		{"Reader.Rest", gzSize, size, 0, func(p *Progress) {
			r := NewReader([]string{gz})
			defer r.Close()
			r.CountInto(p)
			r.NextInput()
			io.Copy(io.Discard, r.Rest())
		}},
		{"Reader.Skip", size, size, 0, func(p *Progress) {
			r := NewReader([]string{plain})
			defer r.Close()
			r.CountInto(p)
			r.NextInput()
			r.Peek(10)
			r.Skip()
		}},
	} {
		p := new(Progress)
		tc.read(p)
		if p.BytesRead() != tc.raw || p.DataRead() != tc.data || p.StacksRead() != tc.stacks {
			t.Errorf("%s: %d bytes read, %d decompressed, %d stacks; want %d, %d, %d", tc.name, p.BytesRead(), p.DataRead(), p.StacksRead(), tc.raw, tc.data, tc.stacks)
		}
	}
}
