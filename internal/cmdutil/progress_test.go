package cmdutil

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

func TestProgressWanted(t *testing.T) {
	big, small := progressThreshold+1, progressThreshold
	for _, tc := range []struct {
		name                   string
		forced, disabled, term bool
		total                  int64
		known                  bool
		wanted, fromStart      bool
	}{
		{"terminal, big file", false, false, true, big, true, true, true},
		// A small file is watched: compressed, it may hold much data.
		{"terminal, small file", false, false, true, small, true, true, false},
		{"terminal, pipe", false, false, true, 0, false, true, false},
		{"not a terminal, big file", false, false, false, big, true, false, false},
		{"not a terminal, pipe", false, false, false, 0, false, false, false},
		{"--progress, not a terminal, small file", true, false, false, 10, true, true, true},
		{"--progress, pipe", true, false, false, 0, false, true, true},
		{"--no-progress, terminal, big file", false, true, true, big, true, false, false},
		{"--progress --no-progress", true, true, true, big, true, false, false},
	} {
		wanted, fromStart := progressWanted(tc.forced, tc.disabled, tc.term, tc.total, tc.known)
		if wanted != tc.wanted || fromStart != tc.fromStart {
			t.Errorf("%s: wanted %v from start %v, want %v %v", tc.name, wanted, fromStart, tc.wanted, tc.fromStart)
		}
	}
}

// readingApp reads its input through Input, as every binary does, warns
// after line warnAt (0: never), and ends with a --stats line; pause keeps
// it running long enough for the progress line to be drawn.
func readingApp(stderr io.Writer, pause time.Duration, warnAt int) *cli.App {
	return &cli.App{
		Name:      "reader",
		Writer:    io.Discard,
		ErrWriter: stderr,
		Flags:     []cli.Flag{StatsFlag},
		Action: func(c *cli.Context) error {
			in := Input(c)
			defer in.Close()
			lines := 0
			for in.Scan() {
				lines++
				if lines == warnAt {
					fmt.Fprintf(c.App.ErrWriter, "warning: something\n")
				}
			}
			time.Sleep(pause)
			Statsf(c, "%d lines", lines)
			return in.Err()
		},
	}
}

// lowThreshold makes every input "large" and ticks fast for the test.
func lowThreshold(t *testing.T) {
	oldThreshold, oldInterval := progressThreshold, progressInterval
	progressThreshold, progressInterval = 1, 5*time.Millisecond
	t.Cleanup(func() { progressThreshold, progressInterval = oldThreshold, oldInterval })
}

func writeInput(t testing.TB, lines int) string {
	t.Helper()
	var b bytes.Buffer
	for i := range lines {
		fmt.Fprintf(&b, "main;work;f%d %d\n", i%50, i+1)
	}
	name := filepath.Join(t.TempDir(), "in.folded")
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestProgressOffWhenNotTerminal: an input over the threshold, standard
// error a file or a buffer: nothing but the program's own messages.
func TestProgressOffWhenNotTerminal(t *testing.T) {
	lowThreshold(t)
	in := writeInput(t, 1000)
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for _, stderr := range []io.Writer{f, &buf} {
		for _, args := range [][]string{{in}, {in, "--no-progress"}, {in, "--progress", "--no-progress"}} {
			if st := Run(readingApp(stderr, 50*time.Millisecond, 0), append([]string{"reader", "--stats"}, args...)); st != 0 {
				t.Fatalf("%v: status %d", args, st)
			}
		}
	}
	got, _ := os.ReadFile(f.Name())
	want := strings.Repeat("reader: 1000 lines\n", 3)
	if string(got) != want || buf.String() != want {
		t.Errorf("stderr a file: %q\nstderr a buffer: %q\nwant %q", got, buf.String(), want)
	}
}

// TestProgressForced: --progress draws the line even on a buffer, clears
// it before every message, and does not draw it again after a message
// once the input is read: the --stats line is the last thing written.
func TestProgressForced(t *testing.T) {
	lowThreshold(t)
	in := writeInput(t, 1000)
	const clear = "\033[2K\r"

	var buf bytes.Buffer
	if st := Run(readingApp(&buf, 100*time.Millisecond, 0), []string{"reader", "--stats", "--progress", in}); st != 0 {
		t.Fatalf("status %d: %s", st, buf.String())
	}
	bar, ok := strings.CutSuffix(buf.String(), clear+"reader: 1000 lines\n")
	if !ok || !strings.HasPrefix(bar, clear+"reader: 0 B read of 17.3 KiB, 0%") || !strings.Contains(bar, "reader: 17.3 KiB read of 17.3 KiB, 100%") {
		t.Errorf("want the line from 0%% to 100%% of 18 kB, cleared, then the stats:\n%q", buf.String())
	}

	// A warning while reading: the whole (small) file is read at once, so
	// nothing more is read after it and the line stays off.
	buf.Reset()
	if st := Run(readingApp(&buf, 100*time.Millisecond, 500), []string{"reader", "--stats", "--progress", in}); st != 0 {
		t.Fatalf("status %d: %s", st, buf.String())
	}
	before, after, ok := strings.Cut(buf.String(), clear+"warning: something\n")
	if !ok || !strings.HasPrefix(before, clear+"reader: 0 B read of 17.3 KiB, 0%") || strings.Contains(before, "\n") {
		t.Fatalf("want the line at 0%%, then the warning after it is cleared:\n%q", buf.String())
	}
	if after != "reader: 1000 lines\n" {
		t.Errorf("after the warning %q, want the stats line only", after)
	}
}

// TestProgressPipe: from a pipe of unknown size, the line appears once
// the threshold has been read, and shows bytes and elapsed time.
func TestProgressPipe(t *testing.T) {
	lowThreshold(t)
	progressThreshold = 3000 // five lines
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for i := range 40 {
			fmt.Fprintf(pw, "%s %d\n", strings.Repeat("frame;", 100), i)
			time.Sleep(2 * time.Millisecond)
		}
		pw.Close()
	}()
	var buf bytes.Buffer
	app := readingApp(&buf, 100*time.Millisecond, 20)
	app.Reader = pr
	if st := Run(app, []string{"reader", "--stats", "--progress"}); st != 0 {
		t.Fatalf("status %d: %s", st, buf.String())
	}
	out := buf.String()
	const clear = "\033[2K\r"
	before, after, ok := strings.Cut(out, clear+"warning: something\n")
	if !ok {
		t.Fatalf("the warning does not follow a cleared line:\n%q", out)
	}
	if !strings.Contains(before, "reader: ") || !strings.Contains(before, "KiB read") || !strings.Contains(before, ", 0:00") {
		t.Errorf("no progress line with bytes and elapsed time:\n%q", before)
	}
	// The size is unknown: the line is drawn again after the warning,
	// and removed for good before the stats.
	last, ok := strings.CutSuffix(after, clear+"reader: 40 lines\n")
	if !ok || !strings.Contains(last, "reader") || strings.Contains(last, "\n") {
		t.Errorf("after the warning %q, want the line redrawn, then cleared before the stats", after)
	}
}

func TestInputSize(t *testing.T) {
	in := writeInput(t, 10)
	size, _ := stream.TotalSize([]string{in})
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, pw, _ := os.Pipe()
	defer pr.Close()
	defer pw.Close()
	for _, tc := range []struct {
		names []string
		stdin io.Reader
		total int64
		known bool
	}{
		{[]string{in, in}, nil, 2 * size, true},
		{nil, f, size, true},
		{[]string{in, "-"}, f, 2 * size, true},
		{nil, pr, 0, false},
		{[]string{"-"}, strings.NewReader("x"), 0, false},
		{[]string{in, filepath.Dir(in)}, nil, 0, false},
	} {
		total, known := inputSize(tc.names, tc.stdin)
		if total != tc.total || known != tc.known {
			t.Errorf("inputSize(%v) = %d, %v, want %d, %v", tc.names, total, known, tc.total, tc.known)
		}
	}
}

// BenchmarkFoldProgress folds a folded file through Input, fold.ParseLine
// and the Aggregator, as pmerge does, with the progress line off and
// forced on, drawn to io.Discard every 10ms (25 times as often as in
// use): the two must run at the same speed.
func BenchmarkFoldProgress(b *testing.B) {
	old := progressInterval
	progressInterval = 10 * time.Millisecond
	b.Cleanup(func() { progressInterval = old })
	in := writeInput(b, 500000)
	size, _ := stream.TotalSize([]string{in})
	for _, mode := range []string{"--no-progress", "--progress"} {
		b.Run(strings.TrimPrefix(mode, "--"), func(b *testing.B) {
			app := &cli.App{
				Name: "fold", Writer: io.Discard, ErrWriter: io.Discard,
				Action: func(c *cli.Context) error {
					agg := stream.NewAggregator(stream.Options{Mem: 64 << 20})
					defer agg.Close()
					in := Input(c)
					defer in.Close()
					for in.Scan() {
						stack, n, err := fold.ParseLine(in.Bytes())
						if err != nil {
							return err
						}
						if err := agg.Add(stack, n); err != nil {
							return err
						}
					}
					_, err := agg.WriteTo(io.Discard)
					return err
				},
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if st := Run(app, []string{"fold", mode, in}); st != 0 {
					b.Fatalf("status %d", st)
				}
			}
		})
	}
}

// TestProgressStacks: with a stacks counter the line shows the stacks
// folded and their rate.
func TestProgressStacks(t *testing.T) {
	var buf strings.Builder
	var n atomic.Int64
	n.Store(12345)
	l := &progressLine{w: &buf, name: "pfold", total: -1, start: time.Now().Add(-time.Second), stacks: n.Load}
	l.draw(1<<20, 1<<20, n.Load())
	if !strings.Contains(buf.String(), "1.0 MiB read at") || !strings.Contains(buf.String(), "12k stacks (12k/s)") {
		t.Errorf("line %q", buf.String())
	}
}

// TestProgressFinishedStacks: stacks are counted after their bytes are
// read, so a line whose input is all read is drawn again until it shows
// every stack.
func TestProgressFinishedStacks(t *testing.T) {
	lowThreshold(t)
	in := writeInput(t, 10)
	var buf bytes.Buffer
	app := &cli.App{
		Name: "reader", Writer: io.Discard, ErrWriter: &buf,
		Action: func(c *cli.Context) error {
			var n atomic.Int64
			ProgressStacks(c, &n)
			r := Input(c)
			defer r.Close()
			for r.Scan() {
			}
			time.Sleep(50 * time.Millisecond) // all read, no stack counted yet
			n.Store(10)
			time.Sleep(50 * time.Millisecond)
			return nil
		},
	}
	if st := Run(app, []string{"reader", "--progress", in}); st != 0 {
		t.Fatalf("status %d: %s", st, buf.String())
	}
	if out := buf.String(); !strings.Contains(out, "100%, 0 stacks") || !strings.Contains(out, "100%, 10 stacks") {
		t.Errorf("want the line at 100%% with no stack, then with all ten:\n%q", out)
	}
}

// TestProgressCompressedLabel: the line says "compressed" only where the
// data outgrows the bytes read, as decompression makes it; a plain
// input's data, counted a moment after its bytes, does not make it so.
func TestProgressCompressedLabel(t *testing.T) {
	for _, tc := range []struct {
		raw, data  int64
		compressed bool
	}{{100 << 20, 100 << 20, false}, {100 << 20, 99 << 20, false}, {10 << 20, 40 << 20, true}} {
		var buf strings.Builder
		l := &progressLine{w: &buf, name: "pfilter", total: 200 << 20, start: time.Now()}
		l.draw(tc.raw, tc.data, 0)
		if got := strings.Contains(buf.String(), "compressed"); got != tc.compressed {
			t.Errorf("raw %d, data %d: %q", tc.raw, tc.data, buf.String())
		}
	}
}
