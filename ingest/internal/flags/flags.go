package flags

import "github.com/pfold/pfold/ingest/format"

// Time is --time (-t), of ghcprof and xdebug: both weigh stacks by time
// by default.
var Time = format.Flag{
	Name: "time", Aliases: []string{"t"}, Kind: format.Bool, Default: "false",
	Usage: "ghcprof: weigh by the individual %time column, in tenths of a percent; xdebug: weigh by duration, in microseconds (the default of both)",
}

// SampleIndex is --sample-index, of go and pprof: which sample value is
// folded.
var SampleIndex = format.Flag{
	Name: "sample-index",
	Kind: format.String,
	Usage: "go, pprof: the sample value to fold, by type name or index, as go tool pprof -sample_index " +
		"(default: pprof, the profile's default type, else the last; go, the first value, as stackcollapse-go.pl)",
}

// NoModules is --no-modules, of sample and vtune: frames without their
// module.
var NoModules = format.Flag{
	Name:    "no-modules",
	Kind:    format.Bool,
	Usage:   "sample, vtune: leave out the module (library) before each function name",
	Default: "false",
}

// PID and TID are --pid and --tid, of perf script (and so perf.data)
// and eu-stack: the process (and thread) id in the stacks.
var (
	PID = format.Flag{
		Name: "pid", Kind: format.Bool, Default: "false",
		Usage: "perf-script, perf-data: include the PID with process names (comm-PID); elfutils: a PID=N root frame",
	}
	TID = format.Flag{
		Name: "tid", Kind: format.Bool, Default: "false",
		Usage: "perf-script, perf-data: include the PID and TID with process names (comm-PID/TID); elfutils: a TID=N frame",
	}
)
