// Compares builds of the WebAssembly module by speed, in one process and alternating, so
// that a busy machine slows them alike: the separate-.wasm link (gpu_credit_ledger.mjs +
// gpu_credit_ledger.wasm) of each directory given, loaded through the package's classes.
//   node bench/module_speed.mjs DIR [DIR ...] [--events N] [--rounds R]
// Workload: N calls of the seed-scale mixed workload's shape (bench/cold_start.mjs), best
// of R rounds per build, one call per event and through applyBatch.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runFactory } from '../lib/instantiate.js';
import { makeApi } from '../lib/ledger.js';
import { mixedCalls } from './generators.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  args.splice(at, 2);
  return value;
};
const events = option('--events', 1e5);
const rounds = option('--rounds', 5);
if (args.length === 0) throw new Error('usage: node bench/module_speed.mjs DIR [DIR ...] [--events N] [--rounds R]');

async function load(dir) {
  const glue = await import(pathToFileURL(resolve(dir, 'gpu_credit_ledger.mjs')).href);
  const bytes = readFileSync(resolve(dir, 'gpu_credit_ledger.wasm'));
  return makeApi(await runFactory(glue.default, (imports) => WebAssembly.instantiate(bytes, imports)));
}

const { calls } = mixedCalls(events, 4);
const writes = calls.filter((c) => c.kind !== 'balance');
const builds = [];
for (const dir of args) builds.push({ dir, api: await load(dir), single: Infinity, batch: Infinity, answer: null });

for (let round = 0; round < rounds; round++) {
  for (const build of builds) {
    const { GPULedger } = build.api;
    let start = performance.now();
    const ledger = new GPULedger();
    let accepted = 0;
    let sum = 0;
    for (const c of calls) {
      if (c.kind === 'grant') ledger.addGrant(c.grantId, c.amount, c.startTime, c.endTime);
      else if (c.kind === 'consume') accepted += ledger.consume(c.eventId, c.amount, c.timestamp) ? 1 : 0;
      else sum += ledger.getBalance(c.at);
    }
    build.single = Math.min(build.single, performance.now() - start);
    ledger.dispose();
    start = performance.now();
    const batched = new GPULedger();
    const results = batched.applyBatch(writes);
    build.batch = Math.min(build.batch, performance.now() - start);
    batched.dispose();
    const answer = `${accepted}/${sum}/${results.filter((r) => r === true).length}`;
    if (build.answer !== null && build.answer !== answer) throw new Error(`${build.dir}: answers differ between rounds`);
    build.answer = answer;
  }
}
if (new Set(builds.map((b) => b.answer)).size !== 1) throw new Error('module_speed: the builds disagree');
console.log(`${events} mixed calls, best of ${rounds} rounds, builds alternating (ms)`);
for (const b of builds) {
  console.log(`${b.dir.padEnd(40)} one call per event ${b.single.toFixed(1).padStart(8)}   applyBatch ${b.batch.toFixed(1).padStart(8)}`);
}
