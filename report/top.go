package report

import (
	"bufio"
	"fmt"
	"io"
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
	for _, i := range order[:shown] {
		self, total := p.self.get(int(i)), p.total.get(int(i))
		fmt.Fprintf(bw, "%s %8s  %s %8s     %s\n",
			countColumn(total), fmt.Sprintf("(%2.1f%%)", p.percent(total)),
			countColumn(self), fmt.Sprintf("(%2.1f%%)", p.percent(self)),
			p.names.Key(int32(i)))
	}
	return bw.Flush()
}

// countColumn right-aligns a count in 10 columns with at least one
// leading space, as Ruby's "% 10d" does.
func countColumn(c interface{ String() string }) string {
	s := c.String()
	if len(s) >= 10 {
		return " " + s
	}
	return fmt.Sprintf("%10s", s)
}
