//go:build linux

package cmdutil

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pfold/pfold/internal/testenv"
)

// TestProgressOnTerminal: with standard error a terminal and a large
// input, the line shows without --progress; --no-progress hides it.
func TestProgressOnTerminal(t *testing.T) {
	lowThreshold(t)
	in := writeInput(t, 1000)
	screen := onTerminal(t, []string{"reader", "--stats", in}, []string{"reader", "--stats", "--no-progress", in})
	out := strings.ReplaceAll(screen, "\r\n", "\n") // the terminal's output processing
	first, second, ok := strings.Cut(out, "reader: 1000 lines\n")
	if !ok {
		t.Fatalf("no stats line on the terminal: %q", out)
	}
	if !strings.Contains(first, "read of 17.3 KiB, 100%") || !strings.HasSuffix(first, "\033[2K\r") {
		t.Errorf("no progress line, then cleared, on the terminal: %q", first)
	}
	if second != "reader: 1000 lines\n" {
		t.Errorf("--no-progress on the terminal: %q", second)
	}
}

// TestProgressCompressed: a small compressed file that holds much data
// gets a progress line on a terminal, and the line counts the data (the
// uncompressed bytes), with the compressed ones beside them.
func TestProgressCompressed(t *testing.T) {
	lowThreshold(t)
	var raw bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&raw, "main;work;f%d %d\n", i%50, i+1)
	}
	progressThreshold = int64(raw.Len()) / 2 // the gzip file is far smaller
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw.Bytes())
	zw.Close()
	in := filepath.Join(t.TempDir(), "in.folded.gz")
	os.WriteFile(in, gz.Bytes(), 0o644)
	if int64(gz.Len()) > progressThreshold {
		t.Fatalf("the compressed file (%d bytes) is not small", gz.Len())
	}
	screen := onTerminal(t, []string{"reader", "--stats", in})
	if out := screen; !strings.Contains(out, "KiB read") || !strings.Contains(out, "compressed") {
		t.Errorf("no progress line of the data with the compressed bytes beside: %q", out)
	}
}

// onTerminal runs the reading app with each args in turn, its standard
// error a terminal, and returns what the terminal showed.
func onTerminal(t *testing.T, args ...[]string) string {
	t.Helper()
	ptmx, pts := testenv.OpenPTY(t)
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&screen, ptmx); close(done) }()
	for _, a := range args {
		if st := Run(readingApp(pts, 50*time.Millisecond, 0), a); st != 0 {
			t.Fatalf("%v: status %d", a, st)
		}
	}
	pts.Close()
	time.Sleep(50 * time.Millisecond)
	ptmx.Close()
	<-done
	return screen.String()
}
