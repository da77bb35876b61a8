package main

import (
	"math"
	"strconv"
	"strings"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

func main() { command().Main() }

func command() *cmdutil.Command {
	return &cmdutil.Command{
		Name:  "pmerge",
		Usage: "merge folded-stack files into one, summing identical stacks",
		Description: "Reads folded stacks \"root;...;leaf COUNT\" from every FILE and writes one folded\n" +
			"output, sorted bytewise, each distinct stack once with its counts summed.\n" +
			"Regular files that are already sorted (pfold's and pmerge's output; checked in a\n" +
			"first pass) are merged as streams in constant memory per file; otherwise the\n" +
			"stacks are aggregated within --mem, spilling sorted runs to --tmpdir.",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "weight", Usage: "`FILE=W`: multiply the counts of input FILE by W, e.g. 0.5 (repeatable)"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.StatsFlag,
		}, cmdutil.AggregateFlags()...),
		Examples: []string{
			"pmerge host*.folded.gz | flamegraph.pl > fleet.svg",
			"scripts/split-perf-script -n 4 perf.txt | xargs -P4 -I{} sh -c 'pfold {} > {}.folded' && pmerge shard-*.folded > all.folded",
			"pmerge --weight run2.folded=0.5 run1.folded run2.folded -o avg.folded",
		},
		Reads:         "folded stacks",
		DescribeInput: ingest.Describe,
		RefuseInput:   ingest.RefuseFolded,
		Run:           run,
	}
}

func run(c *cli.Context) error {
	names := c.Args().Slice()
	if len(names) == 0 {
		names = []string{"-"}
	}
	weights, err := parseWeights(c.StringSlice("weight"), names)
	if err != nil {
		return err
	}
	var st MergeStats
	diag, err := cmdutil.Refold(c, func(agg stream.Options, diag *stream.Diag, emit func([]byte, fold.Count) error) error {
		var err error
		st, err = MergeFiles(names, MergeOptions{Agg: agg, Diag: diag, Weights: weights, Stdin: c.App.Reader,
			Progress: func(phase string) *stream.Progress { return cmdutil.ProgressPass(c, phase, names) }}, emit)
		return err
	})
	if err != nil {
		return err
	}
	if c.Bool("stats") {
		how := "streamed merge of sorted inputs"
		if !st.Streamed {
			how = "aggregated (" + st.Why + ")"
		}
		cmdutil.Statsf(c, "%d inputs, %s; %d lines, %d stacks read, %d lines malformed, %d unique stacks, %d runs spilled, total in %s, total out %s",
			len(names), how, st.Lines, st.Stacks, diag.Count(), st.Unique, st.Runs, st.In, st.Out)
	}
	return nil
}

// parseWeights reads --weight FILE=W options into one weight per input
// (nil when there are none).
func parseWeights(specs, names []string) ([]float64, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	weights := make([]float64, len(names))
	for i := range weights {
		weights[i] = 1
	}
	for _, spec := range specs {
		i := strings.LastIndexByte(spec, '=')
		if i <= 0 {
			return nil, cmdutil.UsageErrorf("--weight %q: want FILE=W", spec)
		}
		file, ws := spec[:i], spec[i+1:]
		w, err := strconv.ParseFloat(ws, 64)
		if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
			return nil, cmdutil.UsageErrorf("--weight %q: W must be a non-negative number", spec)
		}
		found := false
		for j, n := range names {
			if n == file {
				weights[j], found = w, true
			}
		}
		if !found {
			return nil, cmdutil.UsageErrorf("--weight %q: %s is not one of the inputs", spec, file)
		}
	}
	return weights, nil
}
