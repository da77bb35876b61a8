import sys
out = sys.stdout
def pr(node, depth, total, prev):
    name, image, count, kids = node
    if depth > 0: out.write(' ' * depth)
    out.write('100.0% ' if count == total else '%05.2f%% ' % (100.0 * count / total))
    s = ' [%d] ' % count
    out.write(s + ' ' * max(0, 12 - len(s)))
    if depth > 0: out.write(' ' * depth)
    out.write(name)
    if prev[0] != image:
        prev[0] = image
        out.write(' @ %s\n' % image)
    else:
        out.write('\n')
    for k in sorted(kids, key=lambda k: -k[2]):
        pr(k, depth + 1, count, prev)
K, C, W = '/boot/kernel/kernel', '/lib/libc.so.7', '/usr/local/bin/workload'
def chain(names, image, count):
    node = None
    for n in reversed(names):
        node = (n, image, count, [node] if node else [])
    return node
sections = [
 ('INSTR_RETIRED_ANY', [
  ('witness_unlock', K, 17, [
     ('__mtx_unlock_flags', K, 12, [
        chain(['selfdfree', 'sys_poll', 'amd64_syscall'], K, 10),
        chain(['pmap_ts_referenced', 'vm_pageout_scan', 'vm_pageout', 'fork_exit'], K, 2)]),
     chain(['_sx_xunlock', 'vm_map_lookup_done', 'vm_fault', 'trap_pfault', 'trap'], K, 3)]),
  ('memcpy', C, 12, [
     ('fill_buf', W, 9, [('main', W, 9, [('__libc_start1', C, 9, [('_start', W, 9, [])])])]),
     ('0x800a3b120', C, 2, [])]),
  chain(['sched_idletd', 'fork_exit'], K, 11)]),
 ('CPU_CLK_UNHALTED_CORE', [
  chain(['bzero', 'vm_page_grab', 'vm_fault', 'trap_pfault', 'trap'], K, 3),
  chain(['witness_unlock', '__mtx_unlock_flags', 'selfdfree', 'sys_poll', 'amd64_syscall'], K, 2)]),
]
for ev, trees in sections:
    total = sum(t[2] for t in trees)
    out.write('@ %s [%d samples]\n\n' % (ev, total))
    for t in sorted(trees, key=lambda t: -t[2]):
        pr(t, 0, total, [None])
        out.write('\n')
