package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/pfold/pfold/fold"
)

// TopOptions choose the rows of the text report.
type TopOptions struct {
	SortTotal bool // sort by total instead of self samples
	Limit     int  // at most this many rows; 0 means all
	// CountName names what the counts are ("Samples" when empty):
	// "nanoseconds" for a cpu-clock recording folded by period.
	CountName string
}

// WriteTop writes stackprof's text report: a header with the sample
// total, then one row per frame name, TOTAL (pct), SAMPLES (pct), FRAME,
// sorted by SAMPLES (self) or TOTAL, largest first. The columns are laid
// out as stackprof --text lays them out.
func (p *Profile) WriteTop(w io.Writer, opt TopOptions) error {
	bw := bufio.NewWriter(w)
	order := p.sorted(opt.SortTotal)
	shown := len(order)
	if opt.Limit > 0 && opt.Limit < shown {
		shown = opt.Limit
	}
	fmt.Fprintf(bw, "==================================\n")
	name := opt.CountName
	if name == "" {
		name = "Samples"
	}
	fmt.Fprintf(bw, "  %s: %s in %d stacks\n", name, p.Total, p.Stacks)
	fmt.Fprintf(bw, "  Frames: %d (%d shown)\n", p.Len(), shown)
	fmt.Fprintf(bw, "==================================\n")
	// stackprof's self column is SAMPLES; counts of another unit are
	// the frame's SELF in that unit, which the header names.
	self := "SAMPLES"
	if opt.CountName != "" {
		self = "SELF"
	}
	fmt.Fprintf(bw, "%10s    (pct)  %10s    (pct)     FRAME\n", "TOTAL", self)
	// Each row is "%s %8s  %s %8s     %s\n" of the columns below,
	// appended rather than printed: a report of every frame of a large
	// profile has a million rows.
	var row []byte
	for _, i := range order[:shown] {
		self, total := p.self.get(int(i)), p.total.get(int(i))
		row = appendCount(row[:0], total)
		row = append(row, ' ')
		row = p.appendPercent(row, total)
		row = append(row, "  "...)
		row = appendCount(row, self)
		row = append(row, ' ')
		row = p.appendPercent(row, self)
		row = append(row, "     "...)
		row = append(row, p.names.Key(int32(i))...)
		if _, err := bw.Write(append(row, '\n')); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendCount right-aligns a count in 10 columns with at least one
// leading space, as Ruby's "% 10d" does.
func appendCount(dst []byte, c fold.Count) []byte {
	return padLeft(c.Append(append(dst, ' ')), len(dst), 10)
}

// appendPercent appends c's share of the total as "(%2.1f%%)" in 8
// columns, right-aligned.
func (p *Profile) appendPercent(dst []byte, c fold.Count) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(append(dst, '('), p.percent(c), 'f', 1, 64)
	return padLeft(append(dst, "%)"...), n, 8)
}

// padLeft right-aligns dst[from:] in width columns with spaces, if it
// is narrower; a count's leading space counts as one of them.
func padLeft(dst []byte, from, width int) []byte {
	n := len(dst) - from
	if n >= width {
		return dst
	}
	dst = append(dst, "          "[:width-n]...)
	copy(dst[from+width-n:], dst[from:from+n])
	for k := from; k < from+width-n; k++ {
		dst[k] = ' '
	}
	return dst
}
