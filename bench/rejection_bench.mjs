// Rejection half of `npm run bench`: the chain of docs/algorithms.md, fact 8, through the
// package. n unit grants g_i on [i, i + 1], consumptions of 1 at i + 1 (each drains g_i),
// and one large grant starting after the chain for in-order writes. A backdated
// consumption of 1 at time 0 passes the balance check but would push every consumption of
// the chain onto the next grant: it is rejected (WOULD_UNFUND, blocked by the one at n).
// Timed per call: the first, retries (median and slowest of 20), retries each after an
// in-order consumption, retries each after a grant for the future (starting after every
// consumption), retries each after the chain grows by a link (a unit grant from the latest
// consumption's time, then an in-order consumption), and the same for tryConsume dry runs,
// on a fresh ledger each.
//   node bench/rejection_bench.mjs [--quick] [--before DIR]
// --quick stops at n = 10^4; --before DIR runs the same against the package in DIR (a
// checkout of an earlier commit with its dist/ built) first, for a before/after table.
import { GPULedger } from 'gpu-credit-ledger';
import { builds, fmt, median, ms, pad, quick } from './before-after.mjs';

const sizes = quick ? [1e3, 1e4] : [1e3, 1e4, 1e5];
const RETRIES = 20;

function chain(Ledger, n) {
  const ledger = new Ledger();
  for (let i = 0; i < n; i++) ledger.addGrant(`g${i}`, 1, i, i + 1);
  ledger.addGrant('later', 10 ** 9, n + 1, 100 * n);
  for (let i = 0; i < n; i++) {
    if (!ledger.consume(`c${i}`, 1, i + 1)) throw new Error('bench: the chain was rejected');
  }
  return ledger;
}

function measure(Ledger, n) {
  const out = {};
  let head = n + 1;
  const inOrder = (ledger) => {
    if (!ledger.consume(`w${head}`, 1, head)) throw new Error('bench: an in-order write was rejected');
    head += 1;
  };
  const reject = (ledger) => {
    const start = process.hrtime.bigint();
    const accepted = ledger.consume('x', 1, 0);
    const time = ms(start);
    if (accepted) throw new Error('bench: the backdated call was accepted');
    return time;
  };
  const dryRun = (ledger) => {
    const start = process.hrtime.bigint();
    const result = ledger.tryConsume('x', 1, 0, { dryRun: true });
    const time = ms(start);
    if (result.accepted || result.reason !== 'WOULD_UNFUND' || result.blockingEventId !== `c${n - 1}`) {
      throw new Error(`bench: tryConsume answered ${JSON.stringify(result)}`);
    }
    return time;
  };
  for (const [name, call] of [
    ['consume', reject],
    ['tryConsume', dryRun],
  ]) {
    const ledger = chain(Ledger, n);
    out[`${name} first`] = call(ledger);
    const retries = Array.from({ length: RETRIES }, () => call(ledger));
    out[`${name} retry`] = median(retries);
    out[`${name} retry max`] = Math.max(...retries);
    out[`${name} after write`] = median(
      Array.from({ length: RETRIES }, () => {
        inOrder(ledger);
        return call(ledger);
      }),
    );
    out[`${name} after grant`] = median(
      Array.from({ length: RETRIES }, (_, k) => {
        ledger.addGrant(`f${k}`, 1, 50 * n + k, 60 * n); // credit for the future
        return call(ledger);
      }),
    );
    // The chain grows by a link: a unit grant from the latest consumption's time, then a
    // consumption after it. The grant lifts the bound of fact 18 by its credit each time.
    out[`${name} after growth`] = median(
      Array.from({ length: RETRIES }, (_, k) => {
        ledger.addGrant(`h${k}`, 1, head - 1, head);
        inOrder(ledger);
        return call(ledger);
      }),
    );
    ledger.dispose();
  }
  return out;
}

const runs = await builds(GPULedger, 'now');

console.log('\nA backdated call the chain rejects (fact 8), per call in ms');
console.log(
  `(median of ${RETRIES} for retries; each retry "after write" follows an in-order consume, ` +
    `"after grant" an addGrant starting after every consumption, "after growth" a unit grant ` +
    `from the latest consumption's time and an in-order consume)`,
);
const columns = ['first', 'retry', 'retry max', 'after write', 'after grant', 'after growth'];
console.log(`${'build'.padEnd(7)} ${'call'.padEnd(11)} ${pad('n', 7)} ${columns.map((c) => pad(c, 12)).join(' ')}`);
// One discarded round per build first, so that the code every path runs is compiled before
// the first timed call (V8 compiles WebAssembly functions lazily, on their first call).
for (const [, Ledger] of runs) measure(Ledger, 2000);
const results = {};
for (const n of sizes) {
  for (const [label, Ledger] of runs) {
    const figures = measure(Ledger, n);
    results[`${label} ${n}`] = figures;
    for (const name of ['consume', 'tryConsume']) {
      const cells = columns.map((c) => pad(fmt(figures[`${name} ${c}`]), 12)).join(' ');
      console.log(`${label.padEnd(7)} ${name.padEnd(11)} ${pad(n, 7)} ${cells}`);
    }
  }
}
if (runs.length > 1) {
  console.log('\nbefore / now (median retries)');
  for (const n of sizes) {
    const b = results[`before ${n}`];
    const a = results[`now ${n}`];
    const ratio = (key) => pad(`${(b[key] / a[key]).toFixed(0)}x`, 8);
    console.log(
      `${pad(n, 7)}  consume retry ${ratio('consume retry')}  after write ${ratio('consume after write')}` +
        `  after growth ${ratio('consume after growth')}` +
        `  tryConsume retry ${ratio('tryConsume retry')}  after write ${ratio('tryConsume after write')}` +
        `  after growth ${ratio('tryConsume after growth')}`,
    );
  }
}
