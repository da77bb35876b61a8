package main

import (
	"io"

	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/report"
	"github.com/urfave/cli/v2"
)

func main() { command().Main() }

func command() *cmdutil.Command {
	return &cmdutil.Command{
		Name:  "ptop",
		Usage: "print the frames of folded stacks by self and total samples (stackprof --text)",
		Description: "Reads folded stacks \"root;...;leaf COUNT\" and writes a table to stdout or -o FILE:\n" +
			"per frame name, TOTAL (samples whose stack holds it, once per stack) and SAMPLES\n" +
			"(samples where it is the leaf), each with its share of all samples.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Usage: "print at most `N` frames", DefaultText: "0: all"},
			&cli.BoolFlag{Name: "sort-total", Usage: "sort by TOTAL instead of SAMPLES", DefaultText: "false"},
			&cli.StringFlag{Name: "countname", Usage: "what the counts are, for the header and the self column, then SELF (`NAME`: nanoseconds for pfold of a cpu-clock recording, which folds periods)", DefaultText: "Samples"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.MemLimitFlag,
			&cli.BoolFlag{Name: "stats", Usage: "print counts of bytes, stacks and frames to stderr", DefaultText: "false"},
		},
		Examples: []string{
			"pfold profile.dump | ptop --limit 20",
			"perf script | pfold | ptop --sort-total | less",
			"ptop --limit 10 stacks.folded.gz",
		},
		Reads:         "folded stacks",
		DescribeInput: ingest.Describe,
		RefuseInput:   ingest.RefuseFolded,
		Run:           run,
	}
}

func run(c *cli.Context) error {
	if c.Int("limit") < 0 {
		return cmdutil.UsageErrorf("--limit %d: must be 0 or more", c.Int("limit"))
	}
	mem, err := cmdutil.AggregatorOptions(c)
	if err != nil {
		return err
	}
	p := report.NewBounded(report.Options{Mem: mem.Mem, TmpDir: mem.TmpDir, NoEdges: true})
	defer p.Close()
	in, err := cmdutil.ReadFolded(c, p.Add)
	if err != nil || in.Empty() {
		return err
	}

	opt := report.TopOptions{SortTotal: c.Bool("sort-total"), Limit: c.Int("limit"), CountName: c.String("countname")}
	if err := cmdutil.WriteOutput(c, func(w io.Writer) error { return p.WriteTop(w, opt) }); err != nil {
		return err
	}
	if c.Bool("stats") {
		cmdutil.Statsf(c, "%d bytes read, %d stacks, %d lines malformed, %d frames, total %s",
			in.Bytes, p.Stacks, in.Malformed, p.Len(), p.Total)
	}
	return nil
}
