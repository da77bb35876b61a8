#!/bin/sh
# Records the GHC profiles in this directory (Debian's ghc 9.0.2 and
# ghc-prof: apt-get install ghc ghc-prof). Run from testdata/ghcprof/.
# The inputs are real: each .prof is what the profiled program wrote.
set -eu
here=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp src/*.hs "$tmp"
cd "$tmp"
ghc -prof -fprof-auto -rtsopts -threaded Main.hs -o workload >/dev/null
./workload 27 +RTS -p -N2 -poworkload -RTS >/dev/null
cp workload.prof "$here/workload.prof"
./workload 27 +RTS -P -N2 -poworkload-P -RTS >/dev/null
cp workload-P.prof "$here/workload-P.prof"
./workload 27 +RTS -pa -poworkload-pa -RTS >/dev/null
cp workload-pa.prof "$here/workload-pa.prof"
ghc -prof -fprof-auto -rtsopts Semicolon.hs -o semicolon >/dev/null
./semicolon +RTS -P -RTS >/dev/null
cp semicolon.prof "$here/semicolon.prof"
