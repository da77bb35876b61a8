# pywork: a Python workload (dicts, sorting, regexps, json, recursion)
# recorded with perf record --call-graph dwarf for the pfold benchmark dumps.
import json, re, sys, time, collections

def make_records(n, seed):
    x = seed
    out = []
    for i in range(n):
        x = (x * 1103515245 + 12345) % 2147483648
        out.append({"id": i, "name": "user%d" % (x % 1000), "score": x % 10007 / 100.0})
    return out

def summarize(records):
    c = collections.Counter()
    for r in records:
        c[r["name"]] += r["score"]
    return sorted(c.items(), key=lambda kv: -kv[1])[:10]

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

deadline = time.time() + float(sys.argv[1] if len(sys.argv) > 1 else 3)
sink = 0
pat = re.compile(r"user9\d\d")
while time.time() < deadline:
    recs = make_records(20000, sink & 0xffff)
    text = json.dumps(recs)
    back = json.loads(text)
    sink += len(summarize(back)) + len(pat.findall(text)) + fib(18)
print(sink)
