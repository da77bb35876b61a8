package main

import (
	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

func main() { cmdutil.Main(newApp()) }

func newApp() *cli.App {
	return &cli.App{
		Name:      "pfold",
		Usage:     "fold perf script output into flame-graph stacks",
		UsageText: "pfold [options] [FILE...]   (no FILE or - reads stdin; gzip/bzip2/zstd/lz4 detected)",
		Description: "Reads perf script text and writes folded stacks \"comm;root;...;leaf COUNT\",\n" +
			"sorted, to stdout or -o FILE. Options are stackcollapse-perf.pl's.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "pid", Usage: "include the PID with process names (comm-PID)", DefaultText: "false"},
			&cli.BoolFlag{Name: "tid", Usage: "include the PID and TID with process names (comm-PID/TID)", DefaultText: "false"},
			&cli.BoolFlag{Name: "kernel", Usage: "annotate kernel functions with _[k]", DefaultText: "false"},
			&cli.BoolFlag{Name: "jit", Usage: "annotate JIT functions with _[j]", DefaultText: "false"},
			&cli.BoolFlag{Name: "all", Usage: "all annotations (--kernel --jit)", DefaultText: "false"},
			&cli.BoolFlag{Name: "addrs", Usage: "include raw addresses where symbols can't be found", DefaultText: "false"},
			&cli.BoolFlag{Name: "srcline", Usage: "input is perf script -F+srcline: append each frame's source line", DefaultText: "false"},
			&cli.StringFlag{Name: "event-filter", Usage: "fold only samples of `EVENT`", DefaultText: "the first event seen"},
			&cli.StringSliceFlag{Name: "skip-after", Usage: "drop the callers above `FRAME` and the process name (repeatable)"},
			&cli.StringFlag{Name: "format", Value: "auto", Usage: "input `FORMAT`: perf-script, perf-report (perf report -g folded), stackprof (Marshal or JSON dump), folded, or auto (detected per input)"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.StatsFlag,
		}, cmdutil.AggregateFlags()...),
		Metadata: map[string]any{"examples": "perf script | pfold > out.folded\n" +
			"pfold --pid dump.txt.zst | flamegraph.pl > out.svg\n" +
			"pfold --mem 64MiB --stats huge.txt.gz -o out.folded"},
		Action: run,
	}
}

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
		Addrs: c.Bool("addrs"), Srcline: c.Bool("srcline"),
		EventFilter: c.String("event-filter"), SkipAfter: c.StringSlice("skip-after"),
		Warn: c.App.ErrWriter,
	}
	agg := stream.NewAggregator(aggOpt)
	defer agg.Close()
	diag := stream.NewDiag(c.App.ErrWriter, c.Bool("strict"))
	in := cmdutil.Input(c)
	defer in.Close()

	ps := ingest.NewPerfScript(opt, agg.Add, diag)
	inputs := &ingest.Inputs{Format: format, PerfScript: ps, Emit: agg.Add, Diag: diag}
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
	diag.Flush()

	out, err := cmdutil.Output(c)
	if err != nil {
		return err
	}
	if _, err := agg.WriteTo(out); err != nil {
		out.Abort()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if c.Bool("stats") {
		st, ps := agg.Stats(), ps.Stats()
		cmdutil.Statsf(c, "%d bytes read, %d samples folded (%d of other events, %d skipped), %d lines malformed, %d unique stacks, %d runs spilled, total %s",
			in.BytesRead(), ps.Samples, ps.Filtered, ps.Skipped, diag.Count(), st.Unique, st.Runs, st.Total)
	}
	return nil
}
