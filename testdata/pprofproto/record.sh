#!/usr/bin/env bash
# Records the profiles of testdata/pprofproto and prints the go tool pprof
# -raw text of each into testdata/goraw (see ORIGIN.md in both). Run from
# the repository root. Needs Go; the recordings differ from run to run.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=testdata/pprofproto
raw=testdata/goraw
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The workload, built as is (the compiler inlines its hot code) and
# without inlining (-l), with no struct-typed generic call: those
# profiles are the ones stackcollapse-go.pl reads right.
(cd $out/src && go build -o "$tmp/pprofwork" . && go build -gcflags=all=-l -o "$tmp/pprofwork-noinline" .)
"$tmp/pprofwork" -o $out -cpu 10s
mkdir "$tmp/noinline"
"$tmp/pprofwork-noinline" -o "$tmp/noinline" -cpu 8s -structshape=false
for p in cpu mutex block; do cp "$tmp/noinline/$p.pb.gz" $out/noinline-$p.pb.gz; done

# go test -cpuprofile of this repository's stream package benchmark.
go test -run='^$' -bench=BenchmarkAggregatorAdd -benchtime=2s -o "$tmp/stream.test" \
	-cpuprofile=$out/gotest-stream.pb.gz ./stream/ >/dev/null

# go tool pprof's own writer: two profiles merged, and a difference
# (negative values for the base).
go tool pprof -proto $out/cpu.pb.gz $out/noinline-cpu.pb.gz >$out/merged.pb.gz 2>/dev/null
go tool pprof -proto -diff_base=$out/noinline-cpu.pb.gz $out/cpu.pb.gz >$out/diff.pb.gz 2>/dev/null

# The shapes no profiler here writes.
go run $out/gen/shapes.go -in $out/cpu.pb.gz -o $out

for f in $out/*.pb.gz; do
	name=$(basename "$f" .pb.gz)
	go tool pprof -raw -symbolize=none "$f" >$raw/$name.txt 2>/dev/null
done
