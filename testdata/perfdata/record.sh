#!/usr/bin/env bash
# record.sh: re-record the perf.data fixtures of ingest/perfdata's tests.
#
# For each workload in src/ it records `perf record -e cpu-clock -F 999 -g`
# (dwarf: `--call-graph dwarf,2048 -F 200`, user stack copies walked by
# their binaries' call frame information),
# then packs what perf script needs to name the frames without this
# machine: a --symfs tree holding each mapped binary's symbol tables
# (objcopy --strip-debug of its debug file, or of the binary, under
# usr/lib/debug/.build-id/), the JIT maps, and the lines of /proc/kallsyms
# around the sampled kernel addresses (--kallsyms). The oracle is
# perf script's own text for the recording with those options, gzipped.
#
# Needs: perf, gcc (and gcc-multilib, for -m32), g++, go, rustc, ocamlopt (Debian ocaml-nox), objcopy,
# readelf, python3; run as root (kernel samples). Usage: testdata/perfdata/record.sh [NAME...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=/tmp/pfold-perfdata
rm -rf "$build" && mkdir -p "$build/home"
export RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup} # rustup's toolchains stay where they are
export HOME=$build/home # perf's build-id cache goes here, not into the fixtures

gcc -O1 -g -fno-omit-frame-pointer -o "$build/cwork" "$here/../perfreport/cwork.c"
g++ -O1 -g -fno-omit-frame-pointer -pthread -o "$build/tmpl" "$here/src/tmpl.cpp"
gcc -O1 -fno-omit-frame-pointer -o "$build/jit" "$here/src/jit.c"
(cd "$here/src/gowork" && go build -ldflags=-w -o "$build/gowork" .)
gcc -O1 -fno-omit-frame-pointer -o "$build/overlap" "$here/src/overlap.c"
gcc -O1 -fno-omit-frame-pointer -fno-builtin -fcf-protection=none -Wl,-z,lazy -rdynamic -s -o "$build/plt_lazy" "$here/src/plt.c"
gcc -O1 -fno-omit-frame-pointer -fno-builtin -fcf-protection=full -Wl,-z,ibtplt -rdynamic -s -o "$build/plt_sec" "$here/src/plt.c"
gcc -O1 -fno-omit-frame-pointer -o "$build/jitdump" "$here/src/jitdump.c"
# Rust: one build with the program's names legacy-mangled (its standard
# library's are v0), one with all of them v0.
rustc -O -C force-frame-pointers=yes -o "$build/rustwork" "$here/src/rustwork.rs"
rustc -O -C force-frame-pointers=yes -C symbol-mangling-version=v0 -o "$build/rustwork_v0" "$here/src/rustwork.rs"
(cd "$build" && cp "$here/src/ocamlwork.ml" . && ocamlopt -o ocamlwork ocamlwork.ml)
gcc -O2 -pthread -o "$build/dwarfwork" "$here/src/dwarfwork.c" # no frame pointers: CFI only
gcc -O2 -g -o "$build/inlinework" "$here/src/inlinework.c" # its DWARF stays, in symfs too
gcc -m32 -O2 -o "$build/inlinework32" "$here/src/inlinework.c"

declare -A cmd=(
	[cwork]="$build/cwork"
	[cpp]="$build/tmpl"
	[go]="$build/gowork"
	[jit]="$build/jit"
	[kernel]="sh -c 'for i in 1 2 3 4 5 6; do find /usr/lib -name \"*.so*\" >/dev/null; gzip -1 </usr/lib/x86_64-linux-gnu/libc.so.6 >/dev/null; done'"
	[plt]="sh -c '$build/plt_lazy 60000000; $build/plt_sec 60000000'"
	[overlap]="$build/overlap"
	[rust]="sh -c '$build/rustwork; $build/rustwork_v0'"
	[ocaml]="$build/ocamlwork"
	[jitdump]="$build/jitdump"
	[dwarf]="$build/dwarfwork"
	# Twice from a shell: a process whose parent's maps of libc are left
	# over lower than its own (as ASLR has it, at times) gets no rules
	# for libc from perf, which places them by the lowest map.
	[dwarfsh]="sh -c '$build/dwarfwork; $build/dwarfwork'"
	[inline]="$build/inlinework"
	# A 32-bit process: Debian's perf has no 32-bit libunwind, and
	# prints its dwarf-mode samples without user frames.
	[dwarf32]="$build/inlinework32"
)
# How each is recorded, and the perf script options of its text: perf
# script adds inlined functions to dwarf-mode stacks (addr2line's, from
# DWARF) unless --no-inline; dwarf/ and dwarfsh/ are without them, as
# pfold folded them before it asked addr2line too, inline/ with them.
declare -A recargs=([dwarf]="--call-graph dwarf,2048 -F 200" [dwarfsh]="--call-graph dwarf,2048 -F 200" [inline]="--call-graph dwarf,2048 -F 300" [dwarf32]="--call-graph dwarf,1024 -F 100")
# Recordings whose frames perf names from no binary: no symfs copies.
declare -A nosymfs=([dwarf32]=1)
declare -A scriptargs=([dwarf]="--no-inline" [dwarfsh]="--no-inline")
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	names=(cwork cpp go jit kernel plt overlap rust ocaml jitdump dwarf dwarfsh inline dwarf32)
	rm -rf "$here/symfs"
fi
# One symfs tree for all recordings: they share their libraries.
symfs=$here/symfs

for n in "${names[@]}"; do
	out=$here/$n
	rm -rf "$out" && mkdir -p "$out" "$symfs"
	if [ "$n" = jitdump ]; then
		# The jitdump's clock is CLOCK_MONOTONIC (-k 1); perf inject --jit
		# writes the jitted-PID-N.so files beside the dump, in $build.
		(cd "$build" && perf record -q -k 1 -e cpu-clock -F 999 -g -o "$build/jit-raw.data" -- "${cmd[$n]}" >/dev/null &&
			perf inject --jit -i "$build/jit-raw.data" -o "$out/perf.data")
	else
		(cd "$build" && eval perf record -q -e cpu-clock ${recargs[$n]:--F 999 -g} -o "$out/perf.data" -- "${cmd[$n]}" >/dev/null)
	fi
	# Every executable mapping's binary (perf inject --jit maps its jitted
	# code --xs), without its DWARF, at its path
	# under symfs, and its debug file's symbol table where there is one.
	[ -n "${nosymfs[$n]:-}" ] ||
	perf script -i "$out/perf.data" --show-mmap-events 2>/dev/null |
		awk '/PERF_RECORD_MMAP/ && / [r-][w-]x[ps] / { print $NF }' | sort -u |
		while read -r path; do
			[ -f "$path" ] || continue
			mkdir -p "$(dirname "$symfs$path")"
			case $path in
			*/jitted-*.so) cp "$path" "$symfs$path" ;; # objcopy spoils their symbols for perf
			*/inlinework) cp "$path" "$symfs$path" ;;  # addr2line reads its DWARF
			*) objcopy --strip-debug "$path" "$symfs$path" ;;
			esac
			id=$(readelf -n "$path" 2>/dev/null | awk '/Build ID/ { print $3; exit }')
			dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
			if [ -n "$id" ] && [ -f "$dbg" ]; then
				mkdir -p "$(dirname "$symfs$dbg")"
				objcopy --strip-debug "$dbg" "$symfs$dbg"
			fi
		done
	# perf reads JIT maps at their real path, even with --symfs: the test
	# puts this copy back in /tmp while it runs.
	for m in $(perf script -i "$out/perf.data" -F ip,dso 2>/dev/null | grep -o '/tmp/perf-[0-9]*\.map' | sort -u); do
		cp "$m" "$out/"
	done
	# The kernel symbols around each sampled kernel address, and the
	# reference symbol perf relocates by.
	perf script -i "$out/perf.data" -F ip 2>/dev/null | awk '{ print $1 }' | python3 -c '
import sys, bisect
want = sorted({int(l, 16) for l in sys.stdin if l.strip() and int(l, 16) >= 0xffff800000000000})
syms = []
for line in open("/proc/kallsyms"):
    f = line.split()
    if len(f) >= 3 and "\t[" not in line:
        syms.append((int(f[0], 16), line))
syms.sort(key=lambda s: s[0])
starts = [s[0] for s in syms]
keep = set()
for a in want:
    i = bisect.bisect_right(starts, a) - 1
    for j in (i, i + 1):
        if 0 <= j < len(syms): keep.add(j)
for i, (a, line) in enumerate(syms):
    if i in keep or line.split()[2] in ("_text", "_stext"): sys.stdout.write(line)
' >"$out/kallsyms"
	perf script -i "$out/perf.data" -F +pid ${scriptargs[$n]:-} --symfs "$symfs" --kallsyms "$out/kallsyms" 2>/dev/null | gzip -9n >"$out/perf-script.txt.gz"
	echo "$n: $(stat -c %s "$out/perf.data") bytes, $(wc -l <"$out/kallsyms") kernel symbols"
done
