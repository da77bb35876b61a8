import random, sys
r = random.Random(int(sys.argv[1]))
comms = ['tracework', 'kworker/0:1', 'Web Content', 'sh', ' lead', 'pid=9', 'x']
pids = ['0', '12', '13', '14', '00', '', '15/15', '13/13']
syms = ['__schedule+0x618', 'schedule', 'do_nanosleep', '[unknown]', 'f(int, char)', 'a  b', '']
out = []
for _ in range(r.randint(1, 40)):
    kind = r.choice(['switch', 'switch', 'sleep', 'blocked', 'wakeup', 'cpu', 'comment'])
    comm = r.choice(comms); pid = r.choice(pids[1:5])
    hdr_pid = r.choice([pid, pid + '/' + pid, '13', '12'])
    ts = r.choice(['%d.%06d:' % (r.randint(1, 999), r.randint(0, 999999)), 'notime'])
    lead = r.choice(['', '', ' ', '\t'])
    if kind == 'switch':
        hdr = '%s%s %s [001] %s sched:sched_switch: prev_comm=%s prev_pid=%s prev_prio=120 prev_state=%s ==> next_comm=x next_pid=1' % (lead, comm, hdr_pid, ts, comm, r.choice(pids), r.choice('SDR'))
    elif kind in ('sleep', 'blocked'):
        hdr = '%s%s %s [000] %s sched:sched_stat_%s: comm=%s pid=%s delay=%s [ns]' % (lead, comm, hdr_pid, ts, kind, r.choice(comms).strip(), r.choice(pids), r.choice(['1000', '2500000', '999', '-3000', 'abc', '1e6', '12x']))
    elif kind == 'wakeup':
        hdr = '%s %s [000] %s sched:sched_wakeup: comm=%s pid=%s' % (comm, hdr_pid, ts, comm, pid)
    elif kind == 'cpu':
        hdr = '%s %s %s cpu-clock:' % (comm, hdr_pid, ts)
    else:
        hdr = '# sched:sched_switch prev_pid=12'
    out.append(hdr)
    for _ in range(r.randint(0, 5)):
        out.append('\t%s %s (%s)' % (r.choice(['ffffffff81', '7f00', '']), r.choice(syms), r.choice(['[kernel.kallsyms]', '/usr/lib/libc.so.6'])) if r.random() < 0.9 else r.choice(['\t', ' x', '    ffff']))
    if r.random() < 0.9:
        out.append('')
sys.stdout.write('\n'.join(out) + '\n')
