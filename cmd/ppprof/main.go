package main

import (
	"fmt"
	"math"

	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/pprof"
	"github.com/urfave/cli/v2"
)

func main() { command().Main() }

func command() *cmdutil.Command {
	return &cmdutil.Command{
		Name:  "ppprof",
		Usage: "convert folded stacks to a gzipped pprof profile (go tool pprof, Pyroscope, Parca)",
		Description: "Reads folded stacks \"root;...;leaf COUNT\" and writes one gzipped pprof profile\n" +
			"(profile.proto) to stdout or -o FILE: one sample per line with its count, one function\n" +
			"and location per distinct frame name. Decimal counts are rounded (see --scale).\n" +
			"The profile is written as the stacks are read; only the distinct frame names are held.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "sample-type", Value: "samples/count", Usage: "`NAME/UNIT` of the sample values, e.g. cpu/nanoseconds or alloc_space/bytes"},
			&cli.StringFlag{Name: "period-type", Usage: "`NAME/UNIT` of the sampling period", DefaultText: "the sample type"},
			&cli.Int64Flag{Name: "period", Usage: "sampling period `N` in units of --period-type (0: unknown)"},
			&cli.Float64Flag{Name: "scale", Value: 1, Usage: "multiply every count by `X` before rounding it to an integer"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.MemLimitFlag,
			&cli.BoolFlag{Name: "stats", Usage: "print counts of bytes, lines, samples, functions and the total to stderr", DefaultText: "false"},
		},
		Examples: []string{
			"perf script | pfold | ppprof -o cpu.pb.gz && go tool pprof -top cpu.pb.gz",
			"ppprof --sample-type cpu/nanoseconds --scale 1000000 ms.folded -o cpu.pb.gz",
			"pmerge host*.folded.gz | ppprof > all.pb.gz && go tool pprof -http=: all.pb.gz",
		},
		Reads:         "folded stacks",
		DescribeInput: ingest.Describe,
		RefuseInput:   ingest.RefuseFolded,
		Run:           run,
	}
}

func run(c *cli.Context) error {
	if o := c.String("output"); (o == "-" || o == "") && cmdutil.IsTerminalWriter(c.App.Writer) {
		return cmdutil.UsageErrorf("the profile is binary: write it with -o FILE or redirect stdout")
	}
	var opt pprof.Options
	var err error
	if opt.SampleType, opt.SampleUnit, err = pprof.ParseValueType(c.String("sample-type")); err != nil {
		return cmdutil.UsageErrorf("--sample-type: %v", err)
	}
	if c.IsSet("period-type") {
		if opt.PeriodType, opt.PeriodUnit, err = pprof.ParseValueType(c.String("period-type")); err != nil {
			return cmdutil.UsageErrorf("--period-type: %v", err)
		}
	}
	if opt.Period = c.Int64("period"); opt.Period < 0 {
		return cmdutil.UsageErrorf("--period %d: the period is not negative", opt.Period)
	}
	if opt.Scale = c.Float64("scale"); !(opt.Scale > 0) || math.IsInf(opt.Scale, 0) {
		return cmdutil.UsageErrorf("--scale %v: the scale is a positive number", c.Float64("scale"))
	}

	if _, err := cmdutil.AggregatorOptions(c); err != nil { // --mem: the runtime's memory limit
		return err
	}

	// The samples are compressed and written as they are read; a failure
	// drops what was written (see cmdutil.Output).
	out, err := cmdutil.Output(c)
	if err != nil {
		return err
	}
	b := pprof.NewWriter(out, opt)
	in, err := cmdutil.ReadFolded(c, b.Add)
	if err != nil || in.Empty() {
		out.Abort()
		return err
	}
	if b.Rounded() {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: pprof values are integers: counts rounded, folded total %v × scale %v written as %d (raise --scale to keep fractions)\n",
			c.App.Name, b.Total(), opt.Scale, b.Written())
	}
	if err := b.Close(); err != nil {
		out.Abort()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if c.Bool("stats") {
		cmdutil.Statsf(c, "%d bytes read, %d lines, %d samples, %d lines malformed, %d functions, total %v (written %d %s)",
			in.Bytes, in.Lines, b.Samples(), in.Malformed, b.Functions(), b.Total(), b.Written(), c.String("sample-type"))
	}
	return nil
}
