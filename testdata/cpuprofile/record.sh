#!/bin/sh
# Records the .cpuprofile inputs of this directory (see ORIGIN.md) with
# Debian's nodejs and chromium. The sources are copied to a fixed
# directory first, so that the URLs in the profiles do not depend on
# where the repository lives. Usage: record.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
run=/tmp/pfold-cpuprofile
rm -rf "$run"
mkdir -p "$run"
cp -r "$here/src" "$run/src"
cd "$run/src"

# node's own profiler, at its default interval (1000 µs) and at 100 µs.
node --cpu-prof --cpu-prof-dir="$run" --cpu-prof-name=node-prog.cpuprofile prog.js >/dev/null
node --cpu-prof --cpu-prof-interval 100 --cpu-prof-dir="$run" --cpu-prof-name=node-prog-100us.cpuprofile prog.js >/dev/null
# A heap profile: V8 JSON of another kind, which must not be taken for a
# CPU profile.
node --heap-prof --heap-prof-interval 16384 --heap-prof-dir="$run" --heap-prof-name=node-prog.heapprofile prog.js >/dev/null
# Chromium's profiler driven through the DevTools protocol (what
# DevTools' "Save profile" writes is this object).
timeout 120 node record-devtools.js "$run/chromium-page.cpuprofile" 500

for f in node-prog.cpuprofile node-prog-100us.cpuprofile node-prog.heapprofile chromium-page.cpuprofile; do
	cp "$run/$f" "$here/$f"
done
rm -rf "$run"
