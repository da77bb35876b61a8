#!/bin/sh
# Makes this folder's expected files: each case below cut by FlameGraph's
# range-perf.pl, then folded by its stackcollapse-perf.pl. Run from this
# folder with FLAMEGRAPH set to a checkout of
# https://github.com/brendangregg/FlameGraph (not kept here).
set -eu
: "${FLAMEGRAPH:?set FLAMEGRAPH to a FlameGraph checkout}"
cut() { # INPUT NAME RANGE-PERF-ARGS...
	in=$1 name=$2
	shift 2
	perl "$FLAMEGRAPH/range-perf.pl" "$@" <"../$in" | perl "$FLAMEGRAPH/stackcollapse-perf.pl" >"$name.folded"
}
cut layouts/default.txt default.range-perf-0.1-0.3 0.1 0.3
cut layouts/default.txt default.range-perf-0-0.05 0 0.05
cut layouts/ns.txt ns.range-perf-timezerosecs-0.03-0.4 --timezerosecs 0.03 0.4
cut layouts/show-task-mmap-events.txt show-task-mmap-events.range-perf-0.1-0.3 0.1 0.3
cut layouts/comm-pid-tid-cpu-time-event-ip-sym-dso.txt comm-pid-tid-cpu-time-event-ip-sym-dso.range-perf-0.2-0.25 0.2 0.25
cut recorded/cwork.perf-script.txt cwork.range-perf-timeraw-548.9-549.2 --timeraw 548.9 549.2
cut recorded/threadname.perf-script.txt threadname.range-perf-0.3-1000 0.3 1000
