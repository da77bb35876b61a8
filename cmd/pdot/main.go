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
		Name:      "pdot",
		Usage:     "draw the call graph of folded stacks as graphviz dot (stackprof --graphviz)",
		UsageText: "pdot [options] [FILE...]   (no FILE or - reads stdin; gzip/bzip2/zstd/lz4 detected)",
		Description: "Reads folded stacks \"root;...;leaf COUNT\" and writes a graphviz digraph to stdout\n" +
			"or -o FILE: a node per frame name with its self and total samples, sized by its\n" +
			"self share, and caller -> callee edges labelled with their samples.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Usage: "keep the `N` frames with the most total samples", DefaultText: "0: all"},
			&cli.Float64Flag{Name: "node-fraction", Usage: "drop frames with less than fraction `F` of all samples", DefaultText: "0: none"},
			&cli.StringFlag{Name: "countname", Usage: "what the counts are, for the legend (`NAME`: nanoseconds for pfold of a cpu-clock recording, which folds periods)", DefaultText: "samples"},
			cmdutil.OutputFlag, cmdutil.StrictFlag,
			&cli.BoolFlag{Name: "stats", Usage: "print counts of bytes, stacks, frames and edges to stderr", DefaultText: "false"},
		},
		Metadata: map[string]any{"examples": "pfold profile.dump | pdot --limit 40 | dot -Tsvg > graph.svg\n" +
			"perf script | pfold | pdot --node-fraction 0.01 -o graph.dot\n" +
			"pdot stacks.folded.gz | dot -Tpng > graph.png"},
		Action: run,
	}
}

func run(c *cli.Context) error {
	if c.NArg() == 0 && cmdutil.IsTerminal(c.App.Reader) {
		return cmdutil.UsageErrorf("no input: give a file, or pipe folded stacks into pdot")
	}
	opt := report.DotOptions{Limit: c.Int("limit"), NodeFraction: c.Float64("node-fraction"), CountName: c.String("countname")}
	if opt.Limit < 0 {
		return cmdutil.UsageErrorf("--limit %d: must be 0 or more", opt.Limit)
	}
	if !(opt.NodeFraction >= 0 && opt.NodeFraction <= 1) {
		return cmdutil.UsageErrorf("--node-fraction %g: must be between 0 and 1", opt.NodeFraction)
	}
	p := report.New()
	in, err := cmdutil.ReadFolded(c, p.Add)
	if err != nil || in.Empty() {
		return err
	}

	if err := cmdutil.WriteOutput(c, func(w io.Writer) error { return p.WriteDot(w, opt) }); err != nil {
		return err
	}
	if c.Bool("stats") {
		cmdutil.Statsf(c, "%d bytes read, %d stacks, %d lines malformed, %d frames, %d call edges, total %s",
			in.Bytes, p.Stacks, in.Malformed, len(p.Frames), len(p.Edges()), p.Total)
	}
	return nil
}
