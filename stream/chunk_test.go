package stream

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chunks returns every chunk of ch, copied, and checks what holds for
// any chunking: each chunk but an input's last ends at a blank line, and
// its Line is the number of its first line in its input.
func chunks(t *testing.T, ch *Chunker) []Chunk {
	t.Helper()
	var out []Chunk
	lines := map[string]int{}
	for {
		c, err := ch.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := lines[c.Name] + 1; c.Line != want {
			t.Errorf("%s: chunk at line %d, want %d", c.Name, c.Line, want)
		}
		lines[c.Name] += bytes.Count(c.Data, []byte{'\n'})
		out = append(out, Chunk{Data: bytes.Clone(c.Data), Name: c.Name, Line: c.Line})
		ch.Release(c)
	}
	for i, c := range out {
		last := i == len(out)-1 || out[i+1].Name != c.Name
		if !last && !bytes.HasSuffix(c.Data, []byte("\n\n")) {
			t.Errorf("%s: chunk %d does not end at a blank line: %q", c.Name, i, c.Data[max(0, len(c.Data)-20):])
		}
	}
	return out
}

func joined(cs []Chunk, name string) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Name == name {
			b.Write(c.Data)
		}
	}
	return b.String()
}

func sampleText(records int) string {
	var b strings.Builder
	for i := range records {
		b.WriteString("proc 1 1.0: cpu-clock:\n")
		// Every 37th record is larger than the chunks below.
		n := 1 + i%5
		if i%37 == 0 {
			n = 400
		}
		for j := range n {
			b.WriteString("\t" + strings.Repeat("f", 1+(i+j)%30) + " (/bin/x)\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestChunkerMappedAndRead: a plain file is mapped, stdin and compressed
// files are read; every way gives the input back whole, cut at blank
// lines, with the right line numbers.
func TestChunkerMappedAndRead(t *testing.T) {
	text := sampleText(300)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	unterminated := filepath.Join(dir, "unterminated.txt")
	empty := filepath.Join(dir, "empty.txt")
	gz := filepath.Join(dir, "text.gz")
	os.WriteFile(plain, []byte(text), 0o644)
	os.WriteFile(unterminated, []byte(text+"proc 2 2.0: cpu-clock:\n\tlast (/bin/x)"), 0o644)
	os.WriteFile(empty, nil, 0o644)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(text))
	zw.Close()
	os.WriteFile(gz, zb.Bytes(), 0o644)

	for _, size := range []int{64, 4096, 1 << 20} {
		ch := NewChunker([]string{plain, empty, unterminated, gz}, nil, size, 3)
		got := chunks(t, ch)
		if ch.mapped != nil || ch.cur != nil {
			t.Error("an input is left open at the end")
		}
		if n := ch.BytesRead(); n != int64(2*len(text)+len("proc 2 2.0: cpu-clock:\n\tlast (/bin/x)")+zb.Len()) {
			t.Errorf("size %d: BytesRead %d", size, n)
		}
		ch.Close()
		for _, tc := range []struct{ name, want string }{{plain, text}, {empty, ""}, {unterminated, text + "proc 2 2.0: cpu-clock:\n\tlast (/bin/x)"}, {gz, text}} {
			if j := joined(got, tc.name); j != tc.want {
				t.Errorf("size %d: %s comes back as %d bytes, want %d", size, filepath.Base(tc.name), len(j), len(tc.want))
			}
		}
		stdin := NewChunker(nil, strings.NewReader(text), size, 3)
		if j := joined(chunks(t, stdin), "-"); j != text {
			t.Errorf("size %d: stdin comes back as %d bytes, want %d", size, len(j), len(text))
		}
	}
}

// TestChunkerDeferLines: with DeferLines, chunks carry no line number,
// and Seq and First number them as the counting Chunker does.
func TestChunkerDeferLines(t *testing.T) {
	text := sampleText(300)
	dir := t.TempDir()
	plain, other := filepath.Join(dir, "plain.txt"), filepath.Join(dir, "other.txt")
	os.WriteFile(plain, []byte(text), 0o644)
	os.WriteFile(other, []byte(text), 0o644)
	for _, size := range []int{64, 4096} {
		counted := chunks(t, NewChunker([]string{plain, "-", other}, strings.NewReader(text), size, 3))
		ch := NewChunker([]string{plain, "-", other}, strings.NewReader(text), size, 3)
		ch.DeferLines()
		lines := 0
		for i := 0; ; i++ {
			c, err := ch.Next()
			if err == io.EOF {
				if i != len(counted) {
					t.Errorf("size %d: %d chunks, want %d", size, i, len(counted))
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Seq != i || c.Line != 0 {
				t.Errorf("size %d: chunk %d has Seq %d, Line %d", size, i, c.Seq, c.Line)
			}
			if c.First {
				lines = 0
			}
			if i < len(counted) && counted[i].Line != lines+1 {
				t.Errorf("size %d: chunk %d follows line %d; the counting Chunker starts it at %d", size, i, lines, counted[i].Line)
			}
			lines += bytes.Count(c.Data, []byte{'\n'})
			ch.Release(c)
		}
		ch.Close()
	}
}

// TestChunkerFileShrinks: a mapped file that shrinks while it is read
// is an error naming it, not a crash.
func TestChunkerFileShrinks(t *testing.T) {
	name := filepath.Join(t.TempDir(), "shrinks.txt")
	text := sampleText(3000)
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ch := NewChunker([]string{name}, nil, 16<<10, 4)
	defer ch.Close()
	first, err := ch.Next()
	if err != nil {
		t.Fatal(err)
	}
	if first.mem == nil {
		t.Fatal("a plain file was not mapped")
	}
	if err := os.Truncate(name, 100); err != nil {
		t.Fatal(err)
	}
	err = CatchFault(first.Name, func() error {
		_ = bytes.Count(first.Data, []byte{'\n'})
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "shrinks.txt: the file changed while being read") {
		t.Errorf("reading a chunk of a shrunk file: %v", err)
	}
	ch.Release(first)
	if _, err := ch.Next(); err == nil || !strings.Contains(err.Error(), "changed while being read") {
		t.Errorf("next chunk of a shrunk file: %v", err)
	}
}
