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
		Name:  "pdot",
		Usage: "draw the call graph of folded stacks as graphviz dot (stackprof --graphviz)",
		Description: "Reads folded stacks \"root;...;leaf COUNT\" and writes a graphviz digraph to stdout\n" +
			"or -o FILE: a node per frame name with its self and total samples, sized by its\n" +
			"self share, and caller -> callee edges labelled with their samples.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Usage: "keep the `N` frames with the most total samples", DefaultText: "0: all"},
			&cli.Float64Flag{Name: "node-fraction", Usage: "drop frames with less than fraction `F` of all samples", DefaultText: "0: none"},
			&cli.StringFlag{Name: "countname", Usage: "what the counts are, for the legend (`NAME`: nanoseconds for pfold of a cpu-clock recording, which folds periods)", DefaultText: "samples"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.MemFlag, cmdutil.TmpDirFlag,
			&cli.BoolFlag{Name: "stats", Usage: "print counts of bytes, stacks, frames and edges to stderr", DefaultText: "false"},
		},
		Examples: []string{
			"pfold profile.dump | pdot --limit 40 | dot -Tsvg > graph.svg",
			"perf script | pfold | pdot --node-fraction 0.01 -o graph.dot",
			"pdot stacks.folded.gz | dot -Tpng > graph.png",
		},
		Reads:         "folded stacks",
		DescribeInput: ingest.Describe,
		RefuseInput:   ingest.RefuseFolded,
		Run:           run,
	}
}

func run(c *cli.Context) error {
	opt := report.DotOptions{Limit: c.Int("limit"), NodeFraction: c.Float64("node-fraction"), CountName: c.String("countname")}
	if opt.Limit < 0 {
		return cmdutil.UsageErrorf("--limit %d: must be 0 or more", opt.Limit)
	}
	if !(opt.NodeFraction >= 0 && opt.NodeFraction <= 1) {
		return cmdutil.UsageErrorf("--node-fraction %g: must be between 0 and 1", opt.NodeFraction)
	}
	mem, err := cmdutil.AggregatorOptions(c)
	if err != nil {
		return err
	}
	p := report.NewBounded(report.Options{Mem: mem.Mem, TmpDir: mem.TmpDir})
	defer p.Close()
	in, err := cmdutil.ReadFolded(c, p.Add)
	if err != nil || in.Empty() {
		return err
	}

	if err := cmdutil.WriteOutput(c, func(w io.Writer) error { return p.WriteDot(w, opt) }); err != nil {
		return err
	}
	if c.Bool("stats") {
		edges, err := p.EdgeCount()
		if err != nil {
			return err
		}
		cmdutil.Statsf(c, "%d bytes read, %d stacks, %d lines malformed, %d frames, %d call edges, total %s",
			in.Bytes, p.Stacks, in.Malformed, p.Len(), edges, p.Total)
	}
	return nil
}
