package main

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/stream"
	"github.com/pfold/pfold/transform"
	"github.com/urfave/cli/v2"
)

func main() { command().Main() }

func command() *cmdutil.Command {
	var order transformArgs
	return &cmdutil.Command{
		Name:  "pfilter",
		Usage: "filter and rewrite folded stacks, transforms applied in the order given",
		Args:  "[transforms] [FILE...]",
		Description: "Reads folded stacks \"root;...;leaf COUNT\" and writes folded stacks, after the\n" +
			"transforms below, applied in the order they are given on the command line.\n" +
			"RE is a Go regular expression matched against each frame name. When a transform\n" +
			"can make two stacks equal (--from, --to, --drop-frame, --replace, --strip-addrs,\n" +
			"--collapse-recursive, --no-root, --max-depth), the result is aggregated again\n" +
			"(sorted, summed, within --mem) before a --min-count or --top that follows and\n" +
			"at the end; otherwise stacks stream through in input order.",
		Flags: append([]cli.Flag{
			order.value(&cli.StringFlag{Name: "grep", Usage: "keep the stacks where some frame matches `RE`", DefaultText: "none"}),
			order.value(&cli.StringFlag{Name: "grep-v", Usage: "drop the stacks where some frame matches `RE`", DefaultText: "none"}),
			order.value(&cli.StringFlag{Name: "focus", Usage: "keep the stacks passing through a frame matching `RE` (as --grep)", DefaultText: "none"}),
			order.value(&cli.StringFlag{Name: "from", Aliases: []string{"skip-after"}, Usage: "drop the frames rootward of the first frame matching `RE`", DefaultText: "none"}),
			order.value(&cli.StringFlag{Name: "to", Usage: "drop the frames leafward of the last frame matching `RE`", DefaultText: "none"}),
			order.value(&cli.StringFlag{Name: "drop-frame", Usage: "remove the frames matching `RE` (a stack left empty is dropped)", DefaultText: "none"}),
			order.value(&cli.StringFlag{Name: "replace", Usage: "sed substitution `s/RE/REPL/[gi]` on each frame name; \\1 and & in REPL (repeatable)", DefaultText: "none"}),
			order.bool(&cli.BoolFlag{Name: "strip-addrs", Usage: "write hex addresses (0x7f05aabb2bc9) as 0x..., as difffolded.pl -s", DefaultText: "false"}),
			order.bool(&cli.BoolFlag{Name: "collapse-recursive", Usage: "merge identical adjacent frames into one (direct recursion), as stackcollapse-recursive.pl", DefaultText: "false"}),
			order.bool(&cli.BoolFlag{Name: "no-root", Usage: "drop the root frame (pfold's process name); one-frame stacks are dropped", DefaultText: "false"}),
			order.value(&cli.StringFlag{Name: "max-depth", Usage: "keep the `N` rootmost frames of each stack", DefaultText: "none"}),
			order.value(&cli.StringFlag{Name: "min-count", Usage: "keep the stacks whose count is at least `N`", DefaultText: "none"}),
			order.value(&cli.StringFlag{Name: "top", Usage: "keep the `N` heaviest stacks", DefaultText: "none"}),
			&cli.BoolFlag{Name: "no-merge", Usage: "never aggregate: write each line as it comes (--top keeps the heaviest lines)", DefaultText: "false"},
			cmdutil.OutputFlag, cmdutil.StrictFlag,
			&cli.BoolFlag{Name: "stats", Usage: "print counts of stacks in and out, and what each transform dropped, to stderr", DefaultText: "false"},
		}, cmdutil.AggregateFlags()...),
		Examples: []string{
			"pfold perf.txt | pfilter --no-root --grep-v '^cpu_idle' | flamegraph.pl > busy.svg",
			"pfilter --from '^main$' --replace 's/\\(.*$//' --drop-frame '^interp_' app.folded",
			"pfilter --strip-addrs --max-depth 12 --top 100 --stats big.folded.zst -o top.folded",
		},
		Reads:         "folded stacks",
		DescribeInput: ingest.Describe,
		RefuseInput:   ingest.RefuseFolded,
		Run:           func(c *cli.Context) error { return run(c, order.list) },
	}
}

func run(c *cli.Context, args []transformArg) error {
	ts, err := transforms(args)
	if err != nil {
		return err
	}
	var in *stream.Reader
	var st transform.FilterStats
	diag, err := cmdutil.Refold(c, func(agg stream.Options, diag *stream.Diag, emit func([]byte, fold.Count) error) error {
		in = cmdutil.Input(c)
		defer in.Close()
		var err error
		st, err = transform.Filter(stream.NewFoldedReader(in, diag), ts, transform.FilterOptions{Agg: agg, NoMerge: c.Bool("no-merge"), Names: c.Args().Slice(),
			Progress: func(phase string) *stream.Progress { return cmdutil.ProgressPass(c, phase, c.Args().Slice()) }}, emit)
		return err
	})
	if err != nil {
		return err
	}
	if c.Bool("stats") {
		cmdutil.Statsf(c, "%d bytes read, %d stacks in (total %s), %d lines malformed, %d stacks out (total %s), %d aggregations, %d runs spilled",
			in.BytesRead(), st.InStacks, st.In, diag.Count(), st.OutStacks, st.Out, st.Aggregations, st.Runs)
		for _, s := range st.Stages {
			if s.Stacks > 0 {
				cmdutil.Statsf(c, "%s dropped %d stacks (total %s)", s.Name, s.Stacks, s.Count)
			}
		}
	}
	return nil
}

// transforms builds the transforms of the recorded options, in order.
func transforms(args []transformArg) ([]transform.Transform, error) {
	var ts []transform.Transform
	for _, a := range args {
		t, err := newTransform(a.name, a.value)
		if err != nil {
			return nil, cmdutil.UsageErrorf("--%s %s", a.name, err)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func newTransform(name, value string) (transform.Transform, error) {
	re := func() (*regexp.Regexp, error) {
		if value == "" {
			return nil, fmt.Errorf("needs a regular expression")
		}
		return regexp.Compile(value)
	}
	positive := func() (int, error) {
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%q: want a whole number ≥ 1", value)
		}
		return n, nil
	}
	var mk func(*regexp.Regexp) transform.Transform
	switch name {
	case "grep":
		mk = transform.Grep
	case "grep-v":
		mk = transform.GrepV
	case "focus":
		mk = transform.Focus
	case "from", "skip-after":
		mk = transform.From
	case "to":
		mk = transform.To
	case "drop-frame":
		mk = transform.DropFrame
	case "replace":
		return transform.Replace(value)
	case "strip-addrs":
		return transform.StripAddrs(), nil
	case "collapse-recursive":
		return transform.CollapseRecursive(), nil
	case "no-root":
		return transform.NoRoot(), nil
	case "max-depth":
		n, err := positive()
		return transform.MaxDepth(n), err
	case "top":
		n, err := positive()
		return transform.TopN(n), err
	case "min-count":
		n, err := fold.ParseCount([]byte(value))
		if err != nil {
			return transform.Transform{}, fmt.Errorf("%q: %v", value, err)
		}
		return transform.MinCount(n), nil
	default:
		return transform.Transform{}, fmt.Errorf("unknown transform")
	}
	r, err := re()
	if err != nil {
		return transform.Transform{}, err
	}
	return mk(r), nil
}
