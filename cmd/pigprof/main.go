package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/igprof"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

func main() { command().Main() }

func command() *cmdutil.Command {
	return &cmdutil.Command{
		Name:  "pigprof",
		Usage: "fold IgProf profile dumps into flame-graph stacks",
		Description: "Reads IgProf dumps (igprof -pp, -mp, -fd …) and writes folded stacks\n" +
			"\"program;root;...;leaf VALUE\" of one counter, each call-tree node's own value,\n" +
			"sorted and summed, to stdout or -o FILE.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "counter", Aliases: []string{"r"}, Usage: "fold counter `NAME` (PERF_TICKS, MEM_TOTAL, MEM_LIVE, MEM_MAX, FD_USED, …)", DefaultText: "PERF_TICKS if present, else the dump's first counter"},
			&cli.StringFlag{Name: "value", Value: "total", Usage: "fold the counter's `KIND`: total (ticks, bytes), count (calls, allocations) or peak"},
			&cli.BoolFlag{Name: "seconds", Usage: "report PERF_TICKS in seconds, with the dump's tick period", DefaultText: "false"},
			&cli.BoolFlag{Name: "leaks", Usage: "one stack per live block of MEM_LIVE, ending in [leak@0xADDRESS], with its size", DefaultText: "false"},
			&cli.BoolFlag{Name: "list-counters", Usage: "print each counter with its totals instead of stacks", DefaultText: "false"},
			&cli.BoolFlag{Name: "no-root", Usage: "leave out the program name, otherwise the root frame", DefaultText: "false"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.StatsFlag,
		}, cmdutil.AggregateFlags()...),
		Examples: []string{
			"pigprof igprof.pp.gz | flamegraph.pl > cpu.svg",
			"pigprof --counter MEM_LIVE igprof.mp.gz | pcallgrind > leaks.callgrind",
			"pigprof --list-counters igprof.mp.gz",
		},
		Reads: "an IgProf dump",
		Run:   run,
	}
}

func run(c *cli.Context) error {
	value, err := igprof.ParseValueKind(c.String("value"))
	if err != nil {
		return cmdutil.UsageErrorf("--value: %v", err)
	}
	if c.Bool("leaks") && c.IsSet("value") {
		return cmdutil.UsageErrorf("--leaks folds block sizes: it takes no --value")
	}
	if c.Bool("seconds") && value != igprof.ValueTotal {
		return cmdutil.UsageErrorf("--seconds converts tick totals: it takes no --value %s", value)
	}
	aggOpt, err := cmdutil.AggregatorOptions(c)
	if err != nil {
		return err
	}
	agg := stream.NewAggregator(aggOpt)
	defer func() { agg.Close() }()
	maxOpt := aggOpt
	maxOpt.Mem /= 2 // the table of a _MAX counter's maxima
	f := igprof.NewFolder(igprof.Options{
		Counter: c.String("counter"), Value: value,
		Seconds: c.Bool("seconds"), Leaks: c.Bool("leaks"), NoRoot: c.Bool("no-root"),
		ListOnly: c.Bool("list-counters"),
		// The default counter became PERF_TICKS: start over.
		Discard: func() error {
			err := agg.Close()
			agg = stream.NewAggregator(aggOpt)
			return err
		},
		Agg: maxOpt,
	}, func(stack []byte, n fold.Count) error { return agg.Add(stack, n) })
	defer f.Close()
	diag := cmdutil.NewDiag(c)
	in := cmdutil.Input(c)
	defer in.Close()
	// A first input that is something else (perf.data, folded stacks, a
	// binary) is one error that says so, not a warning a line of it.
	if in.NextInput() {
		if hint := notDump(in.Peek(format.SniffSize)); hint != "" {
			return fmt.Errorf("%s: not an igprof dump: %s", in.Name(), hint)
		}
	}
	if err := in.Err(); err != nil {
		return err
	}

	err = igprof.Fold(in, f, diag)
	diag.Flush()
	if errors.Is(err, igprof.ErrNoDump) && diag.Count() == 0 {
		return nil // empty in, empty out, as every binary does
	}
	if err != nil {
		return err
	}
	err = cmdutil.WriteOutput(c, func(w io.Writer) error {
		if c.Bool("list-counters") {
			return listCounters(w, f)
		}
		_, err := agg.WriteTo(w)
		return err
	})
	if err != nil {
		return err
	}
	if c.Bool("stats") {
		st := agg.Stats()
		cmdutil.Statsf(c, "%d bytes read, %d dumps, counter %s, %d lines malformed, %d unique stacks, %d runs spilled, total %s",
			in.BytesRead(), f.Parser().Dumps(), f.Counter(), diag.Count(), st.Unique, st.Runs, st.Total)
	}
	return nil
}

// notDump says what an input that is no IgProf dump looks like, and what
// reads it, when ingest can tell from its first bytes; "" otherwise (a
// dump, or text the dump's parser will report line by line).
func notDump(prefix []byte) string {
	if igprof.Sniff(prefix) != format.No {
		return ""
	}
	f, err := ingest.Detect(prefix)
	var np *ingest.NotProfileError
	switch {
	case err == nil && f.Name == "folded":
		return "looks like folded stacks already: pflame, ptop and the other binaries read them as they are"
	case err == nil:
		return "looks like " + f.Describe() + ": fold it with pfold"
	case errors.As(err, &np):
		return np.LooksLike()
	}
	return ""
}

// listCounters prints each counter's totals: summed, or the maximum for a
// _MAX counter (COMBINE max), as igprof-analyse totals them.
func listCounters(w io.Writer, f *igprof.Folder) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "COUNTER\tCOMBINE\tRECORDS\tCOUNT\tTOTAL\tPEAK\tLEAKS")
	def := ""
	for _, st := range f.Stats() {
		if def == "" || st.Name == igprof.DefaultCounter {
			def = st.Name
		}
	}
	for _, st := range f.Stats() {
		name, combine := st.Name, "sum"
		if name == def {
			name += " (default)"
		}
		if igprof.IsMax(st.Name) {
			combine = "max"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", name, combine, st.Records, st.Count, st.Total, st.Peak, st.Leaks)
	}
	return tw.Flush()
}
