'use strict';
// A workload for node --cpu-prof: recursion, closures, async code with
// timers and promises, and a module loaded with require().
const { mix, helpers, Table } = require('./lib/checksum');

function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// Mutual recursion.
function isEven(n) { return n === 0 ? true : isOdd(n - 1); }
function isOdd(n) { return n === 0 ? false : isEven(n - 1); }

function makeCounter(step) {
  let c = 0;
  return () => { c = mix(c, fib(step)); return c; };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function parseRound(table) {
  const text = table.serialise();
  await sleep(1);
  return JSON.parse(text).length;
}

async function main() {
  const inc = makeCounter(14);
  const table = new Table(2000);
  let s = 0;
  for (let round = 0; round < 25; round++) {
    const t0 = Date.now();
    while (Date.now() - t0 < 15) {
      s += inc();
      s += fib(17);
      s += isEven(500) ? 1 : 0;
      s += helpers.fold([1, 2, 3, 4, 5, 6, 7, 8]);
    }
    s += await parseRound(table);
    s += table.size;
    await sleep(3);
  }
  [3, 1, 2].sort((a, b) => a - b).forEach(function (v) { s += v; });
  return s;
}

main().then((s) => console.log(s));
