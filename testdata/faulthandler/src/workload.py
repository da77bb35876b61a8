"""A small threaded Python workload whose stacks faulthandler dumps.

Run: python3 workload.py MODE OUT [SECONDS] [INTERVAL]
MODE "later": faulthandler.dump_traceback_later(INTERVAL, repeat=True,
file=OUT) writes every thread's stack to OUT every INTERVAL seconds (from
faulthandler's watchdog thread, so no thread is "Current thread").
MODE "signal": faulthandler.register(SIGALRM, file=OUT, all_threads=True)
with an interval timer: the thread the signal interrupts is marked
"Current thread". MODE "current": the same with all_threads=False, which
dumps only that thread under "Stack (most recent call first):".
The threads:
a recursive CPU loop, a worker pool on a queue, a thread blocked on a
lock, a deep recursion (more than faulthandler's 100 frames), and a
function with a non-ASCII name.
"""
import faulthandler
import queue
import signal
import sys
import threading
import time

import shapes


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def spin(stop):
    while not stop.is_set():
        fib(18)


def deep(n, stop):
    if n == 0:
        while not stop.is_set():
            sum(i * i for i in range(2000))
        return
    deep(n - 1, stop)


def worker(q, out):
    while True:
        item = q.get()
        if item is None:
            return
        out.append(shapes.area(item))


def feeder(q, stop):
    i = 0
    while not stop.is_set():
        q.put(shapes.make(i))
        i += 1
        if i % 500 == 0:
            time.sleep(0.001)


def waiter(lock):
    with lock:
        pass


def größe(stop):
    while not stop.is_set():
        sorted(str(i) for i in range(3000))


def main():
    mode, out_path = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0
    interval = float(sys.argv[4]) if len(sys.argv) > 4 else 0.05
    stop = threading.Event()
    lock = threading.Lock()
    lock.acquire()
    q = queue.Queue(maxsize=1000)
    results = []
    threads = [
        threading.Thread(target=spin, args=(stop,), name="spin"),
        threading.Thread(target=deep, args=(120, stop), name="deep"),
        threading.Thread(target=worker, args=(q, results), name="worker-1"),
        threading.Thread(target=worker, args=(q, results), name="worker-2"),
        threading.Thread(target=feeder, args=(q, stop), name="feeder"),
        threading.Thread(target=waiter, args=(lock,), name="waiter"),
        threading.Thread(target=größe, args=(stop,), name="größe"),
    ]
    with open(out_path, "w") as out:
        if mode == "later":
            faulthandler.dump_traceback_later(interval, repeat=True, file=out)
        else:
            faulthandler.register(signal.SIGALRM, file=out, all_threads=(mode == "signal"))
            signal.setitimer(signal.ITIMER_REAL, interval, interval)
        for t in threads:
            t.start()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            fib(15)
        if mode == "later":
            faulthandler.cancel_dump_traceback_later()
        else:
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
            faulthandler.unregister(signal.SIGALRM)
        stop.set()
        lock.release()
        for _ in range(2):
            q.put(None)
        for t in threads:
            t.join()


if __name__ == "__main__":
    main()
