package perfscript

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/flags"
	"github.com/pfold/pfold/stream"
)

// Format is perf script's text, as stackcollapse-perf.pl reads it, with
// its options under their names.
var Format = format.Format{
	Name:        "perf-script",
	Replaces:    "stackcollapse-perf.pl",
	Description: "perf script output",
	Sniff:       Sniff,
	Flags: []format.Flag{
		flags.PID,
		flags.TID,
		{Name: "kernel", Kind: format.Bool, Usage: "perf-script, perf-data: annotate kernel functions with _[k]", Default: "false"},
		{Name: "jit", Kind: format.Bool, Usage: "perf-script, perf-data: annotate JIT functions with _[j]", Default: "false"},
		{Name: "all", Kind: format.Bool, Usage: "perf-script, perf-data: all annotations (--kernel --jit)", Default: "false"},
		{Name: "samples", Kind: format.Bool, Usage: "perf-script, perf-data: count each sample once; by default a sample weighs its period when perf script prints one (as stackcollapse-perf.pl does: cpu-clock folds to nanoseconds)", Default: "false"},
		{Name: "addrs", Kind: format.Bool, Usage: "perf-script, perf-data: include raw addresses where symbols can't be found", Default: "false"},
		{Name: "srcline", Kind: format.Bool, Usage: "perf-script: input is perf script -F+srcline: append each frame's source line", Default: "false"},
		{Name: "inline", Kind: format.Bool, Usage: "perf-script, perf-data: un-inline using addr2line: each frame becomes the functions inlined at its address (binutils' addr2line and nm, on the modules the frames name)", Default: "false"},
		{Name: "context", Kind: format.Bool, Usage: "perf-script, perf-data: with --inline, append each function's source file:line", Default: "false"},
		{Name: "event-filter", Kind: format.String, Usage: "perf-script, perf-data: fold only samples of `EVENT`", Default: "the first event seen"},
		{Name: "skip-after", Kind: format.StringSlice, Usage: "perf-script, perf-data: drop the callers above `FRAME` and the process name (repeatable)"},
		{Name: "range", Kind: format.String, Usage: "perf-script, perf-data: fold only the samples from `MIN,MAX` seconds after the first sample, both included, either left out for an open end (10,20; 0,0.5; 60,), as range-perf.pl MIN MAX"},
		{Name: "timeraw", Kind: format.Bool, Usage: "perf-script, perf-data: --range in perf's own timestamps (seconds since boot), as range-perf.pl --timeraw", Default: "false"},
		{Name: "timezerosecs", Kind: format.Bool, Usage: "perf-script, perf-data: --range counted from the whole second the first sample falls in, as range-perf.pl --timezerosecs", Default: "false"},
	},
	Check: func(opts format.Options) error {
		_, err := RangeFrom(opts)
		return err
	},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		if _, err := RangeFrom(opts); err != nil {
			return nil, err
		}
		opt := OptionsFrom(opts)
		return &formatParser{Parser: New(opt, emit, diag), filter: opt.EventFilter}, nil
	},
	FoldChunks: func(ch *stream.Chunker, opts format.Options, diag *stream.Diag, aggs []*stream.Aggregator) (any, error) {
		if _, err := RangeFrom(opts); err != nil {
			return nil, err
		}
		opt := OptionsFrom(opts)
		opt.Batch = opt.FrameCache // samples repeat: sum them before they become stacks
		st, err := FoldChunks(ch, opt, diag, aggs)
		return &result{st: st, filter: opt.EventFilter, warn: opt.Warn}, err
	},
}

// OptionsFrom reads the format's flags, and the run's notes, memory and
// progress counter, into Options.
func OptionsFrom(opts format.Options) Options {
	env := format.EnvOf(opts)
	o := Options{
		PID: opts.Bool("pid"), TID: opts.Bool("tid"),
		Kernel: opts.Bool("kernel") || opts.Bool("all"), JIT: opts.Bool("jit") || opts.Bool("all"),
		Addrs: opts.Bool("addrs"), Srcline: opts.Bool("srcline"), Samples: opts.Bool("samples"),
		Inline: opts.Bool("inline"), Context: opts.Bool("context"),
		EventFilter: opts.String("event-filter"), SkipAfter: opts.StringSlice("skip-after"),
		Warn: env.Notes, Folded: env.Folded, NoPIDNoted: new(atomic.Bool),
	}
	o.Range, _ = RangeFrom(opts) // New and FoldChunks report its error
	if env.Mixed != nil {
		o.Mixed = func(input string, line int, window []byte) error {
			return env.Mixed("perf-script", input, line, window)
		}
	}
	o.Refuse = env.Refuse
	if env.Mem > 0 {
		o.FrameCache = min(defaultFrameCache, env.Mem)
	}
	return o
}

// RangeFrom reads --range, --timeraw and --timezerosecs: nil when no
// range is given.
func RangeFrom(opts format.Options) (*Range, error) {
	s := opts.String("range")
	if s == "" {
		for _, f := range []string{"timeraw", "timezerosecs"} {
			if opts.Bool(f) {
				return nil, fmt.Errorf("--%s is a way of reading --range, and no --range is given", f)
			}
		}
		return nil, nil
	}
	r, err := ParseRange(s)
	if err != nil {
		return nil, err
	}
	r.Raw, r.ZeroSecs = opts.Bool("timeraw"), opts.Bool("timezerosecs")
	if r.Raw && r.ZeroSecs {
		return nil, fmt.Errorf("--timeraw and --timezerosecs are two ways of reading --range: give one")
	}
	return r, nil
}

// formatParser is the Parser behind the format interface: it checks the
// event filter once every input is read, and says what it counted.
type formatParser struct {
	*Parser
	filter string // as the user gave it
}

func (p *formatParser) Finish() error {
	if err := CheckEventFilter(p.filter, p.Counts()); err != nil {
		return err
	}
	if err := CheckRange(p.Counts()); err != nil {
		return err
	}
	return CheckChains(p.opt.Warn, p.Counts())
}
func (p *formatParser) Stats() string { return p.Counts().String() }

// result is what FoldChunks counted, with the same checks.
type result struct {
	st     Stats
	filter string
	warn   io.Writer
}

func (r *result) Finish() error {
	if err := CheckEventFilter(r.filter, r.st); err != nil {
		return err
	}
	if err := CheckRange(r.st); err != nil {
		return err
	}
	return CheckChains(r.warn, r.st)
}
func (r *result) Stats() string { return r.st.String() }

// String says what was folded and what was left out, for --stats:
// "1240 samples folded (event cpu-clock; 679 of other events, 0
// skipped)". The event is named whenever the samples name one, even
// when it is the input's only one: a run over part of the inputs (a
// host of scripts/pfold-hosts) says which it folded.
func (st Stats) String() string {
	event := ""
	if st.Event != "" {
		event = "event " + st.Event + "; "
	}
	ranged := ""
	if st.Ranged {
		ranged = fmt.Sprintf(", %d outside --range", st.Outside)
		if st.span.seen {
			ranged += fmt.Sprintf(" (the samples' times: %s to %s s)", seconds(st.span.lo), seconds(st.span.hi))
		}
		if st.Untimed > 0 {
			ranged += fmt.Sprintf(", %d without a time", st.Untimed)
		}
	}
	return fmt.Sprintf("%d samples folded (%s%d of other events%s, %d skipped)", st.Samples, event, st.Filtered, ranged, st.Skipped)
}

// seconds writes a time of the --stats line to the microsecond, as perf
// script prints them.
func seconds(t float64) string {
	return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(t, 'f', 6, 64), "0"), ".")
}
