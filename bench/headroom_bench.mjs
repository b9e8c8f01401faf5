// Headroom after a write, part of `npm run bench`: a consumption at the head of a ledger
// loaded from the mixed workload's snapshot, then headroom(t) at a time before it (the
// case a preview asks after each write; at or after the latest consumption the balance
// answers, fact 7 of docs/algorithms.md). Per pair, median of 21 pairs, for t at the
// latest consumption, 1% of the history back and half-way back (times that move with the
// writes), 10% from the start and half-way at a fixed time (a preview of one moment, as a
// billing period's start), and for one write followed by 10 queries spread over the history.
//   node bench/headroom_bench.mjs [--quick] [--before DIR]
// --quick leaves out 10^6; --before DIR (or GCL_BENCH_BEFORE=DIR) runs the same against
// the package in DIR (an earlier checkout with its dist/ built) too, alternating.
import { GPULedger } from 'gpu-credit-ledger';
import { builds, fmt, median, ms, pad, quick } from './before-after.mjs';
import { snapshotOf } from './generators.mjs';

const sizes = quick ? [1e4, 1e5] : [1e4, 1e5, 1e6];
const PAIRS = 21;
const runs = await builds(GPULedger, 'now');

// Per pair in ms: each column's query time as a function of the write's time `t`.
const columns = [
  ['t = latest', (t) => t],
  ['1% back', (t, n) => t - Math.ceil(n / 100)],
  ['half-way', (t, n) => t - Math.floor(n / 2)],
  ['10% in', (t, n) => Math.floor(n / 10)],
  ['half-way, fixed', (t, n) => Math.floor(n / 2)],
];

function measure(Ledger, n) {
  const ledger = Ledger.fromJSON(snapshotOf(n));
  // The workload's times run up to about n; writes go after it, funded by one grant.
  let next = n + 10;
  ledger.addGrant(`gw${n}`, 10 ** 9, next, 100 * n);
  const write = () => {
    const t = next++;
    if (!ledger.consume(`w${t}`, 1, t)) throw new Error('bench: the write was rejected');
    return t;
  };
  const out = {};
  for (const [name, at] of columns) {
    const times = [];
    for (let i = 0; i < PAIRS; i++) {
      const start = process.hrtime.bigint();
      const t = write();
      const answer = ledger.headroom(at(t, n));
      times.push(ms(start));
      if (!(answer >= 0)) throw new Error('bench: headroom');
    }
    out[name] = median(times);
  }
  const spread = [];
  for (let i = 0; i < PAIRS; i++) {
    const start = process.hrtime.bigint();
    const t = write();
    for (let k = 1; k <= 10; k++) ledger.headroom(Math.floor((t * k) / 11));
    spread.push(ms(start));
  }
  out['1 write + 10 queries'] = median(spread);
  ledger.dispose();
  return out;
}

console.log(`\nA consume at the head, then headroom(t), per pair in ms (median of ${PAIRS})`);
const names = [...columns.map(([name]) => name), '1 write + 10 queries'];
console.log(`${'build'.padEnd(7)} ${pad('events', 8)} ${names.map((c) => pad(c, 21)).join('')}`);
for (const [, Ledger] of runs) measure(Ledger, 2000); // compile what every path runs first
for (const n of sizes) {
  for (const [label, Ledger] of runs) {
    const figures = measure(Ledger, n);
    console.log(`${label.padEnd(7)} ${pad(n, 8)} ${names.map((c) => pad(fmt(figures[c]), 21)).join('')}`);
  }
}
