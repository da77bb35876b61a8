#!/usr/bin/env python3
"""Print the stacks of a bpftrace recording as FreeBSD's `pmcstat -G` prints a
callgraph (usr.sbin/pmcstat/pmcpl_callgraph.c, pmcstat_cgnode_print): one
tree per sampled function, its callers below it, each line
"<depth spaces>NN.NN%  [count]<pad to 12><depth spaces>name[ @ image]",
children sorted by count, the image printed when it changes, a blank line
after each tree, under "@ EVENT [N samples]". Callchains are cut at the
capture depth (-z, 16 by default) as pmcstat cuts them.

Usage: pmcgraph.py EVENT IMAGE bpftrace-output > graph.txt"""
import re
import sys

event, image, path = sys.argv[1], sys.argv[2], sys.argv[3]
DEPTH = 16
samples = []  # (leaf-first frames, count)
frames = []
for line in open(path):
    line = line.rstrip('\n')
    if line.startswith('@'):
        frames = []
        rest = line[line.index('[') + 1:]
        m = re.match(r'^(.*)\]: (\d+)$', rest)
        if m:
            frames = []
            if m.group(1):
                continue
        continue
    m = re.match(r'^\s+(\S+?)(\+\d+)?$', line)
    if m:
        frames.append(m.group(1))
        continue
    m = re.match(r'^.*\]: (\d+)$', line)
    if m and frames:
        samples.append((frames[:DEPTH], int(m.group(1))))
        frames = []


class Node:
    def __init__(self, name):
        self.name, self.count, self.children, self.order = name, 0, {}, []


top = {}
for fr, c in samples:
    node = top.setdefault(fr[0], Node(fr[0]))
    node.count += c
    for f in fr[1:]:
        if f not in node.children:
            node.children[f] = Node(f)
            node.order.append(f)
        node = node.children[f]
        node.count += c

out = sys.stdout
prev_image = None


def pr(cg, depth, total):
    global prev_image
    if depth > 0:
        out.write(' ' * depth)
    if cg.count == total:
        out.write('100.0% ')
    else:
        out.write('%05.2f%% ' % (100.0 * cg.count / total))
    s = ' [%d] ' % cg.count
    out.write(s)
    if len(s) < 12:
        out.write(' ' * (12 - len(s)))
    if depth > 0:
        out.write(' ' * depth)
    out.write(cg.name)
    if prev_image != image:
        prev_image = image
        out.write(' @ %s\n' % image)
    else:
        out.write('\n')
    kids = sorted(cg.children.values(), key=lambda k: -k.count)
    for k in kids:
        pr(k, depth + 1, cg.count)


nsamples = sum(n.count for n in top.values())
out.write('@ %s [%d samples]\n\n' % (event, nsamples))
for n in sorted(top.values(), key=lambda k: -k.count):
    prev_image = None
    pr(n, 0, nsamples)
    out.write('\n')
