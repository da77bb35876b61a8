package ingest

import (
	"bytes"
	"fmt"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// A parser that passes over the lines it does not know without a word
// (format.Passer: the tools it reads mix other text among the stacks)
// would pass over another format appended to its input just as well,
// and lose it with exit 0. So the Folder watches the runs of lines such
// a parser passes over or reports as malformed, and sniffs a run, from
// its first line with what follows, as Detect would (otherSure): when
// it takes them for another format, the input changes format at the
// run's first line. A run is looked at once it holds runLines lines,
// or at once when a line of it is malformed. A look costs tens to
// hundreds of microseconds (every sniffer on MixedWindow bytes): an
// input's first freeRunChecks runs are looked at, then one every
// runCheckEvery bytes read; and the run an input ends in, where a part
// appended is, always (endOfRun). The lines before the first one used
// are the input's start, which Detect looked at (startsPassed).

const (
	// runLines is how many lines passed over in a row, blank lines not
	// counted, make a run looked at (or fewer at the end of the input):
	// the text a tool mixes in comes in shorter runs, mostly.
	runLines = 8
	// freeRunChecks is how many runs of an input are looked at whatever
	// the input's size; after them, one every runCheckEvery bytes read
	// (a look costs about what parsing 100 KiB does).
	freeRunChecks = 2
	runCheckEvery = 8 << 20
)

// run is the run of lines passed over the Folder is in, if any. It is
// looked at in segments of MixedWindow bytes, each from its first line
// with what follows it. Its lines are not copied: the reader gives them
// back (stream.Reader.Back) while they are in its last 64 KiB.
type run struct {
	first   int   // the first line of the segment read; 0: no run
	off     int64 // where it starts (stream.Reader.Consumed)
	lines   int   // its lines that are not blank
	checked bool  // the segment was looked at
	own     bool  // and found to be in the input's format

	runFirst int    // the run's first line
	runOff   int64  // where it starts
	runOwn   bool   // its first segment was found in the input's format
	head     []byte // its first lines, kept once the reader may drop them
	kept     bool   // head holds them

	lastEnd int64  // where the last line noted ends
	last    int    // its number
	atStart bool   // no line of the input was used before the run
	used    bool   // a line of the input was used
	checks  int    // segments of the input looked at
	at      int64  // DataRead at the last look
	win     []byte // the window looked at
}

// passing is Folder.input's line loop for a parser that passes lines
// over (p): it notes each line passed over as the parser passes it
// (format.Passer.OnPass), and looks at the run after the line's Line
// call when due, or when a line is malformed. A line used costs the loop
// nothing more: that a run ended is seen at the next line passed over
// (the lines between are not all blank), or at the end of the input.
func (fl *Folder) passing(r *stream.Reader, u *used, f *format.Format, p format.Passer) error {
	name := r.Name()
	rn := &fl.run
	*rn = run{win: rn.win[:0], head: rn.head[:0], at: r.DataRead(), lastEnd: r.Consumed()}
	fl.due = false
	p.OnPass(func() { fl.due = fl.note(r) || fl.due })
	defer p.OnPass(nil)
	for r.ScanInput() {
		before := fl.Diag.Count()
		err := u.lines.Line(name, r.Line(), r.Bytes())
		if fl.Diag.Count() != before || fl.due {
			if mixed := fl.afterLine(r, f, fl.Diag.Count() != before); mixed != nil {
				return mixed
			}
		}
		if err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	if rn.first != 0 && !rn.atStart && !fl.usedSince(r, r.Consumed()) {
		if mixed := fl.endOfRun(r, f); mixed != nil {
			return mixed
		}
	}
	return u.lines.End()
}

// usedSince reports whether a line not blank was read between the
// last line passed over and start (where a line starts): a line used,
// which ended the run. Lines the reader no longer holds were many: used.
func (fl *Folder) usedSince(r *stream.Reader, start int64) bool {
	rn := &fl.run
	if start <= rn.lastEnd {
		return false
	}
	b := r.Back(rn.lastEnd)
	if b == nil {
		return true
	}
	for _, c := range b[:start-rn.lastEnd] {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return true
		}
	}
	return false
}

// note adds the line r is on, passed over (or malformed), to the run,
// which it begins unless the line is blank, and says whether to look at
// the run: that is done after the line's Line call, as it peeks ahead.
func (fl *Folder) note(r *stream.Reader) bool {
	rn := &fl.run
	n, line, end := r.Line(), r.Bytes(), r.Consumed()
	if n == rn.last {
		return false // noted already (passed over, and malformed)
	}
	start := end - int64(len(line)) - 1
	if n != rn.last+1 && fl.usedSince(r, start) {
		rn.first, rn.used = 0, true // a line used ended the run
	}
	rn.last, rn.lastEnd = n, end
	if !blank(line) {
		if rn.first == 0 {
			rn.first, rn.off, rn.lines, rn.checked, rn.own = n, start, 0, false, false
			rn.runFirst, rn.runOff, rn.runOwn, rn.atStart, rn.kept = n, start, false, !rn.used, false
		}
		rn.lines++
	} else if rn.first == 0 {
		return false
	}
	if rn.lines < runLines {
		return false // a short run, as most are
	}
	if rn.lines%16 == 0 && !rn.kept && end-rn.runOff > MixedWindow {
		// The reader holds 64 KiB back: the end of the input looks at
		// the run's first lines (endStarts, endWindow), kept from here
		// (looked at every 16 lines: they would have to be 3 KiB long
		// for the first ones to be dropped before).
		h, _ := back(r, rn.runOff)
		rn.head = append(rn.head[:0], h[:min(len(h), 2*endWindow)]...)
		rn.kept = true
	}
	if rn.checked {
		if end-rn.off > MixedWindow {
			// What follows the segment's start was looked at, up to
			// MixedWindow bytes: the run goes on in a segment from here.
			if rn.first == rn.runFirst {
				rn.runOwn = rn.own
			}
			rn.first, rn.off, rn.lines, rn.checked, rn.own = n, start, 1, false, false
		}
		return false
	}
	return !rn.atStart && (rn.checks < freeRunChecks || r.DataRead()-rn.at >= runCheckEvery)
}

// afterLine looks at the run after a line passed over asked for it
// (due), or a line was malformed (bad): such a line is looked at as the
// start of another format, the run it ends from the run's start.
func (fl *Folder) afterLine(r *stream.Reader, f *format.Format, bad bool) error {
	due := fl.due
	fl.due = false
	if bad {
		due = fl.note(r) || due
		rn := &fl.run
		switch {
		case rn.atStart:
			return fl.mixed(r, f)
		case rn.first == 0 || rn.checked:
			return nil
		}
		if fl.checks++; fl.checks <= maxMixedChecks {
			return fl.lookAtRun(r, f)
		}
	}
	if due {
		return fl.lookAtRun(r, f)
	}
	return nil
}

// back returns the lines from off on that r still holds (all of them
// when it holds off), and the number of the first; off is where a line
// starts, or just before its newline (the last line of an input with
// none).
func back(r *stream.Reader, off int64) ([]byte, int) {
	b := r.Back(off)
	if b == nil {
		// The oldest held, past a line cut short.
		from := r.Consumed() - MixedWindow
		if b = r.Back(from); b == nil {
			return nil, 0
		}
		i := bytes.IndexByte(b, '\n')
		b = b[i+1:]
	} else if len(b) > 0 && b[0] == '\n' {
		b = b[1:]
	}
	lines := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		lines++
	}
	return b, r.Line() - lines + 1
}

// lookAtRun sniffs the segment of the run r is in, with what follows
// it, as the start of another format than f.
func (fl *Folder) lookAtRun(r *stream.Reader, f *format.Format) error {
	rn := &fl.run
	rn.checked = true
	rn.checks++
	rn.at = r.DataRead()
	seg, first := back(r, rn.off)
	if first != rn.first {
		// Its start is no longer held (a segment long unlooked at): it
		// starts where it is.
		rn.first, rn.off = first, r.Consumed()-int64(len(seg))
	}
	w := append(rn.win[:0], seg[:min(len(seg), MixedWindow)]...)
	w = append(w, r.Peek(MixedWindow-len(w))...)
	rn.win = w
	g, own := otherSure(f.Name, w)
	rn.own = own
	if g != nil {
		return fmt.Errorf("%s:%s", r.Name(), changeMessage(rn.first, f.Name, g.Name))
	}
	return nil
}

// endOfRun looks at the run the input ends in as a part appended to the
// input: its last segment, if not looked at; the run from each of its
// first few lines, as the input's own last text may come before the part
// appended; and the last half, quarter, … of its last MixedWindow bytes
// (two lines at least), for a longer such text before a format whose
// sniffer wants every line to be its own (folded stacks, stap). The
// change is at the first line from which another format is sure of what
// follows.
func (fl *Folder) endOfRun(r *stream.Reader, f *format.Format) error {
	rn, name := &fl.run, r.Name()
	seg, first := back(r, rn.off)
	if seg == nil {
		return nil
	}
	head, hf := rn.head, rn.runFirst
	if !rn.kept {
		head, hf = back(r, rn.runOff)
	}
	if !rn.checked {
		// The segment from its start, if held: else the run's first lines.
		w, at := seg, first
		if first != rn.first {
			w, at = nil, 0
			if rn.first == rn.runFirst && hf == rn.runFirst {
				w, at = head, hf
			}
		}
		if w != nil {
			g, own := otherSure(f.Name, w)
			if g != nil {
				return fmt.Errorf("%s:%s", name, changeMessage(at, f.Name, g.Name))
			}
			rn.own = own
		}
	}
	runOwn := rn.runOwn
	if rn.first == rn.runFirst {
		runOwn = rn.own
	}
	if !runOwn && hf == rn.runFirst {
		starts := lineStarts(head, endStarts+1)
		for k := 1; k < len(starts); k++ {
			w := head[starts[k]:]
			if g, _ := otherSure(f.Name, w[:min(len(w), endWindow)]); g != nil {
				return fmt.Errorf("%s:%s", name, changeMessage(hf+k, f.Name, g.Name))
			}
		}
	}
	if rn.own {
		return nil // the input's format goes on (a profile appended to itself)
	}
	prev := 0
	if first == rn.first && rn.first == rn.runFirst {
		prev = endStarts // looked at above
	}
	if first != rn.first || len(seg) > MixedWindow {
		// The segment's last MixedWindow bytes, from a line's start,
		// not looked at from there.
		if len(seg) > MixedWindow {
			cut := len(seg) - MixedWindow
			cut += bytes.IndexByte(seg[cut:], '\n') + 1
			first += bytes.Count(seg[:cut], []byte{'\n'})
			seg = seg[cut:]
		}
		prev = 0
		if _, own := otherSure(f.Name, seg); own {
			return nil
		}
	}
	starts := lineStarts(seg, -1)
	for k := len(starts) / 2; k >= 2; k /= 2 {
		from := len(starts) - k
		if from <= prev {
			break
		}
		g, _ := otherSure(f.Name, seg[starts[from]:])
		if g == nil {
			prev = from
			continue
		}
		for from-1 > prev && g.Sniff(seg[starts[from-1]:]) == format.Sure {
			from--
		}
		return fmt.Errorf("%s:%s", name, changeMessage(first+from, f.Name, g.Name))
	}
	return nil
}

// lineStarts returns where the lines of b start, the first n of them
// (all with n < 0), blank lines at the end left out.
func lineStarts(b []byte, n int) []int {
	var starts []int
	for i := 0; i < len(b) && len(starts) != n; {
		starts = append(starts, i)
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	for len(starts) > 0 && blank(bytes.TrimRight(b[starts[len(starts)-1]:], "\n")) {
		starts = starts[:len(starts)-1]
	}
	return starts
}

const (
	// endStarts is how many lines of the run an input ends in are each
	// looked at as the start of another format, with what follows them
	// up to endWindow bytes.
	endStarts = 8
	endWindow = 4 << 10
)

// blank reports whether line holds nothing but spaces, tabs and a '\r'.
func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
