#!/usr/bin/env python3
"""Turn a real `perf script` dump of sched:sched_switch and sched:sched_wakeup
events (recorded with -g) into the dump the same recording would give on a
kernel with CONFIG_SCHEDSTATS, whose sched:sched_stat_sleep and
sched:sched_stat_blocked events stackcollapse-perf-sched.awk needs.

The kernel emits sched_stat_sleep (the task slept in state S) or
sched_stat_blocked (state D) when a sleeping task is enqueued again, in the
waker's context, as sched_wakeup is: "comm=WAKEE pid=PID delay=NS [ns]", the
delay being the time since the task switched out. So each sched_wakeup record
whose wakee last switched out in state S or D becomes that event, with the
wakeup's own header fields and callchain (the waker's stack) and the delay
measured from the recorded sched_switch; every other record is kept as is.

Usage: derive-stat.py < perf-script.txt > derived.txt
"""
import re
import sys

TIME = re.compile(r' (\d+)\.(\d+): ')
EVENT = re.compile(r'( +)sched:sched_wakeup: (.*)$')


def ns(header):
    m = TIME.search(header)
    if not m:
        return None
    sec, frac = m.group(1), (m.group(2) + '000000000')[:9]
    return int(sec) * 1000000000 + int(frac)


def field(text, name):
    m = re.search(r'(?:^| )' + name + r'=(\S+)', text)
    return m.group(1) if m else None


def main():
    out = sys.stdout
    slept = {}  # pid -> (switch-out time in ns, state)
    record = []
    for line in sys.stdin:
        if line.strip() == '' and record:
            emit(record, slept, out)
            record = []
            out.write(line)
            continue
        if line.strip() == '':
            out.write(line)
            continue
        record.append(line)
    if record:
        emit(record, slept, out)


def emit(record, slept, out):
    header = record[0]
    t = ns(header)
    if 'sched:sched_switch: ' in header:
        pid, state = field(header, 'prev_pid'), field(header, 'prev_state')
        if pid is not None and t is not None and state in ('S', 'D'):
            slept[pid] = (t, state)
        elif pid is not None:
            slept.pop(pid, None)
    else:
        m = EVENT.search(header.rstrip('\n'))
        if m and t is not None:
            comm, pid = field(m.group(2), 'comm'), field(m.group(2), 'pid')
            if pid in slept:
                t0, state = slept.pop(pid)
                name = 'sched:sched_stat_sleep' if state == 'S' else 'sched:sched_stat_blocked'
                width = len(m.group(1)) + len('sched:sched_wakeup')
                ev = name.rjust(width)
                if not ev.startswith(' '):
                    ev = ' ' + ev
                header = header[:m.start()] + ev + ': comm=%s pid=%s delay=%d [ns]\n' % (comm, pid, t - t0)
    out.write(header)
    out.writelines(record[1:])


main()
