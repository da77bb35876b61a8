package main

import (
	"fmt"
	"io"

	"github.com/pfold/pfold/callgrind"
	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

func main() { command().Main() }

func command() *cmdutil.Command {
	return &cmdutil.Command{
		Name:  "pcallgrind",
		Usage: "convert folded stacks to the callgrind format (KCachegrind, callgrind_annotate)",
		Description: "Reads folded stacks \"root;...;leaf COUNT\" in order and writes one callgrind file\n" +
			"to stdout or -o FILE: exclusive cost per function, calls and inclusive cost per\n" +
			"caller and callee. Frames \"name:file:line\", \"name (file:line)\" and \"name - file:line\"\n" +
			"give fl= and line; other frames are in file ??? at line 0.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "event", Value: callgrind.DefaultEvent, Usage: "event `NAME` of the costs, e.g. cpu-clock"},
			&cli.BoolFlag{Name: "no-compress", Usage: "write file and function names in full every time instead of (id) references", DefaultText: "false"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.MemFlag, cmdutil.TmpDirFlag,
			&cli.BoolFlag{Name: "stats", Usage: "print counts of bytes, lines, stacks, functions and calls to stderr", DefaultText: "false"},
		},
		Examples: []string{
			"pfold perf.txt | pcallgrind > out.callgrind && kcachegrind out.callgrind",
			"pcallgrind --event cpu-clock -o out.callgrind stacks.folded.gz",
			"stackprof --stackcollapse prof.dump | pcallgrind -o out.callgrind",
		},
		Reads:         "folded stacks",
		DescribeInput: ingest.Describe,
		RefuseInput:   ingest.RefuseFolded,
		Run:           run,
	}
}

func run(c *cli.Context) error {
	event := c.String("event")
	if !callgrind.ValidEvent(event) {
		return cmdutil.UsageErrorf("--event %q: an event name is one word, without spaces", event)
	}
	mem, err := cmdutil.AggregatorOptions(c)
	if err != nil {
		return err
	}
	prof := callgrind.New(callgrind.Options{
		Event:      event,
		Creator:    "pcallgrind " + cmdutil.Version(),
		NoCompress: c.Bool("no-compress"),
		Mem:        mem.Mem,
		TmpDir:     mem.TmpDir,
	})
	defer prof.Close()
	diag := cmdutil.NewDiag(c)
	in := cmdutil.Input(c)
	defer in.Close()

	fr := stream.NewFoldedReader(in, diag)
	if err := addAll(prof, fr); err != nil {
		return err
	}
	diag.Flush()
	if fr.Stacks == 0 && diag.Count() == 0 {
		return nil // empty in, empty out, as every binary does
	}
	if prof.Decimal() {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: decimal counts: callgrind costs are integers, each written cost is rounded\n", c.App.Name)
	}

	err = cmdutil.WriteOutput(c, func(w io.Writer) error {
		_, err := prof.WriteTo(w)
		return err
	})
	if err != nil {
		return err
	}
	if c.Bool("stats") {
		cmdutil.Statsf(c, "%d bytes read, %d lines, %d stacks, %d lines malformed, %d functions, %d call edges, total %s",
			in.BytesRead(), fr.Lines, fr.Stacks, diag.Count(), prof.Functions(), prof.Edges(), prof.Total())
	}
	return nil
}
