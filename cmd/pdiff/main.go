package main

import (
	"fmt"
	"io"
	"math"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

func main() { command().Main() }

func command() *cmdutil.Command {
	return &cmdutil.Command{
		Name:  "pdiff",
		Usage: "compare two folded profiles for a differential flame graph",
		Args:  "BEFORE AFTER",
		Description: "Reads two folded-stack files and writes every stack found in either, sorted,\n" +
			"as \"stack COUNT_BEFORE COUNT_AFTER\" (0 where it is missing), the input of\n" +
			"flamegraph.pl for a differential flame graph, as difffolded.pl and inferno's\n" +
			"diff-folded do. Fractional counts are truncated to integers, as inferno does,\n" +
			"unless --decimals. Sorted regular files are read as streams; other inputs are\n" +
			"aggregated within --mem, half for each side.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "normalize", Aliases: []string{"n"}, Usage: "scale the BEFORE counts to AFTER's total (rounded down)", DefaultText: "false"},
			&cli.BoolFlag{Name: "strip-hex", Aliases: []string{"s"}, Usage: "write hex numbers (addresses) 0x45ef2173 as 0x...", DefaultText: "false"},
			&cli.BoolFlag{Name: "decimals", Usage: "keep fractional counts, as difffolded.pl does, instead of truncating them", DefaultText: "false"},
			cmdutil.OutputFlag, cmdutil.StrictFlag,
			&cli.BoolFlag{Name: "stats", Usage: "print stack counts and totals of both sides to stderr", DefaultText: "false"},
		}, cmdutil.AggregateFlags()...),
		Examples: []string{
			"pdiff before.folded after.folded | flamegraph.pl > diff.svg",
			"pfold perf-new.txt | pdiff -n old.folded - | flamegraph.pl > diff.svg",
			"pdiff after.folded before.folded | flamegraph.pl --negate > diff-before.svg",
		},
		DescribeInput: ingest.Describe,
		RefuseInput:   ingest.RefuseFolded,
		Run:           run,
	}
}

func run(c *cli.Context) error {
	if c.NArg() != 2 {
		return cmdutil.UsageErrorf("want two inputs, BEFORE and AFTER; got %d", c.NArg())
	}
	before, after := c.Args().Get(0), c.Args().Get(1)
	if isStdin(before) && isStdin(after) {
		return cmdutil.UsageErrorf("only one of BEFORE and AFTER can be standard input")
	}
	aggOpt, err := cmdutil.AggregatorOptions(c)
	if err != nil {
		return err
	}
	aggOpt.Mem /= 2
	o := sideOptions{
		agg:      aggOpt,
		diag:     cmdutil.NewDiag(c),
		stripHex: c.Bool("strip-hex"),
		stdin:    c.App.Reader,
	}
	var truncated bool
	if !c.Bool("decimals") {
		o.conv = func(n fold.Count) fold.Count {
			if n.Float && n.F != math.Trunc(n.F) {
				truncated = true
			}
			return Truncate(n)
		}
	}
	// The first pass checks the order of the files that may be streamed;
	// the second reads both sides, aggregating those that are not.
	names := []string{before, after}
	var checks [2]*stream.SortCheck
	var checked []string
	for _, n := range names {
		if checkable(n, o) {
			checked = append(checked, n)
		}
	}
	if len(checked) > 0 {
		prog := cmdutil.ProgressPass(c, "checking order", checked)
		for i, n := range names {
			if checkable(n, o) {
				if checks[i], err = checkSide(n, o, prog); err != nil {
					return err
				}
			}
		}
	}
	o.prog = cmdutil.ProgressPass(c, "", names)
	b, err := openSide(before, checks[0], o)
	if err != nil {
		return err
	}
	defer b.close()
	a, err := openSide(after, checks[1], o)
	if err != nil {
		return err
	}
	defer a.close()
	o.diag.Flush()
	if truncated {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: fractional counts truncated to integers (--decimals keeps them)\n", c.App.Name)
	}

	normalize := c.Bool("normalize") && b.total != a.total
	var onlyBefore, onlyAfter, both int64
	err = cmdutil.WriteOutput(c, func(w io.Writer) error {
		var line []byte
		err := stream.Join(b.stacks, a.stacks, func(stack []byte, cb, ca fold.Count) error {
			switch {
			case cb.IsZero() && !ca.IsZero():
				onlyAfter++
			case ca.IsZero() && !cb.IsZero():
				onlyBefore++
			default:
				both++
			}
			if normalize {
				cb = Normalize(cb, b.total, a.total)
			}
			line = append(line[:0], stack...)
			line = append(line, ' ')
			line = cb.Append(line)
			line = append(line, ' ')
			line = ca.Append(line)
			line = append(line, '\n')
			_, err := w.Write(line)
			return err
		})
		o.diag.Flush()
		return err
	})
	if err != nil {
		return err
	}
	if c.Bool("stats") {
		cmdutil.Statsf(c, "before: total %s (%s); after: total %s (%s); %d stacks in both, %d only before, %d only after; %d lines malformed",
			b.total, b.how, a.total, a.how, both, onlyBefore, onlyAfter, o.diag.Count())
	}
	return nil
}

func isStdin(name string) bool { return name == "-" || name == "" }
