package ingest

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/perfdata"
	"github.com/pfold/pfold/stream"
)

// FormatAuto asks Inputs to detect the format of each input.
const FormatAuto Format = "auto"

// Inputs folds a stream of inputs in any of pfold's formats into one
// emit function: each input in the chosen Format, or, with FormatAuto,
// in the format Detect finds in its first DetectSize bytes. Inputs of
// different formats may follow each other.
//
// It reads a stream.Reader line by line, so compressed inputs and any
// number of files work as for perf script; a stackprof dump, one Ruby
// value, is gathered whole before it is decoded.
type Inputs struct {
	Format     Format
	PerfScript *PerfScript // folds perf script inputs (its options apply)
	Emit       EmitFunc
	Diag       *stream.Diag
	// Detected, when set, is told the format found for each input
	// (with FormatAuto only).
	Detected func(name string, f Format)
	// PerfData says where perf.data inputs find their symbols.
	PerfData perfdata.Options
	// Options gives the registered formats their flags' values (pfold
	// passes its *cli.Context); nil means every default.
	Options format.Options

	report   *PerfReport
	stats    InputsStats
	cur      Format // format of the input being read; "" while detecting
	name     string
	pending  []pendingLine // lines read while detecting
	pendLen  int
	dump     []byte // the stackprof input being gathered
	pdata    format.Parser
	extra    format.Parser // the parser of a registered format
	extraErr error
}

type pendingLine struct {
	n    int
	text []byte
}

// InputsStats counts what Inputs read, per format.
type InputsStats struct {
	Inputs     map[Format]int // inputs read in each format
	PerfReport PerfReportStats
	Stackprof  StackprofStats // summed over the dumps (Encoding and Mode of the last)
	Folded     int64          // folded lines read
	Empty      int            // inputs with no data (auto only)
}

// Stats returns what has been read so far.
func (in *Inputs) Stats() InputsStats { return in.stats }

// Fold reads every line of r and folds it.
func (in *Inputs) Fold(r *stream.Reader) error {
	if in.report == nil {
		in.report = NewPerfReport(in.Emit, in.Diag)
		in.stats.Inputs = map[Format]int{}
		if in.PerfScript == nil {
			in.PerfScript = NewPerfScript(PerfScriptOptions{}, in.Emit, in.Diag)
		}
	}
	for r.Scan() {
		if r.FirstOfInput() {
			if err := in.endInput(); err != nil {
				return err
			}
			in.name, in.cur = r.Name(), in.Format
			if in.cur != FormatAuto {
				in.begin()
			} else {
				in.cur = ""
			}
		}
		if in.cur == "" {
			in.pending = append(in.pending, pendingLine{r.Line(), append([]byte(nil), r.Bytes()...)})
			in.pendLen += len(r.Bytes()) + 1
			if in.pendLen < DetectSize {
				continue
			}
			if err := in.detect(); err != nil {
				return err
			}
			continue
		}
		if err := in.line(r.Line(), r.Bytes()); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	return in.endInput()
}

// detect names the format of the pending lines and folds them.
func (in *Inputs) detect() error {
	var prefix []byte
	for _, l := range in.pending {
		prefix = append(append(prefix, l.text...), '\n')
	}
	f, err := Detect(prefix)
	pending := in.pending
	in.pending, in.pendLen = nil, 0
	if errors.Is(err, ErrNoData) {
		in.stats.Empty++
		in.cur = FormatFolded // blank lines and comments: nothing to fold
		if in.Detected != nil {
			in.Detected(in.name, "")
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w (choose one with --format)", in.name, err)
	}
	in.cur = f
	if in.Detected != nil {
		in.Detected(in.name, f)
	}
	in.begin()
	for _, l := range pending {
		if err := in.line(l.n, l.text); err != nil {
			return err
		}
	}
	return nil
}

func (in *Inputs) begin() {
	in.stats.Inputs[in.cur]++
	switch in.cur {
	case FormatPerfReport:
		in.report.Reset()
	case FormatStackprof:
		in.dump = in.dump[:0]
	case FormatPerfData:
		in.pdata = perfdata.NewParser(in.PerfData, scriptParser{in.PerfScript})
	default:
		if f := registered(in.cur); f != nil {
			opts := in.Options
			if opts == nil {
				opts = format.MapOptions{}
			}
			in.extra, in.extraErr = f.New(opts, format.EmitFunc(in.Emit), in.Diag)
		}
	}
}

// scriptParser hands the perf script text of a perf.data recording to
// the perf script parser, so that its options apply unchanged.
type scriptParser struct{ p *PerfScript }

func (s scriptParser) Line(name string, n int, line []byte) error {
	return s.p.Line(name, n, line)
}
func (s scriptParser) End() error { return s.p.End() }

func (in *Inputs) line(n int, text []byte) error {
	switch in.cur {
	case FormatPerfScript:
		return in.PerfScript.Line(in.name, n, text)
	case FormatPerfReport:
		err := in.report.Line(in.name, n, text)
		in.stats.PerfReport = in.report.Stats()
		return err
	case FormatStackprof:
		in.dump = append(append(in.dump, text...), '\n')
		return nil
	case FormatPerfData:
		return in.pdata.Line(in.name, n, text)
	}
	if in.extra != nil || in.extraErr != nil {
		if in.extraErr != nil {
			return in.extraErr
		}
		return in.extra.Line(in.name, n, text)
	}
	return in.folded(n, text)
}

func (in *Inputs) folded(n int, text []byte) error {
	if len(bytes.TrimSpace(text)) == 0 {
		return nil
	}
	in.stats.Folded++
	stack, c, err := fold.ParseLine(text)
	if err != nil {
		return in.Diag.Malformed(in.name, n, text, err.Error())
	}
	return in.Emit(stack, c)
}

// endInput finishes the input being read, if any.
func (in *Inputs) endInput() error {
	if in.cur == "" && in.pending != nil {
		if err := in.detect(); err != nil {
			return err
		}
	}
	switch in.cur {
	case FormatPerfScript:
		if err := in.PerfScript.End(); err != nil {
			return err
		}
	case FormatPerfData:
		if err := in.pdata.End(); err != nil {
			return err
		}
	default:
		if in.extra != nil {
			err := in.extra.End()
			in.extra = nil
			if err != nil {
				return err
			}
		}
	case FormatStackprof:
		st, err := FoldStackprof(in.dump, in.Emit)
		if err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
		s := &in.stats.Stackprof
		s.Encoding, s.Mode = st.Encoding, st.Mode
		s.Frames += st.Frames
		s.Samples += st.Samples
		s.Empty += st.Empty
		in.dump = in.dump[:0]
	}
	in.cur = ""
	return nil
}
