#!/bin/sh
# Records the Chrome trace event JSON inputs of this directory with
# Debian's chromium and nodejs (see ORIGIN.md), and runs the reference
# script on them. Usage: record.sh FLAMEGRAPH_DIR PFOLD_BINARY
set -eu
fg=$1
pfold=$2
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../cpuprofile/src" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Chromium, headless, traced from startup: V8's sampling profiler
# (ProfileChunk events, which the script ignores), v8 and
# devtools.timeline (X events: FunctionCall, TimerFire, v8.compile, …).
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run \
	--user-data-dir="$work/ud" \
	--trace-startup=disabled-by-default-v8.cpu_profiler,v8,devtools.timeline \
	--trace-startup-format=json --trace-startup-file="$work/chromium-page.json" \
	--trace-startup-duration=2 --virtual-time-budget=5000 \
	--dump-dom "file://$src/page.html" >/dev/null 2>&1
cp "$work/chromium-page.json" "$here/chromium-page.json"

# The same with the toplevel category: the scheduler's RunTask events
# nest everything else, for deep stacks on every thread.
rm -rf "$work/ud"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run \
	--user-data-dir="$work/ud" \
	--trace-startup=toplevel,v8,blink \
	--trace-startup-format=json --trace-startup-file="$work/chromium-toplevel.json" \
	--trace-startup-duration=1 --virtual-time-budget=3000 \
	--dump-dom "file://$src/page.html" >/dev/null 2>&1
# 8 MB of JSON: kept compressed.
gzip -9n <"$work/chromium-toplevel.json" >"$here/chromium-toplevel.json.gz"

# Node's trace events: V8's compiler and GC phases, node's own (timers,
# immediates, environment) as X events; async hooks as b/e and V8's
# external callbacks as B/E, which the script does not read.
(cd "$src" && node --trace-events-enabled \
	--trace-event-categories v8,node,node.async_hooks,node.environment,disabled-by-default-v8.gc \
	--trace-event-file-pattern "$work/node-prog.json" prog.js >/dev/null)
cp "$work/node-prog.json" "$here/node-prog.json"

"$here/oracle.sh" "$fg" "$pfold"
