package cmdtest

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/internal/testenv"
)

// ProgressLines runs the binary of m as Run does, with stdin and args,
// and returns the progress lines it drew on standard error, in order
// (each line's text, without the terminal codes), its whole standard
// error and its exit status. The line is redrawn every millisecond, and
// its standard output waits 50ms at its first write: the binaries write
// a small result once their input is read, so the line is drawn again
// with the final counts. Give --progress in args: standard error is a
// buffer.
func ProgressLines[M Maker](t testing.TB, m M, stdin io.Reader, args ...string) (lines []string, stderr string, status int) {
	t.Helper()
	defer cmdutil.SetProgressTiming(time.Millisecond, 1)()
	app := appOf(m)()
	var errw bytes.Buffer
	app.Writer, app.ErrWriter, app.Reader = &slowWriter{}, &errw, stdin
	status = cmdutil.Run(app, append([]string{app.Name}, args...))
	return DrawnLines(errw.String()), errw.String(), status
}

// ProgressOnTerminal runs the binary of m as ProgressLines does, with
// its standard error a terminal (a pseudo-terminal; without one the test
// is skipped, or fails under CI) and every input large enough for the
// line, and returns the lines the terminal showed and its exit status.
func ProgressOnTerminal[M Maker](t testing.TB, m M, args ...string) (lines []string, status int) {
	t.Helper()
	defer cmdutil.SetProgressTiming(time.Millisecond, 1)()
	ptmx, pts := testenv.OpenPTY(t)
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&screen, ptmx); close(done) }()
	app := appOf(m)()
	app.Writer, app.ErrWriter, app.Reader = &slowWriter{}, pts, strings.NewReader("")
	status = cmdutil.Run(app, append([]string{app.Name}, args...))
	pts.Close()
	time.Sleep(50 * time.Millisecond)
	ptmx.Close()
	<-done
	return DrawnLines(screen.String()), status
}

// DrawnLines returns the texts of the progress lines drawn in what a
// binary wrote to standard error: each is drawn over the last one, after
// the code that clears it, and is followed by another such code, not by
// a newline as the messages are.
func DrawnLines(stderr string) []string {
	var lines []string
	for _, s := range strings.Split(stderr, "\x1b[2K\r") {
		if s != "" && !strings.Contains(s, "\n") {
			lines = append(lines, s)
		}
	}
	return lines
}

// slowWriter is a standard output that waits at its first write.
type slowWriter struct {
	once sync.Once
	buf  bytes.Buffer
}

func (w *slowWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { time.Sleep(50 * time.Millisecond) })
	return w.buf.Write(p)
}

// Final is the last state of a progress line, for FinalLine: the data
// read (decompressed), the bytes read of the files themselves, their
// total size (-1 when unknown: standard input) and the stacks read.
// Sizes are under 1 KiB, which the line writes to the byte.
type Final struct {
	Phase                    string // "" for the pass that does the work
	Data, Raw, Total, Stacks int64
}

// FinalLine returns the pattern of the line of the binary name that
// shows f, whatever the rates and the elapsed time beside.
func FinalLine(name string, f Final) *regexp.Regexp {
	for _, n := range []int64{f.Data, f.Raw, f.Total} {
		if n >= 1024 {
			panic(fmt.Sprintf("FinalLine: %d bytes: the line rounds sizes over 1 KiB", n))
		}
	}
	re := "^" + regexp.QuoteMeta(name) + ": "
	if f.Phase != "" {
		re += regexp.QuoteMeta(f.Phase) + ": "
	}
	re += fmt.Sprintf(`%d B read( at \S+ \S+/s)?`, f.Data)
	switch {
	case f.Total < 0:
	case f.Raw == f.Data:
		re += fmt.Sprintf(` of %d B, 100%%`, f.Total)
	default:
		re += fmt.Sprintf(` \(%d B of %d B compressed, 100%%\)`, f.Raw, f.Total)
	}
	re += fmt.Sprintf(`, %d stacks( \(\S+/s\))?, \d+:\d\d$`, f.Stacks)
	return regexp.MustCompile(re)
}

// HasLine reports whether one of lines matches re.
func HasLine(lines []string, re *regexp.Regexp) bool {
	for _, l := range lines {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

// ProgressCase is one run of CheckProgress: standard input and the
// arguments, the last line the run must draw, and whether a first pass
// over sorted files checks their order (pmerge and pdiff), with a line
// of its own.
type ProgressCase struct {
	Name, Stdin string
	Args        []string
	Check       bool
	Final       Final
}

// CheckProgress runs the binary of m on each case with --progress and
// requires its last line, a line of the pass that checks the order
// exactly where the case says, and no line with --no-progress too.
func CheckProgress[M Maker](t testing.TB, m M, cases []ProgressCase) {
	t.Helper()
	name := appOf(m)().Name
	checking := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `: checking order: \d+ B read`)
	for _, tc := range cases {
		lines, stderr, status := ProgressLines(t, m, strings.NewReader(tc.Stdin), append([]string{"--progress"}, tc.Args...)...)
		if status != 0 {
			t.Fatalf("%s: exit %d: %q", tc.Name, status, stderr)
		}
		if want := FinalLine(name, tc.Final); !HasLine(lines, want) {
			t.Errorf("%s: no progress line matches %s; lines drawn:\n%s", tc.Name, want, strings.Join(lines, "\n"))
		}
		if got := HasLine(lines, checking); got != tc.Check {
			t.Errorf("%s: a line of the pass that checks the order: %v, want %v; lines drawn:\n%s", tc.Name, got, tc.Check, strings.Join(lines, "\n"))
		}
		if lines, stderr, _ := ProgressLines(t, m, strings.NewReader(tc.Stdin), append([]string{"--progress", "--no-progress"}, tc.Args...)...); len(lines) > 0 || stderr != "" {
			t.Errorf("%s: --no-progress: %q", tc.Name, stderr)
		}
	}
}

// CheckProgressOnTerminal runs the binary of m on args with standard
// error a terminal, as ProgressOnTerminal does, and requires a line
// showing final, and no line with --no-progress.
func CheckProgressOnTerminal[M Maker](t testing.TB, m M, final Final, args ...string) {
	t.Helper()
	lines, status := ProgressOnTerminal(t, m, args...)
	want := FinalLine(appOf(m)().Name, final)
	if status != 0 || !HasLine(lines, want) {
		t.Errorf("exit %d; no line on the terminal matches %s; lines drawn:\n%s", status, want, strings.Join(lines, "\n"))
	}
	if lines, _ := ProgressOnTerminal(t, m, append([]string{"--no-progress"}, args...)...); len(lines) > 0 {
		t.Errorf("--no-progress on the terminal: %q", lines)
	}
}
