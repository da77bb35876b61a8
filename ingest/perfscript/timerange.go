package perfscript

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Range is a time window, as FlameGraph's range-perf.pl cuts one out of
// perf script's text before stackcollapse-perf.pl folds it: a sample is
// kept when its time, in seconds, is from Min to Max, both included.
// Its time is counted from the first sample's (the first line with a
// time other than 0, PERF_RECORD_ lines too, as range-perf.pl takes it), from that
// second's start with ZeroSecs, or is perf's own timestamp with Raw.
//
// range-perf.pl stops reading at the first sample past Max, as perf
// script's samples come in time order; a Range weighs each sample by its
// own time, which is the same on such input, and keeps what a later
// input (a second file) has in the window.
type Range struct {
	Min, Max      float64 // -Inf and +Inf when open
	Raw, ZeroSecs bool    // range-perf.pl's --timeraw, --timezerosecs
}

// ParseRange reads --range's "MIN,MAX", seconds, either side empty for
// an open end.
func ParseRange(s string) (*Range, error) {
	lo, hi, ok := strings.Cut(s, ",")
	if !ok {
		return nil, fmt.Errorf("--range %q: want MIN,MAX in seconds, either may be left out (10,20; 10,; ,0.5)", s)
	}
	r := &Range{Min: math.Inf(-1), Max: math.Inf(1)}
	for _, b := range []struct {
		text string
		v    *float64
	}{{lo, &r.Min}, {hi, &r.Max}} {
		if b.text = strings.TrimSpace(b.text); b.text == "" {
			continue
		}
		v, err := strconv.ParseFloat(b.text, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("--range %q: %q is not a number of seconds", s, b.text)
		}
		*b.v = v
	}
	if r.Min > r.Max {
		return nil, fmt.Errorf("--range %q: MIN is past MAX", s)
	}
	return r, nil
}

// clock applies a Range: it learns the first time, then tells each
// sample's time in or out.
type clock struct {
	r       *Range
	start   float64 // what times are counted from
	started bool
	span    span // of the samples' times, as the Range reads them
}

// span is the earliest and latest of the times a clock saw, for
// --stats: the user who asks for a window may not know the input's.
type span struct {
	lo, hi float64
	seen   bool
}

func (s *span) add(t float64) {
	if !s.seen {
		s.lo, s.hi, s.seen = t, t, true
		return
	}
	s.lo, s.hi = min(s.lo, t), max(s.hi, t)
}

func (s *span) merge(o span) {
	if o.seen {
		s.add(o.lo)
		s.add(o.hi)
	}
}

// see takes a time token perf script printed, "SECONDS.FRACTION:", and
// reports whether it is in the window. The first time
// seen starts the clock.
func (c *clock) see(tok []byte) bool {
	ts, ok := parseTime(tok)
	if !ok {
		return false
	}
	return c.seeSeconds(ts)
}

// seeTime starts the clock, when it has not started, at a sample left
// out by the event filter: range-perf.pl counts from any sample's time.
func (c *clock) seeTime(tok []byte) {
	if c.r != nil && !c.started && tok != nil {
		if ts, ok := parseTime(tok); ok {
			c.startAt(ts)
		}
	}
}

// seeSeconds is see for a time already read as range-perf.pl reads it.
func (c *clock) seeSeconds(ts float64) bool {
	c.startAt(ts)
	t := ts
	if !c.r.Raw {
		// Perl's subtraction of two doubles: the same bits.
		t = ts - c.start
	}
	c.span.add(t)
	return t >= c.r.Min && t <= c.r.Max
}

// startAt starts the clock at ts unless it has started.
func (c *clock) startAt(ts float64) {
	if !c.started && ts != 0 {
		// range-perf.pl's "$start = $ts if $start == 0": a time of 0
		// (the kernel's first mmap, with --show-mmap-events) starts
		// nothing.
		c.started = true
		c.start = ts
		if c.r.ZeroSecs {
			c.start = math.Floor(ts)
		}
	}
}

// parseTime reads a time token, "SECONDS.FRACTION:", as Perl reads
// the number: the nearest double. Perl gathers the digits into an
// integer and divides it by a power of ten once, which for perf's 6 or 9
// decimals of seconds since boot is exact before the one rounding, so
// it agrees with strconv's correctly rounded parse.
func parseTime(tok []byte) (float64, bool) {
	if !isTime(tok) {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(tok[:len(tok)-1]), 64)
	return v, err == nil
}

// noTimeMsg says why a Range kept nothing from samples without times.
const noTimeMsg = "the samples have no time (perf script prints it unless -F leaves out the time field)"

// CheckRange is an error when a Range left out every sample for want of
// a time.
func CheckRange(st Stats) error {
	if st.Ranged && st.Samples == 0 && st.Untimed > 0 {
		return fmt.Errorf("--range: %s", noTimeMsg)
	}
	return nil
}
