#!/bin/sh
# Records the Xdebug function traces in this directory with Debian's
# php-cli 8.2 and php-xdebug 3.2.0. Run from testdata/xdebug/. The
# workload runs from a fixed directory, so the paths in the traces (and
# in closure names) do not change between runs.
set -eu
here=$(pwd)
work=/tmp/xdebug-workload
rm -rf "$work"
mkdir -p "$work/out"
cp src/*.php "$work"
cd "$work"
trace() {
	name=$1
	shift
	php -d xdebug.mode=trace -d xdebug.start_with_request=yes -d xdebug.trace_format=1 \
		-d xdebug.output_dir="$work/out" -d xdebug.trace_output_name="$name" "$@" main.php >/dev/null
}
# The computerized format, as stackcollapse-xdebug.php asks.
trace workload
# With assignments and return values collected ("A" and "R" records).
trace assign -d xdebug.collect_assignments=1 -d xdebug.collect_return=1
# Two runs appended to one file (xdebug.trace_options=1).
trace append -d xdebug.trace_options=1
trace append -d xdebug.trace_options=1
cp out/workload.xt out/assign.xt out/append.xt "$here"
rm -rf "$work"
