#!/usr/bin/env python3
"""Helpers of oracle.sh (see ../ORIGIN.md): standard input to standard output.

  oracle.py aggregate   folded stacks: identical stacks summed, sorted bytewise
  oracle.py column N    go tool pprof -raw text with each sample's values
                        replaced by two, value N and 0, so that
                        stackcollapse-go.pl (which folds the first of
                        exactly two values) folds value N
  oracle.py traces      go tool pprof -traces text as folded stacks,
                        aggregated: frames root first, "(inline)" dropped,
                        ';' in names made ':' as pfold makes it
"""
import re
import sys

out = sys.stdout.buffer


def aggregate(lines):
    sums = {}
    for line in lines:
        line = line.rstrip(b"\n")
        if not line:
            continue
        stack, _, count = line.rpartition(b" ")
        sums[stack] = sums.get(stack, 0) + int(count)
    for stack in sorted(sums):
        out.write(stack + b" " + str(sums[stack]).encode() + b"\n")


SAMPLE = re.compile(rb"^ *(-?[0-9]+(?: +-?[0-9]+)*):( .*)?$")


def column(n):
    section = None
    for line in sys.stdin.buffer:
        body = line.rstrip(b"\n")
        if body == b"Samples:":
            section = "samples"
        elif body == b"Locations":
            section = None
        elif section == "samples":
            m = SAMPLE.match(body)
            if m:
                vals = m.group(1).split()
                body = b" %10d %10d:%s" % (int(vals[n]), 0, m.group(2) or b"")
                line = body + b"\n"
        out.write(line)


SEP = b"-----------+-------------------------------------------------------"
FIRST = re.compile(rb"^ *(-?[0-9]+)([A-Za-z]*)   (.*)$")


def traces():
    stacks = []
    frames, value, inblock = None, None, False

    def flush():
        if frames:
            stacks.append(b";".join(reversed(frames)) + b" " + value + b"\n")

    for line in sys.stdin.buffer:
        line = line.rstrip(b"\n")
        if line == SEP:
            flush()
            frames, value, inblock = [], None, True
            continue
        if not inblock:
            continue  # the header: File, Type, Time...
        if value is None:
            m = FIRST.match(line)
            if not m:
                continue  # a label line
            value = m.group(1)
            name = m.group(3)
        else:
            if not line.startswith(b" " * 13):
                raise SystemExit("unexpected line in a trace: %r" % line)
            name = line[13:]
        if name.endswith(b" (inline)"):
            name = name[: -len(b" (inline)")]
        frames.append(name.replace(b";", b":"))
    flush()
    aggregate(stacks)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "aggregate":
        aggregate(sys.stdin.buffer)
    elif cmd == "column":
        column(int(sys.argv[2]))
    elif cmd == "traces":
        traces()
    else:
        raise SystemExit(__doc__)
