#!/usr/bin/env bash
# Writes the *.oracle.folded files of testdata/goraw and testdata/pprofproto
# (see ORIGIN.md in both). Run from the repository root with the path of
# FlameGraph at commit 57207afbe114e3d50c6c7aef93d3206ef76cf6e2:
#   testdata/pprofproto/oracle/oracle.sh /tmp/FlameGraph
set -euo pipefail
fg=${1:?FlameGraph directory}
cd "$(dirname "$0")/../../.."
py=testdata/pprofproto/oracle/oracle.py
export LC_ALL=C

# -unit for go tool pprof -traces: exact integers, no scaling.
unit() {
	case $1 in
	nanoseconds) echo -unit=ns ;;
	bytes) echo -unit=B ;;
	*) echo -unit=minimum ;;
	esac
}

for raw in testdata/goraw/*.txt; do
	name=$(basename "$raw" .txt)
	[ "$name" = diff ] && continue # negative values: pfold refuses it
	pb=testdata/pprofproto/$name.pb.gz
	# stackcollapse-go.pl as users run it.
	perl "$fg/stackcollapse-go.pl" "$raw" | python3 $py aggregate >testdata/goraw/$name.oracle.folded
	# Each value in turn, given to the Perl as the first of two.
	types=$(sed -n '/^Samples:$/{n;p;q}' "$raw")
	i=0
	for t in $types; do
		python3 $py column $i <"$raw" | perl "$fg/stackcollapse-go.pl" | python3 $py aggregate \
			>testdata/goraw/$name.sample-index-$i.oracle.folded
		u=${t%\[dflt\]}
		u=${u#*/}
		go tool pprof -traces -symbolize=none -sample_index=$i $(unit "$u") "$pb" 2>/dev/null | python3 $py traces \
			>testdata/pprofproto/$name.sample-index-$i.oracle.folded
		i=$((i + 1))
	done
	# go tool pprof's default sample type.
	dflt=$(go tool pprof -traces -symbolize=none "$pb" 2>/dev/null | sed -n 's/^Type: //p')
	u=$(echo "$types" | tr ' ' '\n' | sed -n "s,^$dflt/\([a-z]*\).*,\1,p")
	go tool pprof -traces -symbolize=none $(unit "$u") "$pb" 2>/dev/null | python3 $py traces \
		>testdata/pprofproto/$name.oracle.folded
done
