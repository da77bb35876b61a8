package main

import (
	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/report"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
	"io"
)

func main() { cmdutil.Main(newApp()) }

// Input that is not folded stacks is named, with the step it misses.
func init() { stream.DescribeInput = ingest.Describe }

func newApp() *cli.App {
	return &cli.App{
		Name:      "ptop",
		Usage:     "print the frames of folded stacks by self and total samples (stackprof --text)",
		UsageText: "ptop [options] [FILE...]   (no FILE or - reads stdin; gzip/bzip2/zstd/lz4 detected)",
		Description: "Reads folded stacks \"root;...;leaf COUNT\" and writes a table to stdout or -o FILE:\n" +
			"per frame name, TOTAL (samples whose stack holds it, once per stack) and SAMPLES\n" +
			"(samples where it is the leaf), each with its share of all samples.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Usage: "print at most `N` frames", DefaultText: "0: all"},
			&cli.BoolFlag{Name: "sort-total", Usage: "sort by TOTAL instead of SAMPLES", DefaultText: "false"},
			&cli.StringFlag{Name: "countname", Usage: "what the counts are, for the header (`NAME`: nanoseconds for pfold of a cpu-clock recording, which folds periods)", DefaultText: "Samples"},
			cmdutil.OutputFlag, cmdutil.StrictFlag,
			&cli.BoolFlag{Name: "stats", Usage: "print counts of bytes, stacks and frames to stderr", DefaultText: "false"},
		},
		Metadata: map[string]any{"examples": "pfold profile.dump | ptop --limit 20\n" +
			"perf script | pfold | ptop --sort-total | less\n" +
			"ptop --limit 10 stacks.folded.gz"},
		Action: run,
	}
}

func run(c *cli.Context) error {
	if c.NArg() == 0 && cmdutil.IsTerminal(c.App.Reader) {
		return cmdutil.UsageErrorf("no input: give a file, or pipe folded stacks into ptop")
	}
	if c.Int("limit") < 0 {
		return cmdutil.UsageErrorf("--limit %d: must be 0 or more", c.Int("limit"))
	}
	p := report.New()
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
			in.Bytes, p.Stacks, in.Malformed, len(p.Frames), p.Total)
	}
	return nil
}
