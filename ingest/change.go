package ingest

import (
	"bytes"
	"io"
	"iter"
	"slices"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// use is how a line parser takes a line.
type use int8

const (
	useBlank    use = iota // a blank line: no sign either way
	usePassed              // passed over without a word (format.Passer)
	useUsed                // neither passed over nor reported
	useRejected            // reported as malformed, or an error
)

// lineUses runs f's line parser, every option at its default, on the
// lines of b (a parser made for the look and dropped; what it folds goes
// nowhere) and says how it takes each, up to the first used one with
// untilUsed. It returns nil for a document format.
func lineUses(f *format.Format, b []byte, untilUsed bool) []use {
	if f.New == nil {
		return nil
	}
	diag := stream.NewDiag(io.Discard, false)
	p, err := f.New(format.MapOptions{}, func([]byte, fold.Count) error { return nil }, diag)
	if err != nil {
		return nil
	}
	if c, ok := p.(io.Closer); ok {
		defer c.Close()
	}
	passed := false
	if ps, ok := p.(format.Passer); ok {
		ps.OnPass(func() { passed = true })
	}
	var uses []use
	n := 0
	for l := range format.Lines(b) {
		n++
		before := diag.Count()
		passed = false
		err := p.Line("", n, l)
		u := useUsed
		switch {
		case err != nil || diag.Count() != before:
			u = useRejected
		case passed:
			u = usePassed
		case blank(l):
			u = useBlank
		}
		uses = append(uses, u)
		if u == useUsed && untilUsed {
			break
		}
	}
	return uses
}

// weight is what a line's use says for the line being of the format:
// used for, rejected against, the rest nothing.
func (u use) weight() int {
	switch u {
	case useUsed:
		return 1
	case useRejected:
		return -1
	}
	return 0
}

// changeAt finds the line of b where the format changes from g to f:
// the one before which g's parser takes the most lines and f's the
// fewest, net (the first such, then the first line not blank from
// there). Lines neither parser uses between the two parts (a trailer,
// a header passed over) go to the part after. It returns 1 when g's
// parser takes nothing.
func changeAt(g, f *format.Format, b []byte) int {
	ug, uf := lineUses(g, b, false), lineUses(f, b, false)
	n := max(len(ug), len(uf))
	at, best, sum := 0, 0, 0
	for i := range n {
		if i < len(ug) {
			sum += ug[i].weight()
		}
		if i < len(uf) {
			sum -= uf[i].weight()
		}
		if sum > best {
			at, best = i+1, sum
		}
	}
	// at lines are before the change: skip the blank ones after them.
	for ; at < n; at++ {
		if (at >= len(ug) || ug[at] != useBlank) && (at >= len(uf) || uf[at] != useBlank) {
			break
		}
	}
	return at + 1
}

// headLines returns b cut after its first n lines.
func headLines(b []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 {
			return b
		}
		end += i + 1
	}
	return b[:end]
}

// next is the number of lines of the next head startsPassed looks at,
// after one of k lines and size bytes: one line less for a head of at
// most 16 lines shorter than the shortest startsOther looks at, else
// half as many.
func next(k, size int) int {
	if k <= 16 && size < heads[len(heads)-1] {
		return k - 1
	}
	return k / 2
}

// startsPassed looks at the lines of an input detected as f before the
// first line f's parser uses, when it passes over lines without a word
// (format.Passer): when another format is sure of them (or of their
// first half, quarter, …) and f is not, the input starts in that format
// and changes to f, which is a *ChangeError at the line changeAt finds.
// (Another format's lines shorter than the heads startsOther looks at,
// and before f's marks, would be passed over and lost: `cat a.folded
// b.prof` with a two-line a.folded.)
func startsPassed(prefix []byte, f *format.Format) error {
	uses := lineUses(f, prefix, true)
	if len(uses) < 2 || uses[len(uses)-1] != useUsed {
		return nil // f uses the first line, or none in the prefix
	}
	k := len(uses) - 1 // lines before the first used
	end := len(headLines(prefix, k))
	if end > heads[0] {
		// Longer starts are startsOther's: look at its largest head.
		end = bytes.LastIndexByte(prefix[:heads[0]], '\n') + 1
		k = bytes.Count(prefix[:end], []byte{'\n'})
	}
	for head := []byte(nil); k > 0; k = next(k, len(head)) {
		head = headLines(prefix, k)
		if f.Sniff(head) == format.Sure {
			continue
		}
		for i := range Registered {
			g := &Registered[i]
			if g == f || g.New == nil || g.Sniff(head) != format.Sure {
				continue
			}
			if line := changeAt(g, f, headLines(prefix, len(uses))); line > 1 {
				return &ChangeError{Line: line, From: g.Name, To: f.Name}
			}
		}
	}
	return nil
}

// refine moves line, where the sniffer of g (the format before) stops
// being sure of prefix, to where the parsers place the change: later
// over the lines g's parser uses and f's (the format after) does not,
// then back to the first line not blank after the last one g's parser
// uses (f's header, which g passes over or rejects; a line a sniffer
// that allows strays took). Parsers made for the look read the 64
// lines either side.
func refine(g, f *format.Format, prefix []byte, line int) int {
	from := max(1, line-64)
	start := len(headLines(prefix, from-1))
	b := headLines(prefix[start:], line+64-from)
	ug, uf := lineUses(g, b, false), lineUses(f, b, false)
	n := min(len(ug), len(uf))
	i := line - from
	for i < n && ug[i] == useUsed && uf[i] != useUsed {
		i++
	}
	for j := min(i, n); j > 0 && ug[j-1] != useUsed; j-- {
		if ug[j-1] != useBlank {
			i = j - 1
		}
	}
	for i < n && ug[i] == useBlank {
		i++
	}
	return from + i
}

// splitsInTwo looks at an input no format is sure of as two parts, each
// in its own format: a format whose sniffer wants every line to be its
// own (folded stacks, stap, CSV) is sure of neither with the other's
// lines. When a format g is sure of the input's first lines, up to where
// it is no longer sure (sureUntil), and another f is sure of the rest,
// that is a *ChangeError there. The first lines looked at are 4, 2, 1
// and 0.5 KiB of them, then 16 to 1 lines, for a short first part.
func splitsInTwo(prefix []byte) error {
	var tried []int // the head ends looked at
	for h := range splitHeads(prefix) {
		head := prefix[:h]
		if slices.Contains(tried, h) || blankText(head) {
			continue
		}
		tried = append(tried, h)
		for i := range Registered {
			g := &Registered[i]
			if g.Sniff(head) != format.Sure {
				continue
			}
			// The rest may start before: g's sniffer may take the
			// first lines of another format for its own (a perf script
			// event header, a '#' comment, lines among which it allows
			// strays). Looked at: the maxBack lines before, and the
			// lines after a blank one further back (a record's end).
			until := sureUntil(g, prefix, head)
			var starts []int // where the lines up to until start
			for at := 0; at < len(prefix) && len(starts) < until; {
				starts = append(starts, at)
				i := bytes.IndexByte(prefix[at:], '\n')
				if i < 0 {
					break
				}
				at += i + 1
			}
			tries := 0
			for line := len(starts); line > bytes.Count(head, []byte{'\n'}) && tries < maxTries; line-- {
				at := starts[line-1]
				if until-line > maxBack && !blank(prefix[starts[line-2]:at-1]) {
					continue
				}
				tries++
				rest := prefix[at:]
				if blankText(rest) {
					continue
				}
				for j := range Registered {
					if f := &Registered[j]; f != g && f.Sniff(rest) == format.Sure {
						return &ChangeError{Line: refine(g, f, prefix, line), From: g.Name, To: f.Name}
					}
				}
			}
		}
	}
	return nil
}

// maxBack is how many lines before the one where the first part's
// sniffer stops being sure splitsInTwo looks at each as the second
// part's start; further back, only lines after a blank one, maxTries
// lines in all.
const (
	maxBack  = 16
	maxTries = 64
)

// splitHeads yields where the heads splitsInTwo looks at end.
func splitHeads(prefix []byte) iter.Seq[int] {
	return func(yield func(int) bool) {
		for _, size := range heads {
			if size < len(prefix) {
				if end := bytes.LastIndexByte(prefix[:size], '\n') + 1; end > 0 && !yield(end) {
					return
				}
			}
		}
		for n := 16; n > 0; n-- {
			if end := len(headLines(prefix, n)); end < len(prefix) && end < heads[len(heads)-1] && !yield(end) {
				return
			}
		}
	}
}

// blankText reports whether b holds nothing but white space.
func blankText(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }
