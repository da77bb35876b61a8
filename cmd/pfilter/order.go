package main

import (
	"flag"
	"strconv"

	"github.com/urfave/cli/v2"
)

// The transforms apply in the order they are written, across different
// options, which urfave/cli does not keep (it only keeps the order of the
// values of one option). The transform options therefore register a
// flag.Value of their own that records each occurrence as the command
// line is parsed, in order; cmdutil's moving of options ahead of file
// arguments keeps their relative order.

type transformArg struct{ name, value string }

type transformArgs struct{ list []transformArg }

// value returns f recording each of its values in order.
func (o *transformArgs) value(f *cli.StringFlag) cli.Flag {
	return &valueFlag{StringFlag: f, order: o}
}

// bool returns f recording each time it is given.
func (o *transformArgs) bool(f *cli.BoolFlag) cli.Flag {
	return &boolFlag{BoolFlag: f, order: o}
}

type valueFlag struct {
	*cli.StringFlag
	order *transformArgs
}

func (f *valueFlag) Apply(set *flag.FlagSet) error {
	r := &recorder{name: f.Name, order: f.order}
	for _, n := range f.Names() {
		set.Var(r, n, f.Usage)
	}
	return nil
}

type boolFlag struct {
	*cli.BoolFlag
	order *transformArgs
}

func (f *boolFlag) Apply(set *flag.FlagSet) error {
	r := &recorder{name: f.Name, order: f.order, isBool: true}
	for _, n := range f.Names() {
		set.Var(r, n, f.Usage)
	}
	return nil
}

// aliasCopy is what recorder.String returns: after parsing, urfave/cli
// sets the aliases of a given option to its String(), and that copy must
// not count as one more transform.
const aliasCopy = "\x00alias"

// recorder is the flag.Value of a transform option, shared by its names.
type recorder struct {
	name   string
	order  *transformArgs
	isBool bool
}

func (r *recorder) Set(v string) error {
	if v == aliasCopy {
		return nil
	}
	if r.isBool {
		on, err := strconv.ParseBool(v)
		if err != nil || !on {
			return err
		}
		v = ""
	}
	r.order.list = append(r.order.list, transformArg{r.name, v})
	return nil
}

func (r *recorder) String() string   { return aliasCopy }
func (r *recorder) IsBoolFlag() bool { return r.isBool }
