package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/pfold/pfold/ingest/format"

	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

func main() { command().Main() }

func command() *cmdutil.Command {
	return &cmdutil.Command{
		Name:  "pfold",
		Usage: "fold any profiler's output into flame-graph stacks",
		Description: "Reads profiler output — perf.data recordings, perf script text (any layout) and every format\n" +
			"of the stackcollapse family (see --format) — and writes folded stacks \"root;...;leaf COUNT\",\n" +
			"summed and sorted, to stdout or -o FILE. Each input's format is detected from its first bytes,\n" +
			"or named with --format; each format takes the options of the script it replaces.",
		Flags: append(append([]cli.Flag{
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j", "nthreads", "n"}, Value: runtime.GOMAXPROCS(0), DefaultText: "the number of cores", Usage: "use `N` cores: perf script text is parsed by N workers; perf.data is read and its symbols loaded beside the fold; the output is the same for any N (-n, --nthreads: inferno's names)"},
			&cli.StringFlag{Name: "format", Value: ingest.Auto, Usage: "input `FORMAT`: " + strings.Join(ingest.Names(), ", ") + ", or auto (detected per input)"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.StatsFlag,
		}, cmdutil.AggregateFlags()...), formatFlags()...),
		Examples: []string{
			"perf record -g -- ./app && pfold perf.data | pflame > cpu.svg",
			"perf record -g -o - -- ./app | pfold > out.folded",
			"perf record -z --threads -a -g -- sleep 10 && pfold perf.data > all.folded",
			"perf record --call-graph dwarf -- ./app && pfold perf.data > out.folded",
			"perf script | pfold > out.folded",
			"pfold --range 10,20 perf.data | pflame > 10s-to-20s.svg",
			"pfold --pid dump.txt.zst | flamegraph.pl > out.svg",
			"pfold --mem 64MiB --stats huge.txt.gz -o out.folded",
			"pfold --format jstack --include-tname jstack.*.txt > java.folded",
		},
		Reads: "profiler output",
		Run:   run,
	}
}

// chunkSize is how much input one worker takes at a time.
const chunkSize = 4 << 20

func run(c *cli.Context) error {
	name := c.String("format")
	var chosen *format.Format
	if name != ingest.Auto {
		f, err := ingest.Lookup(name)
		if err != nil {
			return cmdutil.UsageErrorf("--format: %v", err)
		}
		chosen = f
	}
	aggOpt, err := cmdutil.AggregatorOptions(c)
	if err != nil {
		return err
	}
	jobs := c.Int("jobs")
	if jobs < 1 {
		return cmdutil.UsageErrorf("--jobs must be at least 1")
	}
	if err := ingest.CheckOptions(c); err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	diag := cmdutil.NewDiag(c)
	folded := new(atomic.Int64)
	cmdutil.ProgressStacks(c, folded)

	// A format that folds on workers does so when every input is in it.
	if chosen == nil {
		var formats []*format.Format
		if formats, c.App.Reader, err = ingest.DetectInputs(c.Args().Slice(), c.App.Reader); err != nil {
			return err
		}
		if all := sameFormat(formats); all != nil && all.FoldChunks != nil {
			chosen = all
			if c.Bool("stats") {
				// One line per input, as the Folder's path says it.
				inputs := c.Args().Slice()
				if len(inputs) == 0 {
					inputs = []string{"-"}
				}
				for _, input := range inputs {
					cmdutil.Statsf(c, "%s: format %s (detected)", input, all.Name)
				}
			}
		}
	}
	parallel := chosen != nil && chosen.FoldChunks != nil
	if !parallel {
		jobs = 1
	}
	// --mem is shared by the workers' parser caches (a quarter each at
	// most, twice: perf script's frame cache and sample batches) and
	// their tables; the chunk buffers are the fixed overhead on top.
	cacheMem := min(32<<20, aggOpt.Mem/int64(4*jobs))
	aggOpt.Mem = max(1, (aggOpt.Mem-int64(jobs)*2*cacheMem)/int64(jobs))
	aggs := make([]*stream.Aggregator, jobs)
	for i := range aggs {
		aggs[i] = stream.NewAggregator(aggOpt)
		defer aggs[i].Close()
	}
	env := format.Env{Notes: cmdutil.Notes(c), Mem: cacheMem, TmpDir: aggOpt.TmpDir, Folded: folded}
	if name == ingest.Auto {
		env.Mixed = ingest.Mixed
	} else {
		env.Refuse = ingest.Refuse(chosen)
	}
	opts := format.WithEnv(c, env)

	var stats []string
	var bytesRead func() int64
	var used []*format.Format // the formats of the inputs read
	if parallel {
		used = []*format.Format{chosen}
		in := cmdutil.Chunker(c, chunkSize, 2*jobs+2)
		defer in.Close()
		bytesRead = in.BytesRead
		res, err := chosen.FoldChunks(in, opts, diag, aggs)
		if err != nil {
			return err
		}
		if fin, ok := res.(format.Finisher); ok {
			if err := fin.Finish(); err != nil {
				return err
			}
		}
		if st, ok := res.(format.Stater); ok {
			stats = append(stats, chosen.Name+": "+st.Stats())
		}
	} else {
		in := cmdutil.Input(c)
		defer in.Close()
		bytesRead = in.BytesRead
		fl := &ingest.Folder{Format: name, Options: opts, Emit: aggs[0].Add, EmitSorted: aggs[0].AddSorted, Diag: diag}
		defer fl.Close()
		if c.Bool("stats") {
			fl.Detected = func(input, f string) {
				if f == "" {
					f = "no data"
				}
				cmdutil.Statsf(c, "%s: format %s (detected)", input, f)
			}
		}
		if err := fl.Fold(in); err != nil {
			return err
		}
		if err := fl.Finish(); err != nil {
			return err
		}
		stats = fl.Stats()
		used = fl.Formats()
	}
	// An option of another format than the inputs' did nothing.
	for _, u := range ingest.UnusedFlags(c.IsSet, used) {
		fmt.Fprintf(cmdutil.Notes(c), "note: %s\n", u)
	}
	diag.Flush()
	var added int64
	for _, a := range aggs {
		added += a.Stats().Added
	}
	if added == 0 && diag.Count() > 0 {
		return fmt.Errorf("nothing folded: every data line was malformed (%d lines; the first are shown above)", diag.Count())
	}

	if err := cmdutil.WriteOutput(c, func(w io.Writer) error { return stream.WriteMerged(w, aggs) }); err != nil {
		return err
	}
	if c.Bool("stats") {
		for _, s := range stats {
			cmdutil.Statsf(c, "%s", s)
		}
		st := aggs[0].Stats()
		for _, a := range aggs[1:] {
			st.Runs += a.Stats().Runs
		}
		cmdutil.Statsf(c, "%d bytes read, %d lines malformed, %d unique stacks, %d runs spilled, total %s",
			bytesRead(), diag.Count(), st.Unique, st.Runs, st.Total)
	}
	return nil
}

// sameFormat returns the format all inputs are in, or nil.
func sameFormat(formats []*format.Format) *format.Format {
	var all *format.Format
	for _, f := range formats {
		if f == nil || all != nil && f.Name != all.Name {
			return nil
		}
		all = f
	}
	return all
}

// formatFlags are the options of the registered formats, named as the
// scripts they replace name them. Formats share a flag when it means the
// same for each (perf-script's and perf-data's --pid).
func formatFlags() []cli.Flag {
	var flags []cli.Flag
	seen := map[string]bool{}
	for _, f := range ingest.Registered {
		for _, fl := range f.Flags {
			if seen[fl.Name] {
				continue
			}
			seen[fl.Name] = true
			usage := fl.Usage
			switch fl.Kind {
			case format.Bool:
				flags = append(flags, &cli.BoolFlag{Name: fl.Name, Aliases: fl.Aliases, Usage: usage, DefaultText: fl.Default})
			case format.Int:
				flags = append(flags, &cli.IntFlag{Name: fl.Name, Aliases: fl.Aliases, Usage: usage, DefaultText: fl.Default})
			case format.StringSlice:
				flags = append(flags, &cli.StringSliceFlag{Name: fl.Name, Aliases: fl.Aliases, Usage: usage})
			default:
				flags = append(flags, &cli.StringFlag{Name: fl.Name, Aliases: fl.Aliases, Usage: usage, DefaultText: fl.Default})
			}
		}
	}
	return flags
}
