package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// MergeOptions configure MergeFiles.
type MergeOptions struct {
	Agg  stream.Options // budget of the aggregation, when the inputs cannot be streamed
	Diag *stream.Diag
	// Weights scale the counts of the input at the same index; nil, or
	// a weight of 1, leaves them as they are.
	Weights []float64
	// Stdin stands for standard input ("-"); nil means os.Stdin.
	Stdin io.Reader
	// Progress starts the line of each pass over the inputs ("checking
	// order" for the first pass over sorted files, "" for the reading
	// that merges them).
	Progress stream.Passes
}

// MergeStats describe a MergeFiles.
type MergeStats struct {
	Streamed bool   // the inputs were merged as sorted streams
	Why      string // why they were aggregated instead, when !Streamed

	Lines, Stacks int64      // lines read, and well-formed ones
	In            fold.Count // sum of the (weighted) counts read
	Unique        int64      // distinct stacks written
	Out           fold.Count // sum of the counts written
	Runs          int        // runs spilled by the aggregation
}

// MergeFiles calls fn for every distinct stack of the named folded inputs
// in bytewise order with its summed, weighted count.
//
// When every input is a regular file already sorted, as pfold and
// pmerge write them, the inputs are merged as streams, one reader each,
// in memory proportional to their number rather than their size. Whether
// they are sorted is checked in a first pass over each file, which stops
// at the first stack out of order: a merge cannot take back lines it has
// written, so it must know before it starts. Standard input, pipes,
// unsorted files, or more inputs than the budget has room for readers,
// go through an Aggregator instead, bounded by opt.Agg.Mem and spilling
// to disk past it.
func MergeFiles(names []string, opt MergeOptions, fn func(stack []byte, c fold.Count) error) (MergeStats, error) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	if opt.Weights != nil && len(opt.Weights) != len(names) {
		return MergeStats{}, fmt.Errorf("%d weights for %d inputs", len(opt.Weights), len(names))
	}
	convs := make([]stream.CountFunc, len(names))
	for i := range names {
		if opt.Weights != nil && opt.Weights[i] != 1 {
			w := opt.Weights[i]
			convs[i] = func(c fold.Count) fold.Count { return c.Scale(w) }
		}
	}
	why, err := whyNotStreamed(names, convs, opt)
	if err != nil {
		return MergeStats{}, err
	}
	if why != "" {
		return aggregateFiles(names, convs, opt, why, fn)
	}
	return mergeStreams(names, convs, opt, fn)
}

func whyNotStreamed(names []string, convs []stream.CountFunc, opt MergeOptions) (string, error) {
	mem := opt.Agg.Mem
	if mem <= 0 {
		mem = stream.DefaultMem
	}
	if int64(len(names))*stream.SortedInputMem > mem {
		return fmt.Sprintf("%d readers do not fit in the memory budget", len(names)), nil
	}
	for _, n := range names {
		if !stream.Streamable(n) {
			return fmt.Sprintf("%s is not a regular file", displayName(n)), nil
		}
	}
	prog := opt.Progress.Start("checking order")
	for i, n := range names {
		chk, err := stream.CheckSorted(n, convs[i], prog)
		if err != nil {
			return "", err
		}
		if !chk.Sorted {
			return fmt.Sprintf("%s:%d is not sorted", n, chk.Line), nil
		}
	}
	return "", nil
}

func mergeStreams(names []string, convs []stream.CountFunc, opt MergeOptions, fn func([]byte, fold.Count) error) (MergeStats, error) {
	st := MergeStats{Streamed: true}
	ins := make([]*stream.SortedInput, len(names))
	srcs := make([]stream.Stacks, len(names))
	mapped := false
	prog := opt.Progress.Start("")
	for i, n := range names {
		if ins[i] = stream.NewMappedSortedInput(n, opt.Diag, convs[i]); ins[i] != nil {
			mapped = true
		} else {
			ins[i] = stream.NewSortedInput(n, opt.Diag, convs[i])
		}
		ins[i].CountInto(prog)
		srcs[i] = ins[i]
	}
	defer func() {
		for _, in := range ins {
			in.Close()
		}
	}()
	merge := func() error {
		return stream.Merge(srcs, func(stack []byte, c fold.Count) error {
			st.Unique++
			var err error
			if st.Out, err = st.Out.Add(c); err != nil {
				return fmt.Errorf("total count at stack %.80q: %w", stack, err)
			}
			return fn(stack, c)
		})
	}
	var err error
	if mapped {
		// Mapped stacks fault if their file shrinks meanwhile.
		err = stream.CatchFault(strings.Join(names, ", "), merge)
	} else {
		err = merge()
	}
	for _, in := range ins {
		l, s := in.Lines()
		st.Lines += l
		st.Stacks += s
		if t, e := st.In.Add(in.Total()); e == nil {
			st.In = t
		} else if err == nil {
			err = fmt.Errorf("total count: %w", e)
		}
	}
	if _, ok := err.(*stream.UnsortedError); ok {
		err = fmt.Errorf("%w (did the file change during the merge?)", err)
	}
	return st, err
}

func aggregateFiles(names []string, convs []stream.CountFunc, opt MergeOptions, why string, fn func([]byte, fold.Count) error) (MergeStats, error) {
	st := MergeStats{Why: why}
	agg := stream.NewAggregator(opt.Agg)
	defer agg.Close()
	prog := opt.Progress.Start("")
	for i, n := range names {
		stdin := opt.Stdin
		if stdin == nil {
			stdin = os.Stdin
		}
		r := stream.NewReaderStdin([]string{n}, stdin)
		fr := stream.NewFoldedReader(r, opt.Diag)
		fr.CountInto(prog)
		for fr.Next() {
			c := fr.Count()
			if convs[i] != nil {
				c = convs[i](c)
			}
			var err error
			if st.In, err = st.In.Add(c); err != nil {
				r.Close()
				return st, fmt.Errorf("%s:%d: total count at stack %.80q: %w", fr.Name(), fr.Line(), fr.Stack(), err)
			}
			if err := agg.Add(fr.Stack(), c); err != nil {
				r.Close()
				return st, fmt.Errorf("%s:%d: %w", fr.Name(), fr.Line(), err)
			}
		}
		r.Close()
		st.Lines += fr.Lines
		st.Stacks += fr.Stacks
		if err := fr.Err(); err != nil {
			return st, err
		}
	}
	err := agg.Each(fn)
	as := agg.Stats()
	st.Unique, st.Out, st.Runs = as.Unique, as.Total, as.Runs
	return st, err
}

// displayName is how an input is named in a message.
func displayName(name string) string {
	if name == "" {
		return "-"
	}
	return name
}
