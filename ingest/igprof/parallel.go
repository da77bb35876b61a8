package igprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"runtime"

	"github.com/pfold/pfold/stream"
)

// A dump is a single sequence: a node hangs under the node before it and
// refers to functions and counters defined on earlier lines. What can be
// done apart is the reading of the numbers, most of the work: workers
// tokenize batches of lines while the fold applies the tokens in order.
// Only the common line, a node that refers to defined things and carries
// plain values, is tokenized ("C7 FN16+0 V0:(1,1,1)"); every other line,
// and a tokenized line whose references turn out undefined, goes through
// Parser.Parse in order, so results and diagnostics are those of
// FoldSerial.

// igBatchBytes is the size of a batch of lines (a variable for the
// tests).
var igBatchBytes = 256 << 10

type igBatch struct {
	name  string // input name
	line  int    // number of the first line; 0: the line after the batch before
	data  []byte // whole lines, each with its '\n' (the input's last may have none)
	ends  []int  // ends[i]: the end of line i in data, its '\n' (set by tokenize)
	lines []igLine
	vals  []igValue
	done  chan struct{} // tokenized
}

// igLine is a tokenized line; slow lines go through the parser. It is
// small: workers write one per line.
type igLine struct {
	depth, fn uint32
	vals      uint16 // its values: the next vals of igBatch.vals
	slow      bool
}

type igValue struct {
	counter            uint64 // counter id of the dump
	count, total, peak uint64
}

func (b *igBatch) text(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1] + 1
	}
	return b.data[start:b.ends[i]]
}

// tokenize splits the batch into lines and tokenizes them.
func (b *igBatch) tokenize() {
	b.ends = lineEnds(b.ends[:0], b.data)
	b.lines, b.vals = b.lines[:0], b.vals[:0]
	start := 0
	for _, end := range b.ends {
		var ln igLine
		ln, b.vals = tokenizeIgProf(b.data[start:end], b.vals)
		b.lines = append(b.lines, ln)
		start = end + 1
	}
}

// lineEnds appends to ends where each line of data ends: its '\n', or
// the end of data for a last line without one. It reads a word of 8
// bytes at a time: the lines are short.
func lineEnds(ends []int, data []byte) []int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:]) ^ ones*'\n'
		// Exact flags: no borrow between bytes.
		for m := ^((x&^highs + ^uint64(highs)) | x) & highs; m != 0; m &= m - 1 {
			ends = append(ends, i+bits.TrailingZeros64(m)>>3)
		}
	}
	for ; i < len(data); i++ {
		if data[i] == '\n' {
			ends = append(ends, i)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	return ends
}

// tokenizeIgProf reads a hexadecimal node line without definitions or
// leaks, appending its values to vals, or returns a slow line.
func tokenizeIgProf(line []byte, vals []igValue) (igLine, []igValue) {
	slow := igLine{slow: true}
	for len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	if len(line) == 0 || line[0] != 'C' {
		return slow, vals
	}
	depth, s, ok := cutHex(line[1:])
	if !ok || depth == 0 || depth > math.MaxUint32 {
		return slow, vals
	}
	if s, ok = cutPrefix(s, " FN"); !ok {
		return slow, vals
	}
	fn, s, ok := cutHex(s)
	if !ok || fn > math.MaxUint32 || !hasByte(s, '+') {
		return slow, vals
	}
	if off, rest, ok := cutHex(s[1:]); !ok || off > math.MaxInt64 {
		return slow, vals
	} else {
		s = rest
	}
	first := len(vals)
	for len(s) > 0 {
		if len(vals)-first == math.MaxUint16 {
			return slow, vals[:first]
		}
		var v igValue
		if s, ok = cutPrefix(s, " V"); !ok {
			return slow, vals[:first]
		}
		if v.counter, s, ok = cutHex(s); !ok {
			return slow, vals[:first]
		}
		if s, ok = cutPrefix(s, ":("); !ok {
			return slow, vals[:first]
		}
		if v.count, s, ok = cutHex(s); !ok || !hasByte(s, ',') {
			return slow, vals[:first]
		}
		if v.total, s, ok = cutHex(s[1:]); !ok || !hasByte(s, ',') {
			return slow, vals[:first]
		}
		if v.peak, s, ok = cutHex(s[1:]); !ok || !hasByte(s, ')') {
			return slow, vals[:first]
		}
		s = s[1:]
		vals = append(vals, v)
	}
	return igLine{depth: uint32(depth), fn: uint32(fn), vals: uint16(len(vals) - first)}, vals
}

// cutHex is cutUint(s, 16) for at most 16 digits; the parser takes
// longer numbers.
func cutHex(s []byte) (uint64, []byte, bool) {
	var n uint64
	i := 0
	for ; i < len(s); i++ {
		d := hexDigit[s[i]]
		if d > 15 {
			break
		}
		n = n<<4 | uint64(d)
	}
	return n, s[i:], i > 0 && i <= 16
}

// foldTokenized folds a tokenized line as Line would, and reports whether
// it could: the dump must be hexadecimal and the line's references
// defined.
func (f *Folder) foldTokenized(ln *igLine, vals []igValue) (bool, error) {
	p := f.p
	if p.dumps == 0 || p.broken || !p.Header.Hex || int(ln.depth) > len(p.path)+1 {
		return false, nil
	}
	sym, ok := p.fns.get(uint64(ln.fn))
	if !ok {
		return false, nil
	}
	// Parse, if it comes to it, starts with empty values.
	p.Values, p.leaks = p.Values[:0], p.leaks[:0]
	for i := range vals {
		v := &vals[i]
		c, ok := p.ctrIDs.get(v.counter)
		if !ok {
			return false, nil
		}
		p.Values = append(p.Values, Value{Counter: int(c), Count: v.count, Total: v.total, Peak: v.peak})
	}
	p.truncate(int(ln.depth) - 1)
	p.push(sym)
	for i := range p.Values {
		if err := f.value(&p.Values[i]); err != nil {
			return true, err
		}
	}
	return true, nil
}

// Fold folds every line of r into f, reporting malformed lines to
// diag, then finishes f. With more than one CPU, lines are tokenized in
// parallel (see igBatch); the result is FoldSerial's.
func Fold(r *stream.Reader, f *Folder, diag *stream.Diag) error {
	if err := foldLines(r, f, diag); err != nil {
		return err
	}
	return f.Finish()
}

// foldLines is Fold without the Finish, so that several inputs read
// apart (pfold's format, one input at a time) fold into one tree.
func foldLines(r *stream.Reader, f *Folder, diag *stream.Diag) error {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 {
		return foldLinesSerial(r, f, diag)
	}
	batches := 2*workers + 2
	free := make(chan *igBatch, batches)
	for range batches {
		free <- &igBatch{done: make(chan struct{}, 1)}
	}
	work := make(chan *igBatch, batches)
	order := make(chan *igBatch, batches)
	quit := make(chan struct{})

	go func() {
		defer close(order)
		defer close(work)
		var b *igBatch
		send := func() bool {
			work <- b // never blocks: there are as many slots as batches
			order <- b
			b = nil
			select {
			case <-quit:
				return false
			default:
				return true
			}
		}
		// Blocks of lines, not lines: the lines are found by the
		// workers.
		for r.ScanLines() {
			block, line := r.Bytes(), r.Line()
			if b != nil && r.FirstOfInput() && !send() {
				return
			}
			for len(block) > 0 {
				if b == nil {
					select {
					case b = <-free:
					case <-quit:
						return
					}
					b.name, b.line = r.Name(), line
					b.data = b.data[:0]
				}
				// Whole lines, up to about igBatchBytes.
				take := len(block)
				if room := igBatchBytes - len(b.data); take > room {
					if i := bytes.LastIndexByte(block[:room], '\n'); i >= 0 {
						take = i + 1
					} else if i := bytes.IndexByte(block[room:], '\n'); i >= 0 {
						take = room + i + 1
					}
				}
				b.data = append(b.data, block[:take]...)
				block, line = block[take:], 0
				if len(b.data) >= igBatchBytes && !send() {
					return
				}
			}
		}
		if b != nil {
			send()
		}
	}()
	for range workers {
		go func() {
			for b := range work {
				b.tokenize()
				b.done <- struct{}{}
			}
		}()
	}

	var err error
	line := 0 // the next batch's first line, when it goes on from the one before
	for b := range order {
		<-b.done
		if b.line == 0 {
			b.line = line
		}
		line = b.line + len(b.lines)
		if err == nil {
			if err = f.foldBatch(b, diag); err != nil {
				close(quit)
			}
		}
		free <- b
	}
	if err != nil {
		return err
	}
	return r.Err()
}

func (f *Folder) foldBatch(b *igBatch, diag *stream.Diag) error {
	vals := b.vals
	for i := range b.lines {
		ln := &b.lines[i]
		done := false
		var err error
		if !ln.slow {
			done, err = f.foldTokenized(ln, vals[:ln.vals])
			vals = vals[ln.vals:]
		}
		if !done {
			err = f.Line(b.name, b.text(i))
		}
		if err != nil {
			// Only here: errors.As's target escapes, one allocation.
			var se *SyntaxError
			if errors.As(err, &se) {
				err = diag.Malformed(b.name, b.line+i, b.text(i), se.Why)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
