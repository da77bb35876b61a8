#!/bin/sh
# Records the faulthandler dumps in this directory with Debian's python3
# (3.11). Run from testdata/faulthandler/. The workload runs from a fixed
# directory so that the paths in the frames do not change between runs.
set -eu
here=$(pwd)
work=/tmp/faulthandler-workload
rm -rf "$work"
mkdir -p "$work"
cp src/*.py "$work"
cd "$work"
/usr/bin/python3 workload.py later "$here/later.txt" 1 0.1
/usr/bin/python3 workload.py signal "$here/signal.txt" 1 0.1
/usr/bin/python3 workload.py current "$here/current.txt" 1 0.05
rm -rf "$work"
