package cmdutil

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// Progress is shown on standard error while the input is read, when
// standard error is a terminal and the input is large: over
// progressThreshold bytes in all when the input's size is known (regular
// files, compressed ones by their compressed size), or once that much has
// been read from a pipe. --progress shows it whatever the input and
// wherever standard error goes; --no-progress never (it wins over
// --progress).
//
// The reading loop never touches the progress line: a ticker goroutine
// samples the reader's byte count (stream.Reader.BytesRead, an atomic
// counter) every progressInterval and redraws it. Every message written
// to the app's standard error clears the line first, and the line is
// drawn again only once more input has been read: a warning in the middle
// of the input is followed by the line again, while the --stats and
// warnings printed after the input is read are the last thing on the
// screen. When the command returns, Run removes the line for good.
var (
	progressThreshold int64 = 64 << 20
	progressInterval        = 250 * time.Millisecond
)

// ProgressFlags returns the --progress and --no-progress flags. Run adds
// them to every app that does not declare them.
func ProgressFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "progress", Usage: "show a progress line on stderr whatever the input size and even when stderr is not a terminal",
			DefaultText: "auto: shown when stderr is a terminal and the input is over 64 MiB"},
		&cli.BoolFlag{Name: "no-progress", Usage: "never show the progress line (wins over --progress)", DefaultText: "false"},
	}
}

// errWriter is an app's standard error while Run runs it: it clears the
// progress line, when one is drawn, before each message.
type errWriter struct {
	mu  sync.Mutex
	w   io.Writer // the real standard error
	bar *progress // the running progress line, or nil
	// stacks counts the stacks folded, when the command says so.
	stacks *atomic.Int64
}

func (e *errWriter) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if b := e.bar; b != nil {
		b.clear()
		b.paused, b.pausedAt = true, b.in.BytesRead()
	}
	return e.w.Write(p)
}

// stop removes the progress line, if any, for good.
func (e *errWriter) stop() {
	e.mu.Lock()
	p := e.bar
	e.bar = nil
	e.mu.Unlock()
	if p == nil {
		return
	}
	close(p.quit)
	<-p.done
	e.mu.Lock()
	p.clear()
	e.mu.Unlock()
}

// progress is one progress line; its fields other than quit and done are
// used under errWriter.mu.
type progress struct {
	bar   *progressLine
	total int64 // -1 when unknown
	shown bool  // drawn since the last clear
	in    ByteCounter
	// paused is set by a message: the line is not drawn again until
	// more than pausedAt bytes have been read.
	paused   bool
	pausedAt int64
	active   bool // the input is large enough, or progress is forced
	quit     chan struct{}
	done     chan struct{}
}

func (p *progress) clear() {
	if p.shown {
		p.bar.clear()
		p.shown = false
	}
}

// ProgressStacks makes the progress line show counter, the stacks folded
// so far, and their rate. Call it before Input or Chunker.
func ProgressStacks(c *cli.Context, counter *atomic.Int64) {
	if e, ok := c.App.ErrWriter.(*errWriter); ok {
		e.mu.Lock()
		e.stacks = counter
		e.mu.Unlock()
	}
}

// DataCounter is a ByteCounter that also counts the bytes after
// decompression (stream.Reader, stream.Chunker): the progress line shows
// the rate of the work, not of the wire.
type DataCounter interface{ DataRead() int64 }

// progressLine draws one line on a terminal, redrawn in place:
//
//	pfold: 1.2 GiB read at 640 MiB/s (75 MiB of 150 MiB compressed, 50%), 0:02, about 0:02 left
//	pmerge: checking order: 96 MiB read at 480 MiB/s of 400 MiB, 24%, 180k stacks (900k/s), 0:00, about 0:01 left
type progressLine struct {
	w        io.Writer
	name     string
	phase    string // what the pass does, when a command makes several, or ""
	total    int64  // raw bytes in all, -1 when unknown
	start    time.Time
	finished bool
	stacks   func() int64 // the stacks read so far, or nil
	drawn    int64        // the stacks the line last showed
}

// stale reports whether the line has nothing new to show: all its input
// was read (a known size), and the stacks, which are counted after their
// bytes are read, are all shown too.
func (l *progressLine) stale() bool {
	return l.finished && (l.stacks == nil || l.stacks() == l.drawn)
}

// count returns the stacks read so far, or 0 when the line shows none.
// The ticker takes it before the bytes: stacks are counted after their
// bytes are read, and the line never shows more stacks than its bytes
// hold.
func (l *progressLine) count() int64 {
	if l.stacks == nil {
		return 0
	}
	return l.stacks()
}

// draw draws the line: raw bytes read of the files themselves, data after
// decompression, stacks read.
func (l *progressLine) draw(raw, data, stacks int64) {
	el := time.Since(l.start)
	text := l.name + ": "
	if l.phase != "" {
		text += l.phase + ": "
	}
	text += humanBytes(data) + " read"
	if s := el.Seconds(); s > 0.2 {
		text += " at " + humanBytes(int64(float64(data)/s)) + "/s"
	}
	if l.total >= 0 {
		pct := 100.0
		if l.total > 0 {
			pct = 100 * float64(raw) / float64(l.total)
		}
		// Compressed input expands; a plain one's data may lag its raw
		// bytes for a moment, counted at different places.
		if data > raw {
			text += fmt.Sprintf(" (%s of %s compressed, %.0f%%)", humanBytes(raw), humanBytes(l.total), pct)
		} else {
			text += fmt.Sprintf(" of %s, %.0f%%", humanBytes(l.total), pct)
		}
		if raw >= l.total {
			l.finished = true
		}
	}
	if l.stacks != nil {
		n := stacks
		l.drawn = n
		text += fmt.Sprintf(", %s stacks", humanCount(n))
		if s := el.Seconds(); s > 0.2 {
			text += fmt.Sprintf(" (%s/s)", humanCount(int64(float64(n)/s)))
		}
	}
	text += ", " + clock(el)
	if l.total > 0 && raw > 0 && raw < l.total {
		left := time.Duration(float64(el) * float64(l.total-raw) / float64(raw))
		text += ", about " + clock(left) + " left"
	}
	fmt.Fprintf(l.w, "\x1b[2K\r%s", text)
}

func (l *progressLine) clear() { io.WriteString(l.w, "\x1b[2K\r") }

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, u := float64(n), 0
	for f >= unit && u < 5 {
		f /= unit
		u++
	}
	return fmt.Sprintf("%.1f %ciB", f, "KMGTPE"[u-1])
}

func humanCount(n int64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func clock(d time.Duration) string {
	s := int64(d.Seconds())
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// progressWanted decides whether a progress line may be shown, and
// whether from the start (forced, or a known size over the threshold)
// rather than once a pipe has delivered progressThreshold bytes.
func progressWanted(forced, disabled, terminal bool, total int64, known bool) (wanted, fromStart bool) {
	switch {
	case disabled:
		return false, false
	case forced:
		return true, true
	case !terminal:
		return false, false
	case known:
		// A small compressed file may hold much data: the line may still
		// appear, once the data read passes the threshold.
		return true, total > progressThreshold
	}
	return true, false
}

// ByteCounter is a reader of the command's inputs that counts the bytes
// read from them, safely from another goroutine: stream.Reader,
// stream.Chunker, stream.Progress.
type ByteCounter interface{ BytesRead() int64 }

// StacksCounter is a ByteCounter that also counts the stacks read
// (stream.Progress): the line shows them, as ProgressStacks does.
type StacksCounter interface{ StacksRead() int64 }

// StartProgress starts the progress line of in, which reads the command's
// file arguments, if the options and the input call for one. Input calls
// it; a binary that reads its arguments otherwise calls it itself.
func StartProgress(c *cli.Context, in ByteCounter) { startProgress(c, in, "", c.Args().Slice()) }

// ProgressPass starts the progress line of one pass over the inputs
// names, read through several readers (pmerge's and pdiff's, one an
// input) that count into the stream.Progress it returns (CountInto,
// stream.CheckSorted): the line shows the bytes they read, decompressed,
// and the stacks. phase, when not empty, says what the pass does, for a
// command that reads its inputs twice ("checking order"); each pass
// replaces the line of the one before. ProgressPass returns nil, which
// counts nothing, when no line is to be shown.
func ProgressPass(c *cli.Context, phase string, names []string) *stream.Progress {
	p := new(stream.Progress)
	if !startProgress(c, p, phase, names) {
		return nil
	}
	return p
}

// startProgress starts the line of in, which reads names, and reports
// whether one may be shown.
func startProgress(c *cli.Context, in ByteCounter, phase string, names []string) bool {
	e, ok := c.App.ErrWriter.(*errWriter)
	if !ok {
		return false // not run by Run: no way to keep messages off the line
	}
	e.stop() // a second Input replaces the first one's line
	total, known := inputSize(names, c.App.Reader)
	wanted, fromStart := progressWanted(c.Bool("progress"), c.Bool("no-progress"), isTerminalWriter(e.w), total, known)
	if !wanted {
		return false
	}
	if !known {
		total = -1
	}
	var stacks func() int64
	if sc, ok := in.(StacksCounter); ok {
		stacks = sc.StacksRead
	} else if e.stacks != nil {
		stacks = e.stacks.Load
	}
	p := &progress{
		bar:    &progressLine{w: e.w, name: c.App.Name, phase: phase, total: total, start: time.Now(), stacks: stacks},
		total:  total,
		in:     in,
		active: fromStart,
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	e.mu.Lock()
	e.bar = p
	if p.active {
		p.bar.draw(0, 0, 0)
		p.shown = true
	}
	e.mu.Unlock()
	go e.tick(p, in)
	return true
}

// tick redraws p from in's byte count until p is stopped.
func (e *errWriter) tick(p *progress, in ByteCounter) {
	defer close(p.done)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
		}
		stacks := p.bar.count()
		n := in.BytesRead()
		data := n
		if d, ok := in.(DataCounter); ok {
			data = d.DataRead()
		}
		e.mu.Lock()
		if e.bar != p { // stopped, or cleared for an interrupt
			e.mu.Unlock()
			return
		}
		if p.paused && n == p.pausedAt {
			e.mu.Unlock()
			continue
		}
		p.paused = false
		if p.total >= 0 && n > p.total {
			n = p.total // a file that grew while read
		}
		// A small .zst can hold gigabytes: the work is the data.
		if !p.active && max(n, data) > progressThreshold {
			p.active = true
		}
		// A finished line (a known size, all read, every stack shown)
		// is not drawn again.
		if p.active && !p.bar.stale() {
			p.bar.draw(n, data, stacks)
			p.shown = true
		}
		e.mu.Unlock()
	}
}

// SetProgressTiming sets how often the line is redrawn and from what
// input size it is shown on a terminal, for the tests of the binaries,
// and returns the function that restores them. Not for use while a
// command runs.
func SetProgressTiming(interval time.Duration, threshold int64) (restore func()) {
	oldInterval, oldThreshold := progressInterval, progressThreshold
	progressInterval, progressThreshold = interval, threshold
	return func() { progressInterval, progressThreshold = oldInterval, oldThreshold }
}

// StopProgress removes the progress line for good. Run calls it when the
// command returns; a command may call it earlier, before a long final
// phase that reads no input.
func StopProgress(c *cli.Context) {
	if e, ok := c.App.ErrWriter.(*errWriter); ok {
		e.stop()
	}
}

// inputSize returns the summed size of the named inputs when all are
// regular files; "-" (or no name) counts as stdin's size when stdin is a
// redirected regular file.
func inputSize(names []string, stdin io.Reader) (int64, bool) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	var total int64
	for _, n := range names {
		if n != "-" {
			size, ok := stream.TotalSize([]string{n})
			if !ok {
				return 0, false
			}
			total += size
			continue
		}
		f, ok := stdin.(*os.File)
		if !ok {
			return 0, false
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0, false
		}
		total += st.Size()
	}
	return total, true
}

// IsTerminalWriter reports whether w is a terminal, such as a standard
// output that a binary format must not be written to.
func IsTerminalWriter(w io.Writer) bool { return isTerminalWriter(w) }

func isTerminalWriter(w io.Writer) bool {
	if e, ok := w.(*errWriter); ok {
		w = e.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// addMissingFlags appends to app.Flags those of flags whose name it does
// not declare yet.
func addMissingFlags(app *cli.App, flags ...cli.Flag) {
	declared := map[string]bool{}
	for _, f := range app.Flags {
		for _, n := range f.Names() {
			declared[n] = true
		}
	}
	for _, f := range flags {
		if !declared[f.Names()[0]] {
			app.Flags = append(app.Flags, f)
		}
	}
}

// running is the standard error of the command Main runs, for its
// signal handler.
var running atomic.Pointer[errWriter]

// clearProgressLine removes the progress line for good, if one is drawn,
// before the message of an interrupted run.
func clearProgressLine() {
	e := running.Load()
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bar != nil {
		e.bar.clear()
		e.bar = nil
	}
}
