#!/bin/sh
# Runs FlameGraph's stackcollapse-chrome-tracing.py on every input of this
# directory and writes NAME.oracle.folded (see ORIGIN.md).
# Usage: oracle.sh FLAMEGRAPH_DIR PFOLD_BINARY
set -eu
fg=$1
pfold=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
script="$fg/stackcollapse-chrome-tracing.py"

# The script's output summed per stack by pfold's folded reader (the
# script prints "20.0", pfold "20"), stacks of weight 0 dropped (pfold
# emits none), sorted bytewise.
oracle() {
	python3 "$script" "$1" | "$pfold" --format folded | grep -v ' 0$' | LC_ALL=C sort
}

for b in chromium-page node-prog flamegraph-example fractional; do
	oracle "$here/$b.json" >"$here/$b.oracle.folded"
done
gzip -dc "$here/chromium-toplevel.json.gz" >"$work/chromium-toplevel.json"
oracle "$work/chromium-toplevel.json" >"$here/chromium-toplevel.oracle.folded"

# The JSON Array Format stops the script (TypeError: list indices must
# be integers): its oracle is the script's output on the same events
# wrapped in {"traceEvents":[…]}.
{
	printf '{"traceEvents":'
	sed '$s/,$//' "$here/array-format.json"
	printf ']}\n'
} >"$work/array-format.json"
oracle "$work/array-format.json" >"$here/array-format.oracle.folded"

# Misnested events: the script's output as it prints it (negative
# times, a name split in two frames, a line broken in two), which pfold's
# folded reader refuses in part; only sorted.
python3 "$script" "$here/misnested.json" | LC_ALL=C sort >"$here/misnested.oracle.folded"
