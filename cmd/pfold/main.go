package main

import (
	"fmt"
	"github.com/pfold/pfold/ingest/format"
	"io"
	"runtime"
	"sync/atomic"

	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/ingest/perfdata"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

func main() { cmdutil.Main(newApp()) }

func newApp() *cli.App {
	return &cli.App{
		Name:      "pfold",
		Usage:     "fold perf.data or perf script output into flame-graph stacks",
		UsageText: "pfold [options] [FILE...]   (no FILE or - reads stdin; gzip/bzip2/zstd/lz4 detected)",
		Description: "Reads perf.data recordings (file or pipe mode: symbols named as perf script names them),\n" +
			"perf script text (any layout), perf report -g folded output, Ruby stackprof\n" +
			"dumps or folded stacks (see --format) and writes folded stacks \"comm;root;...;leaf COUNT\",\n" +
			"sorted, to stdout or -o FILE. The perf script options are stackcollapse-perf.pl's.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "pid", Usage: "include the PID with process names (comm-PID)", DefaultText: "false"},
			&cli.BoolFlag{Name: "tid", Usage: "include the PID and TID with process names (comm-PID/TID)", DefaultText: "false"},
			&cli.BoolFlag{Name: "kernel", Usage: "annotate kernel functions with _[k]", DefaultText: "false"},
			&cli.BoolFlag{Name: "jit", Usage: "annotate JIT functions with _[j]", DefaultText: "false"},
			&cli.BoolFlag{Name: "all", Usage: "all annotations (--kernel --jit)", DefaultText: "false"},
			&cli.BoolFlag{Name: "samples", Usage: "count each sample once; by default a sample weighs its period when perf script prints one (as stackcollapse-perf.pl does: cpu-clock folds to nanoseconds)", DefaultText: "false"},
			&cli.BoolFlag{Name: "addrs", Usage: "include raw addresses where symbols can't be found", DefaultText: "false"},
			&cli.BoolFlag{Name: "srcline", Usage: "input is perf script -F+srcline: append each frame's source line", DefaultText: "false"},
			&cli.StringFlag{Name: "event-filter", Usage: "fold only samples of `EVENT`", DefaultText: "the first event seen"},
			&cli.StringSliceFlag{Name: "skip-after", Usage: "drop the callers above `FRAME` and the process name (repeatable)"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.GOMAXPROCS(0), DefaultText: "the number of cores", Usage: "parse perf script with `N` workers; the output is the same for any N"},
			&cli.StringFlag{Name: "format", Value: "auto", Usage: "input `FORMAT`: perf-script, perf-report (perf report -g folded), stackprof (Marshal or JSON dump), folded, perf-data (perf.data, file or pipe mode), dtrace (DTrace stack aggregations, as stackcollapse.pl), or auto (detected per input)"},
			&cli.StringFlag{Name: "symfs", Usage: "perf.data: look for binaries and debug files under `DIR`, as perf script --symfs"},
			&cli.StringFlag{Name: "kallsyms", Usage: "perf.data: kernel symbols from `FILE`, as perf script --kallsyms", DefaultText: "/proc/kallsyms when the recording's kernel is the running one"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.StatsFlag,
		}, append(cmdutil.AggregateFlags(), formatFlags()...)...),
		Metadata: map[string]any{"examples": "perf record -g -- ./app && pfold perf.data | pflame > cpu.svg\n" +
			"perf record -g -o - -- ./app | pfold > out.folded\n" +
			"perf script | pfold > out.folded\n" +
			"pfold --pid dump.txt.zst | flamegraph.pl > out.svg\n" +
			"pfold --mem 64MiB --stats huge.txt.gz -o out.folded"},
		Action: run,
	}
}

// chunkSize is how much input one worker takes at a time.
const chunkSize = 4 << 20

func run(c *cli.Context) error {
	if c.NArg() == 0 && cmdutil.IsTerminal(c.App.Reader) {
		return cmdutil.UsageErrorf("no input: give a file, or pipe perf script into pfold")
	}
	format, err := ingest.ParseFormat(c.String("format"))
	if err != nil {
		return cmdutil.UsageErrorf("--format: %v", err)
	}
	aggOpt, err := cmdutil.AggregatorOptions(c)
	if err != nil {
		return err
	}
	opt := ingest.PerfScriptOptions{
		PID: c.Bool("pid"), TID: c.Bool("tid"),
		Kernel: c.Bool("kernel") || c.Bool("all"), JIT: c.Bool("jit") || c.Bool("all"),
		Addrs: c.Bool("addrs"), Srcline: c.Bool("srcline"), Samples: c.Bool("samples"),
		EventFilter: c.String("event-filter"), SkipAfter: c.StringSlice("skip-after"),
		Warn: cmdutil.Notes(c), NoPIDNoted: new(atomic.Bool), Folded: new(atomic.Int64),
	}
	cmdutil.ProgressStacks(c, opt.Folded)
	jobs := c.Int("jobs")
	if jobs < 1 {
		return cmdutil.UsageErrorf("--jobs must be at least 1")
	}
	diag := cmdutil.NewDiag(c)
	parallel := format == ingest.FormatPerfScript
	if format == ingest.FormatAuto {
		if parallel, c.App.Reader, err = ingest.AllPerfScript(c.Args().Slice(), c.App.Reader); err != nil {
			return err
		}
		if parallel && c.Bool("stats") {
			cmdutil.Statsf(c, "format %s (detected)", ingest.FormatPerfScript)
		}
	}
	if !parallel {
		jobs = 1
	}
	// --mem is shared by the workers' frame caches and sample batches (a
	// quarter each at most) and tables; the chunk buffers are the fixed
	// overhead on top.
	opt.FrameCache = min(32<<20, aggOpt.Mem/int64(4*jobs))
	if parallel {
		opt.Batch = opt.FrameCache
	}
	aggOpt.Mem = max(1, (aggOpt.Mem-int64(jobs)*(opt.FrameCache+opt.Batch))/int64(jobs))
	aggs := make([]*stream.Aggregator, jobs)
	for i := range aggs {
		aggs[i] = stream.NewAggregator(aggOpt)
		defer aggs[i].Close()
	}

	var ps ingest.PerfScriptStats
	var bytesRead func() int64
	if parallel {
		in := cmdutil.Chunker(c, chunkSize, 2*jobs+2)
		defer in.Close()
		bytesRead = in.BytesRead
		if ps, err = ingest.FoldPerfScriptChunks(in, opt, diag, aggs); err != nil {
			return err
		}
	} else {
		in := cmdutil.Input(c)
		defer in.Close()
		bytesRead = in.BytesRead
		perf := ingest.NewPerfScript(opt, aggs[0].Add, diag)
		inputs := &ingest.Inputs{Format: format, PerfScript: perf, Emit: aggs[0].Add, Diag: diag,
			Options: c,
			PerfData: perfdata.Options{
				Symbols: perfdata.SymbolOptions{Symfs: c.String("symfs"), Kallsyms: c.String("kallsyms")},
				TmpDir:  c.String("tmpdir"),
				Warn:    func(s string) { fmt.Fprintln(cmdutil.Notes(c), s) },
			}}
		if c.Bool("stats") {
			inputs.Detected = func(name string, f ingest.Format) {
				if f == "" {
					f = "no data"
				}
				cmdutil.Statsf(c, "%s: format %s (detected)", name, f)
			}
		}
		if err := inputs.Fold(in); err != nil {
			return err
		}
		ps = perf.Stats()
	}
	diag.Flush()
	if err := ingest.CheckEventFilter(c.String("event-filter"), ps); err != nil {
		return err
	}

	if err := cmdutil.WriteOutput(c, func(w io.Writer) error { return stream.WriteMerged(w, aggs) }); err != nil {
		return err
	}
	if c.Bool("stats") {
		// Added counts every stack handed to the tables, whatever the
		// format: samples for perf script, lines for perf report and
		// folded input, raw records for stackprof.
		var added int64
		for _, a := range aggs {
			added += a.Stats().Added
		}
		if parallel {
			added = ps.Samples // batched: the tables see distinct samples
		}
		st := aggs[0].Stats()
		cmdutil.Statsf(c, "%d bytes read, %d samples folded (%d of other events, %d skipped), %d lines malformed, %d unique stacks, %d runs spilled, total %s",
			bytesRead(), added, ps.Filtered, ps.Skipped, diag.Count(), st.Unique, st.Runs, st.Total)
	}

	return nil
}

// formatFlags are the options of the formats registered in ingest, named
// as the scripts they replace name them.
func formatFlags() []cli.Flag {
	var flags []cli.Flag
	seen := map[string]bool{}
	for _, f := range ingest.Registered {
		for _, fl := range f.Flags {
			if seen[fl.Name] {
				continue
			}
			seen[fl.Name] = true
			switch fl.Kind {
			case format.Bool:
				flags = append(flags, &cli.BoolFlag{Name: fl.Name, Aliases: fl.Aliases, Usage: fl.Usage, DefaultText: fl.Default})
			case format.Int:
				flags = append(flags, &cli.IntFlag{Name: fl.Name, Aliases: fl.Aliases, Usage: fl.Usage, DefaultText: fl.Default})
			case format.StringSlice:
				flags = append(flags, &cli.StringSliceFlag{Name: fl.Name, Aliases: fl.Aliases, Usage: fl.Usage})
			default:
				flags = append(flags, &cli.StringFlag{Name: fl.Name, Aliases: fl.Aliases, Usage: fl.Usage, DefaultText: fl.Default})
			}
		}
	}
	return flags
}
