package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/perfdata"
	"github.com/pfold/pfold/stream"
)

// Folder folds a stream of inputs, each in its own format, into one emit
// function. Each input's format is Format, or, when Format is Auto, the
// one Detect finds in its first format.SniffSize bytes. A format's parser
// is made once a run and reads every input in that format, so options
// that span inputs (the event filter, IgProf's counter) hold for all.
//
//	f := &ingest.Folder{Format: ingest.Auto, Options: opts, Emit: agg.Add, Diag: diag}
//	defer f.Close()
//	err := f.Fold(r)
//	if err == nil { err = f.Finish() }
type Folder struct {
	Format  string         // a registered name, or Auto
	Options format.Options // the formats' flags; nil means every default
	Emit    format.EmitFunc
	// EmitSorted, when set, takes the runs of sorted, distinct stacks of
	// the parsers that make them (format.SortedEmitter) in place of
	// their stacks one by one through Emit (Aggregator.AddSorted).
	EmitSorted func(stream.SortedRun) error
	Diag       *stream.Diag
	// Detected, when set, is told the format of each input (with Auto);
	// format is "" for an input with no data.
	Detected func(name, format string)

	parsers []*used
	byName  map[string]*used
	checks  int  // malformed lines of this input looked at by mixed
	run     run  // lines passed over, with a Passer
	due     bool // a line passed over asks for a look after its Line call
}

// used is a format in use in this run, with its parser and what it
// emitted.
type used struct {
	f      *format.Format
	lines  format.Parser
	doc    format.DocumentParser
	inputs int
	stacks int64
}

// MixedWindow is how much input from a malformed line Mixed sniffs:
// enough for a few records of any format, little enough that the lines
// of the input's own format after a stray line do not fill it.
const MixedWindow = 16 << 10

// maxMixedChecks bounds how many malformed lines of an input are looked
// at as the start of another format.
const maxMixedChecks = 8

// Fold reads every input of r and folds it.
func (fl *Folder) Fold(r *stream.Reader) error {
	for r.NextInput() {
		if err := fl.input(r); err != nil {
			return err
		}
	}
	return r.Err()
}

func init() { stream.DirInput = perfDataDir }

// perfDataDir returns the header file of perf record's directory
// recording (--threads, --kcore), "data", or "" when dir is not one; an
// empty "data" is perf record's failure (perf script: "zero-sized
// data"), an error.
func perfDataDir(dir string) (string, error) {
	name := filepath.Join(dir, "data")
	f, err := os.Open(name)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	head := make([]byte, 8)
	if n, err := io.ReadFull(f, head); n == 0 && err == io.EOF {
		return "", fmt.Errorf("%s: a perf record directory whose data file is empty: perf record wrote nothing (it failed, or was killed as it began)", dir)
	} else if err != nil || !perfdata.IsPerfData(head) {
		return "", nil
	}
	return name, nil
}

func (fl *Folder) input(r *stream.Reader) error {
	name := r.Name()
	fl.checks = 0
	prefix := r.Peek(format.SniffSize)
	if err := r.Err(); err != nil {
		return err
	}
	var f *format.Format
	var err error
	if fl.Format == Auto || fl.Format == "" {
		f, err = Detect(prefix)
		if errors.Is(err, ErrNoData) {
			if fl.Detected != nil {
				fl.Detected(name, "")
			}
			_, err = io.Copy(io.Discard, r.Rest()) // blank lines and comments
			return err
		}
		var change *ChangeError
		if errors.As(err, &change) {
			return fmt.Errorf("%s:%w", name, err)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if fl.Detected != nil {
			fl.Detected(name, f.Name)
		}
	} else if f, err = Lookup(fl.Format); err != nil {
		return err
	}
	u, err := fl.parser(f)
	if err != nil {
		return err
	}
	u.inputs++
	if u.doc != nil {
		return fl.document(r, u, name)
	}
	if !fl.auto() {
		if err := Refuse(f)(name, prefix); err != nil {
			return err
		}
	}
	if p, ok := u.lines.(format.Passer); ok && fl.auto() {
		return fl.passing(r, u, f, p)
	}
	for r.ScanInput() {
		before := fl.Diag.Count()
		err := u.lines.Line(name, r.Line(), r.Bytes())
		if fl.Diag.Count() != before {
			if mixed := fl.mixed(r, f); mixed != nil {
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
	return u.lines.End()
}

// Refuse returns format.Env's Refuse for format f, chosen by the user:
// an input that is binary and not in f (binaryInput) is an error, since
// f's parser would read it as lines of noise.
func Refuse(f *format.Format) func(input string, prefix []byte) error {
	return func(input string, prefix []byte) error {
		if f.NewDocument != nil {
			return nil // reads bytes, and says itself what it cannot read
		}
		if what := binaryInput(prefix, f); what != "" {
			return fmt.Errorf("%s: --format %s reads text, and this is %s: leave --format out to detect it", input, f.Name, what)
		}
		return nil
	}
}

// binaryInput says what an input that is binary is, when it is not in
// format f: a file with magic bytes (ELF, an image, an archive), or one
// another format is sure of and that is not text (perf.data, pprof's
// protobuf); "" otherwise.
func binaryInput(prefix []byte, f *format.Format) string {
	if what, _ := magic(prefix); what != "" {
		return what
	}
	if !binaryData(prefix) {
		return ""
	}
	if g, err := Detect(prefix); err == nil && g != f {
		return g.Describe()
	}
	return ""
}

// document hands one input whole to a document parser: the file itself
// when it is plain (formats that seek need it), else its bytes.
func (fl *Folder) document(r *stream.Reader, u *used, name string) error {
	if file, ok := r.PlainFile(); ok {
		defer file.Close()
		if err := u.doc.Read(name, file); err != nil {
			return err
		}
		r.Skip()
		return nil
	}
	rest := r.Rest()
	if err := u.doc.Read(name, rest); err != nil {
		return err
	}
	_, err := io.Copy(io.Discard, rest) // what the parser left unread
	return err
}

// mixed looks at the malformed line r is on, with the lines after it:
// when another format is sure of them, the input changes format there,
// which is an error (each input is read in one format).
func (fl *Folder) mixed(r *stream.Reader, cur *format.Format) error {
	if !fl.auto() {
		return nil // the user chose the format
	}
	if fl.checks++; fl.checks > maxMixedChecks {
		return nil
	}
	n := r.Line()
	line := append([]byte(nil), r.Bytes()...)
	return Mixed(cur.Name, r.Name(), n, append(append(line, '\n'), r.Peek(MixedWindow)...))
}

// auto reports whether each input's format is detected: otherwise the
// user chose it, and lines that do not fit it are only malformed.
func (fl *Folder) auto() bool { return fl.Format == Auto || fl.Format == "" }

// Mixed returns an error when Detect would take window, a malformed
// line (number n of input) and what follows it, for another format than
// the one called cur (otherSure): the input changes format there. Only
// the first MixedWindow bytes of window are looked at.
func Mixed(cur, input string, n int, window []byte) error {
	if g, _ := otherSure(cur, window); g != nil {
		return fmt.Errorf("%s:%s", input, changeMessage(n, cur, g.Name))
	}
	return nil
}

// otherSure returns the format Detect would take window (its first
// MixedWindow bytes) for, the first registered that is sure of it, when
// that is not the one called cur nor the one cur is Within; else nil,
// and own true when it is. (The lines of a go tool pprof -raw profile
// that a perf script sniffer is sure of too are go's, as in a profile
// appended to itself.)
func otherSure(cur string, window []byte) (other *format.Format, own bool) {
	window = window[:min(len(window), MixedWindow)]
	within := ""
	if f, err := Lookup(cur); err == nil {
		within = f.Within
	}
	for i := range Registered {
		if g := &Registered[i]; g.Sniff(window) == format.Sure {
			if g.Name == cur || g.Name == within {
				return nil, true
			}
			return g, false
		}
	}
	return nil, false
}

// parser returns the run's parser of format f, making it on first use.
func (fl *Folder) parser(f *format.Format) (*used, error) {
	if u := fl.byName[f.Name]; u != nil {
		return u, nil
	}
	if fl.byName == nil {
		fl.byName = map[string]*used{}
	}
	opts := fl.Options
	if opts == nil {
		opts = format.MapOptions{}
	}
	u := &used{f: f}
	emit := func(stack []byte, c fold.Count) error {
		u.stacks++
		return fl.Emit(stack, c)
	}
	var err error
	if f.NewDocument != nil {
		u.doc, err = f.NewDocument(opts, emit, fl.Diag)
	} else {
		u.lines, err = f.New(opts, emit, fl.Diag)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	if s, ok := u.doc.(format.SortedEmitter); ok && fl.EmitSorted != nil {
		s.EmitSorted(func(r stream.SortedRun) error {
			if r != nil {
				u.stacks += r.Added()
			}
			return fl.EmitSorted(r)
		})
	}
	fl.byName[f.Name] = u
	fl.parsers = append(fl.parsers, u)
	return u, nil
}

// Finish runs each parser's end-of-run check and flush (format.Finisher),
// in the order the formats were first met.
func (fl *Folder) Finish() error {
	for _, u := range fl.parsers {
		if fin, ok := u.parser().(format.Finisher); ok {
			if err := fin.Finish(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close releases what the parsers hold (temporary files).
func (fl *Folder) Close() error {
	var first error
	for _, u := range fl.parsers {
		if c, ok := u.parser().(io.Closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

func (u *used) parser() any {
	if u.doc != nil {
		return u.doc
	}
	return u.lines
}

// Formats returns the formats of the inputs read so far, in order of
// first use.
func (fl *Folder) Formats() []*format.Format {
	var out []*format.Format
	for _, u := range fl.parsers {
		out = append(out, u.f)
	}
	return out
}

// UnusedFlags says of each format flag that isSet reports given and that
// none of the formats used has that it did nothing, and whose it is: an
// option of another format than the inputs' does nothing, which the user
// should be told (pfold --range on a .cpuprofile folds all of it).
func UnusedFlags(isSet func(name string) bool, used []*format.Format) []string {
	if len(used) == 0 {
		return nil
	}
	has := map[string]bool{}
	for _, f := range used {
		for _, fl := range f.Flags {
			has[fl.Name] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range Registered {
		for _, fl := range f.Flags {
			if has[fl.Name] || seen[fl.Name] || !isSet(fl.Name) {
				continue
			}
			seen[fl.Name] = true
			var of []string
			for _, g := range Registered {
				for _, gl := range g.Flags {
					if gl.Name == fl.Name {
						of = append(of, g.Name)
					}
				}
			}
			what := "it"
			if len(of) > 1 {
				what = "any of them"
				of[len(of)-1] = "and " + of[len(of)-1]
			}
			list := strings.Join(of, ", ")
			if len(of) == 2 {
				list = strings.Join(of, " ")
			}
			out = append(out, fmt.Sprintf("--%s did nothing: it is an option of %s, and no input was in %s", fl.Name, list, what))
		}
	}
	return out
}

// Stats says, per format read, how many inputs and stacks it gave and
// what its parser counted: "perf-script: 2 inputs, 1240 stacks, 1240
// samples folded (event cpu-clock; 0 of other events, 0 skipped)".
func (fl *Folder) Stats() []string {
	var out []string
	for _, u := range fl.parsers {
		s := fmt.Sprintf("%s: %d inputs, %d stacks", u.f.Name, u.inputs, u.stacks)
		if st, ok := u.parser().(format.Stater); ok {
			s += ", " + st.Stats()
		}
		out = append(out, s)
	}
	return out
}

// DetectInputs detects the format of every named input ("-" or "" is stdin)
// from its first bytes, for pfold to choose a parallel path when all are
// in one format. It returns the reader to use for stdin from now on: the
// bytes looked at are not lost. An input it cannot open or detect gives
// a nil format, left for the fold to report.
func DetectInputs(names []string, stdin io.Reader) ([]*format.Format, io.Reader, error) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	formats := make([]*format.Format, len(names))
	for i, name := range names {
		var prefix []byte
		if name == "-" || name == "" { // both stdin, as stream.Open has them
			// Decompress once here and hand on plain bytes: the magic
			// check of the next reader then finds nothing to do.
			in, err := stream.OpenReader(name, stdin)
			if err != nil {
				return nil, stdin, err
			}
			br := bufio.NewReaderSize(in, 1<<20)
			prefix, err = br.Peek(format.SniffSize)
			if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
				return nil, br, err
			}
			stdin = br
		} else {
			in, err := stream.Open(name)
			if err != nil {
				if os.IsNotExist(err) {
					continue // the fold says so
				}
				return nil, stdin, err
			}
			prefix, err = io.ReadAll(io.LimitReader(in, format.SniffSize))
			in.Close()
			if err != nil {
				return nil, stdin, err
			}
		}
		formats[i], _ = Detect(prefix)
	}
	return formats, stdin, nil
}
