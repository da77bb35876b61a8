package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/pfold/pfold/fold"
)

// Stacks yields stacks in bytewise order, each once, with its count:
// a sorted folded file read in constant memory (SortedInput), or the
// result of an Aggregator (Aggregator.Sorted). Merge and Join combine
// them.
type Stacks interface {
	Next() bool
	Stack() []byte // valid until the next call to Next
	Count() fold.Count
	Err() error
	Close() error
}

// CountFunc converts the count of each input line (scaling it, say)
// before it is summed.
type CountFunc func(fold.Count) fold.Count

// UnsortedError reports a stack that comes before the one above it in an
// input read as sorted.
type UnsortedError struct {
	Name string
	Line int
}

func (e *UnsortedError) Error() string {
	return fmt.Sprintf("%s:%d: stacks are not sorted (this one sorts before the line above)", e.Name, e.Line)
}

// Streamable reports whether name can be read twice, a first time to
// check that it is sorted (CheckSorted) and a second time to stream it:
// a regular file, not standard input or a pipe.
func Streamable(name string) bool {
	if name == "" || name == "-" {
		return false
	}
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// SortCheck is what CheckSorted learned of an input.
type SortCheck struct {
	Sorted bool
	// Total is the sum of the (converted) counts, when Sorted.
	Total fold.Count
	// Line is the first line out of order, when !Sorted.
	Line int
}

// CheckSorted reads the named input and reports whether its stacks are
// in bytewise order (repeated stacks allowed), stopping at the first one
// that is not. Malformed lines are skipped silently: the pass that
// follows reports them. conv, when not nil, converts each count before
// it is added to the total. The bytes and stacks read are counted in
// prog, when not nil.
func CheckSorted(name string, conv CountFunc, prog *Progress) (SortCheck, error) {
	if chk, ok, err := checkSortedMapped(name, conv, prog); ok {
		return chk, err
	}
	return checkSortedRead(name, conv, prog)
}

// checkSortedMapped is CheckSorted of an uncompressed regular file,
// mapped instead of read (mapLines): the check then looks at each byte
// once, with no copy into a buffer, and keeps the stack above as a slice
// of the mapping. ok is false when the file cannot be mapped.
func checkSortedMapped(name string, conv CountFunc, prog *Progress) (chk SortCheck, ok bool, err error) {
	var prev, held []byte // the stack above, and its copy out of the mapping
	var total fold.Count
	seen := false
	lines := foldedLines(displayName(name), prog, func(stack []byte, n fold.Count, _ string, line int) error {
		if seen && bytes.Compare(stack, prev) < 0 {
			chk = SortCheck{Line: line}
			return errUnsorted
		}
		seen, prev = true, stack
		if conv != nil {
			n = conv(n)
		}
		var err error
		if total, err = total.Add(n); err != nil {
			return fmt.Errorf("%s: total count at stack %.80q: %w", displayName(name), stack, err)
		}
		return nil
	})
	ok, err = mapLines(name, func(data []byte) (bool, error) {
		done, err := lines(data)
		// The stack above outlives the mapping.
		held = append(held[:0], prev...)
		prev = held
		return done, err
	})
	switch {
	case !ok:
		return SortCheck{}, false, nil
	case err == errUnsorted:
		return chk, true, nil
	case err != nil:
		return SortCheck{}, true, err
	}
	return SortCheck{Sorted: true, Total: total}, true, nil
}

// errUnsorted stops checkSortedMapped at the first stack out of order.
var errUnsorted = errors.New("not sorted")

// mapLines calls fn with the lines of the named file, whole lines at a
// time, mapping the file a window at a time instead of reading it: no
// copy of its bytes. fn must not keep data, which is unmapped after it
// returns; done stops the reading. ok is false, and fn not called, when
// the file cannot be mapped: it is standard input, not a regular file, or
// compressed.
func mapLines(name string, fn func(data []byte) (done bool, err error)) (ok bool, err error) {
	if name == "" || name == "-" {
		return false, nil
	}
	rc, err := openFrom(name, nil)
	if err != nil {
		return false, nil // reading reports it
	}
	defer rc.Close()
	in, _ := rc.(*input)
	if in == nil {
		return false, nil
	}
	f := mappable(in)
	if f == nil {
		return false, nil
	}
	st, err := f.Stat()
	if err != nil {
		return false, nil
	}
	page := int64(os.Getpagesize())
	size, pos, window := st.Size(), int64(0), int64(MapWindow)
	for pos < size {
		start := pos &^ (page - 1)
		end := min(start+window, size)
		mem, err := mapFile(f, start, int(end-start))
		if err != nil {
			if pos == 0 {
				return false, nil
			}
			return true, fmt.Errorf("%s: %w", displayName(name), err)
		}
		data := mem[pos-start:]
		var done bool
		err = CatchFault(displayName(name), func() error {
			if end < size { // the last line goes whole into the next window
				cut := bytes.LastIndexByte(data, '\n')
				if cut < 0 {
					data = nil
					return nil
				}
				data = data[:cut+1]
			}
			var err error
			done, err = fn(data)
			return err
		})
		unmapFile(mem)
		switch {
		case err != nil || done:
			return true, err
		case data == nil: // a line longer than the window
			window *= 2
		}
		pos += int64(len(data))
	}
	return true, nil
}

// MapWindow is how much of a file mapLines (and so CheckSorted and
// EachStack) maps at once: the mapped pages count in the process's
// resident memory. Tests shrink it to cross window boundaries.
var MapWindow = 16 << 20

// checkSortedRead is CheckSorted of any input, read.
func checkSortedRead(name string, conv CountFunc, prog *Progress) (SortCheck, error) {
	r := NewReader([]string{name})
	defer r.Close()
	fr := NewFoldedReader(r, NewDiag(io.Discard, false))
	fr.CountInto(prog)
	var prev []byte
	var total fold.Count
	first := true
	for fr.Next() {
		stack := fr.Stack()
		if !first && bytes.Compare(stack, prev) < 0 {
			return SortCheck{Line: fr.Line()}, nil
		}
		first = false
		prev = append(prev[:0], stack...)
		c := fr.Count()
		if conv != nil {
			c = conv(c)
		}
		var err error
		if total, err = total.Add(c); err != nil {
			return SortCheck{}, fmt.Errorf("%s: total count at stack %.80q: %w", displayName(name), stack, err)
		}
	}
	// An input with no folded line is sorted; reading it says what it is.
	var nf *NotFoldedError
	if err := fr.Err(); err != nil && !errors.As(err, &nf) {
		return SortCheck{}, err
	}
	return SortCheck{Sorted: true, Total: total}, nil
}

// SortedInput reads one folded input whose stacks are in bytewise order
// in constant memory, summing the counts of repeated adjacent stacks. A
// stack out of order ends it with an *UnsortedError.
type SortedInput struct {
	r    *Reader
	fr   *FoldedReader
	conv CountFunc

	cur   []byte
	count fold.Count
	total fold.Count // of every line read
	ahead bool       // fr holds the first line of the next stack
	done  bool
	err   error
}

// NewSortedInput returns a SortedInput of the named input, reporting
// malformed lines to diag; conv, when not nil, converts each line's count.
func NewSortedInput(name string, diag *Diag, conv CountFunc) *SortedInput {
	r := NewReader([]string{name})
	return &SortedInput{r: r, fr: NewFoldedReader(r, diag), conv: conv}
}

func (s *SortedInput) lineCount() fold.Count {
	c := s.fr.Count()
	if s.conv != nil {
		c = s.conv(c)
	}
	if t, err := s.total.Add(c); err == nil {
		s.total = t
	} else if s.err == nil {
		s.err = fmt.Errorf("%s:%d: total count at stack %.80q: %w", s.fr.Name(), s.fr.Line(), s.fr.Stack(), err)
	}
	return c
}

// Next advances to the next distinct stack.
func (s *SortedInput) Next() bool {
	if s.done || s.err != nil {
		return false
	}
	if !s.ahead && !s.fr.Next() {
		s.finish()
		return false
	}
	s.ahead = false
	s.cur = append(s.cur[:0], s.fr.Stack()...)
	s.count = s.lineCount()
	for s.err == nil && s.fr.Next() {
		switch bytes.Compare(s.fr.Stack(), s.cur) {
		case 0:
			sum, err := s.count.Add(s.lineCount())
			if err != nil {
				s.err = fmt.Errorf("%s:%d: %w", s.fr.Name(), s.fr.Line(), err)
				return false
			}
			s.count = sum
			continue
		case 1:
			s.ahead = true
			return true
		default:
			s.err = &UnsortedError{Name: s.fr.Name(), Line: s.fr.Line()}
			return false
		}
	}
	if s.err != nil {
		return false
	}
	s.finish()
	return s.err == nil
}

func (s *SortedInput) finish() {
	s.done = true
	if s.err == nil {
		s.err = s.fr.Err()
	}
}

// Stack returns the current stack.
func (s *SortedInput) Stack() []byte { return s.cur }

// Count returns the summed count of the current stack.
func (s *SortedInput) Count() fold.Count { return s.count }

// Err returns the first error met.
func (s *SortedInput) Err() error { return s.err }

// CountInto makes s count the bytes and stacks it reads in p, for a
// progress line over several inputs. Call it before the first Next.
func (s *SortedInput) CountInto(p *Progress) { s.fr.CountInto(p) }

// Lines returns how many lines were read, and how many were well formed.
func (s *SortedInput) Lines() (lines, stacks int64) { return s.fr.Lines, s.fr.Stacks }

// Total returns the sum of the counts of the lines read so far.
func (s *SortedInput) Total() fold.Count { return s.total }

// SortedInputMem estimates the memory of one SortedInput: its line
// buffer and the read buffer below it. A merge of n inputs holds n.
const SortedInputMem = 2*readBufSize + 64<<10

// NewMappedSortedInput is NewSortedInput of a file mapped instead of
// read, with no copy of its bytes, or nil when it cannot be mapped (it is
// standard input, not a regular file, or compressed). Its stacks are
// slices of the mapping: a file that shrinks meanwhile makes them fault,
// so they must be read under CatchFault.
func NewMappedSortedInput(name string, diag *Diag, conv CountFunc) *SortedInput {
	fr := newMappedFoldedReader(name, diag)
	if fr == nil {
		return nil
	}
	return &SortedInput{fr: fr, conv: conv}
}

// Close closes the input.
func (s *SortedInput) Close() error {
	if s.r != nil {
		s.r.Close()
	}
	return s.fr.Close()
}

// errStopped ends an Aggregator.Each whose consumer stopped pulling.
var errStopped = errors.New("stopped")

// Sorted returns the aggregated stacks as a Stacks, for a consumer that
// pulls them alongside other sources (Join, Merge). It takes the place
// of Each; Close must be called, and the Aggregator closed after it.
func (a *Aggregator) Sorted() Stacks {
	p := &pulled{}
	p.seq = func(yield func([]byte, fold.Count) bool) {
		err := a.Each(func(stack []byte, c fold.Count) error {
			if !yield(stack, c) {
				return errStopped
			}
			return nil
		})
		if err != errStopped {
			p.err = err
		}
	}
	return p
}

// pulled adapts a push sequence to Stacks with iter.Pull2: the producer
// runs as a coroutine, suspended while the consumer holds a stack, so
// the stack stays valid until the next call to Next.
type pulled struct {
	seq   iter.Seq2[[]byte, fold.Count]
	next  func() ([]byte, fold.Count, bool)
	stop  func()
	stack []byte
	count fold.Count
	err   error // set by seq when the producer fails
	done  bool
}

func (p *pulled) Next() bool {
	if p.done {
		return false
	}
	if p.next == nil {
		p.next, p.stop = iter.Pull2(p.seq)
	}
	stack, c, ok := p.next()
	if !ok {
		p.done = true
		return false
	}
	p.stack, p.count = stack, c
	return true
}

func (p *pulled) Stack() []byte     { return p.stack }
func (p *pulled) Count() fold.Count { return p.count }
func (p *pulled) Err() error        { return p.err }

func (p *pulled) Close() error {
	if p.stop != nil {
		p.stop()
	}
	return nil
}

// stacksSource adapts Stacks to the merge of aggregate.go.
type stacksSource struct{ s Stacks }

func (s stacksSource) next() error {
	if s.s.Next() {
		return nil
	}
	if err := s.s.Err(); err != nil {
		return err
	}
	return io.EOF
}

func (s stacksSource) cur() ([]byte, fold.Count) { return s.s.Stack(), s.s.Count() }

// Merge calls fn for every distinct stack of srcs in bytewise order,
// summing the counts of a stack found in several of them. It holds one
// stack per source: memory grows with the number of sources, not with
// their size.
func Merge(srcs []Stacks, fn func(stack []byte, c fold.Count) error) error {
	if len(srcs) == 2 {
		return mergeTwo(srcs[0], srcs[1], fn)
	}
	ss := make([]source, len(srcs))
	for i, s := range srcs {
		ss[i] = stacksSource{s}
	}
	return merge(ss, fn)
}

// mergeTwo is Merge of two sources walked side by side by Join: the
// heap and the copy of every stack that the merge of many needs are not.
func mergeTwo(a, b Stacks, fn func(stack []byte, c fold.Count) error) error {
	return Join(a, b, func(stack []byte, ca, cb fold.Count) error {
		c, err := ca.Add(cb)
		if err != nil {
			return fmt.Errorf("stack %.80q…: %w", stack, err)
		}
		return fn(stack, c)
	})
}

// Join walks two Stacks side by side and calls fn once for every stack
// found in either, in bytewise order, with its count in each (zero where
// it is missing): the shape of a differential profile. A read error of
// either ends the walk as soon as it is met.
func Join(a, b Stacks, fn func(stack []byte, ca, cb fold.Count) error) error {
	okA, okB := a.Next(), b.Next()
	for okA || okB {
		if !okA {
			if err := a.Err(); err != nil {
				return err
			}
		}
		if !okB {
			if err := b.Err(); err != nil {
				return err
			}
		}
		var cmp int
		switch {
		case !okA:
			cmp = 1
		case !okB:
			cmp = -1
		default:
			cmp = bytes.Compare(a.Stack(), b.Stack())
		}
		var err error
		switch {
		case cmp < 0:
			err = fn(a.Stack(), a.Count(), fold.Count{})
			okA = a.Next()
		case cmp > 0:
			err = fn(b.Stack(), fold.Count{}, b.Count())
			okB = b.Next()
		default:
			err = fn(a.Stack(), a.Count(), b.Count())
			okA, okB = a.Next(), b.Next()
		}
		if err != nil {
			return err
		}
	}
	if err := a.Err(); err != nil {
		return err
	}
	return b.Err()
}
