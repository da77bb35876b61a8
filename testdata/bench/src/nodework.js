// nodework: a node workload (JSON, regexps, sorting, closures) run with
// --perf-basic-prof so perf resolves JIT frames through /tmp/perf-PID.map.
function makeRecords(n, seed) {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push({ id: i, name: 'user' + Math.floor(rnd() * 1000), score: rnd() * 100,
               tags: ['a', 'b', 'c'].filter(() => rnd() > 0.5) });
  }
  return out;
}
function summarize(records) {
  const byName = new Map();
  for (const r of records) {
    const e = byName.get(r.name) || { n: 0, total: 0 };
    e.n++; e.total += r.score;
    byName.set(r.name, e);
  }
  return [...byName.entries()].sort((a, b) => b[1].total - a[1].total).slice(0, 10);
}
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const deadline = Date.now() + Number(process.argv[2] || 3000);
let sink = 0;
while (Date.now() < deadline) {
  const recs = makeRecords(20000, sink & 0xffff);
  const text = JSON.stringify(recs);
  const back = JSON.parse(text);
  sink += summarize(back).length;
  sink += (text.match(/user9\d\d/g) || []).length;
  sink += fib(22);
}
console.log(sink);
