// Compares builds of the WebAssembly module by speed, in one process and alternating, so
// that a busy machine slows them alike: the separate-.wasm link (gpu_credit_ledger.wasm, and
// the Emscripten glue gpu_credit_ledger.mjs beside it in builds that have one) of each
// dist directory given, loaded through the package's classes of its own tree (DIR/../lib).
//   node bench/module_speed.mjs DIR [DIR ...] [--events N] [--rounds R] [--ops FILE ...] [--load N]
// Workload: N calls of the seed-scale mixed workload's shape (bench/cold_start.mjs), best
// of R rounds per build, one call per event and through applyBatch. Each --ops FILE adds a
// workload that the native bench wrote (build/bench/out/workload-K.ops after `npm run
// bench`; its names are in native.json there), replayed one call per event as
// bench/wasm_bench.mjs does (N = 0 leaves the mixed calls out). --headroom N: a ledger of
// N events (bench/load_bench.mjs's), then 30 times a consume at the head followed by
// headroom half-way back, which rebuilds the headroom index: ms per write. --load N: the N
// events of bench/load_bench.mjs through one applyBatch (a bulk load), ms.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { eventsOf, mixedCalls } from './generators.mjs';

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
const headroomEvents = option('--headroom', 0);
const loadEvents = option('--load', 0);
const opsFiles = [];
for (let at = args.indexOf('--ops'); at >= 0; at = args.indexOf('--ops')) opsFiles.push(...args.splice(at, 2).slice(1));
if (args.length === 0) throw new Error('usage: node bench/module_speed.mjs DIR [DIR ...] [--events N] [--rounds R]');

async function load(dir) {
  const lib = (name) => import(pathToFileURL(resolve(dir, '..', 'lib', name)).href);
  const { makeApi } = await lib('ledger.js');
  const loader = await lib('instantiate.js');
  const bytes = readFileSync(resolve(dir, 'gpu_credit_ledger.wasm'));
  const instantiate = (imports) => WebAssembly.instantiate(bytes, imports);
  if (loader.instantiateWasm) return makeApi(await loader.instantiateWasm(instantiate));
  const glue = await import(pathToFileURL(resolve(dir, 'gpu_credit_ledger.mjs')).href); // builds with embind's glue
  return makeApi(await loader.runFactory(glue.default, instantiate));
}

// The native bench's binary rows: kind (0 grant, 1 consume, 2 balance), id number, amount, a, b.
function loadOps(file) {
  const bytes = readFileSync(file);
  const rows = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const ops = [];
  for (let i = 0; i < rows.length; i += 5) {
    const kind = rows[i];
    ops.push({ kind, id: (kind === 0 ? 'g' : 'c') + rows[i + 1], amount: rows[i + 2], a: rows[i + 3], b: rows[i + 4] });
  }
  return ops;
}

function headroomAfterWrites(GPULedger, n) {
  const ledger = new GPULedger();
  ledger.applyBatch(eventsOf(n));
  const writes = 30;
  let sum = 0;
  const start = performance.now();
  for (let i = 0; i < writes; i++) {
    ledger.consume(`h${i}`, 1, n - 5);
    sum += ledger.headroom(n / 2 + i);
  }
  const ms = (performance.now() - start) / writes;
  ledger.dispose();
  return { ms, answer: String(sum) };
}

function bulkLoad(GPULedger, events) {
  const start = performance.now();
  const ledger = new GPULedger();
  const results = ledger.applyBatch(events);
  const ms = performance.now() - start;
  const answer = `${results.filter((r) => r === true).length}/${ledger.getBalance(events.length)}`;
  ledger.dispose();
  return { ms, answer };
}

function replay(GPULedger, ops) {
  const start = performance.now();
  const ledger = new GPULedger();
  let accepted = 0;
  let sum = 0;
  for (const op of ops) {
    if (op.kind === 0) ledger.addGrant(op.id, op.amount, op.a, op.b);
    else if (op.kind === 1) accepted += ledger.consume(op.id, op.amount, op.a) ? 1 : 0;
    else sum += ledger.getBalance(op.a);
  }
  const ms = performance.now() - start;
  ledger.dispose();
  return { ms, answer: `${accepted}/${sum}` };
}

const { calls } = mixedCalls(events, 4);
const writes = calls.filter((c) => c.kind !== 'balance');
const workloads = opsFiles.map((file) => ({ file, ops: loadOps(file) }));
const loadList = loadEvents > 0 ? eventsOf(loadEvents) : [];
const builds = [];
for (const dir of args) {
  const api = await load(dir);
  builds.push({
    dir,
    api,
    single: Infinity,
    batch: Infinity,
    answer: null,
    files: workloads.map(() => ({ ms: Infinity, answer: null })),
    headroom: { ms: Infinity, answer: null },
    load: { ms: Infinity, answer: null },
  });
}

for (let round = 0; round < rounds; round++) {
  for (const build of builds) {
    workloads.forEach((w, k) => {
      const { ms, answer } = replay(build.api.GPULedger, w.ops);
      const best = build.files[k];
      best.ms = Math.min(best.ms, ms);
      if (best.answer !== null && best.answer !== answer) throw new Error(`${build.dir}: answers differ between rounds on ${w.file}`);
      best.answer = answer;
    });
    if (headroomEvents > 0) {
      const { ms, answer } = headroomAfterWrites(build.api.GPULedger, headroomEvents);
      build.headroom.ms = Math.min(build.headroom.ms, ms);
      if (build.headroom.answer !== null && build.headroom.answer !== answer)
        throw new Error(`${build.dir}: headroom answers differ between rounds`);
      build.headroom.answer = answer;
    }
    if (loadEvents > 0) {
      const { ms, answer } = bulkLoad(build.api.GPULedger, loadList);
      build.load.ms = Math.min(build.load.ms, ms);
      if (build.load.answer !== null && build.load.answer !== answer) throw new Error(`${build.dir}: load answers differ between rounds`);
      build.load.answer = answer;
    }
    if (events === 0) continue;
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
workloads.forEach((w, k) => {
  if (new Set(builds.map((b) => b.files[k].answer)).size !== 1) throw new Error(`module_speed: the builds disagree on ${w.file}`);
});
if (new Set(builds.map((b) => b.headroom.answer)).size !== 1) throw new Error('module_speed: the builds disagree on headroom');
if (new Set(builds.map((b) => b.load.answer)).size !== 1) throw new Error('module_speed: the builds disagree on the load');
console.log(`best of ${rounds} rounds, builds alternating (ms)`);
for (const b of builds) {
  const mixed =
    events === 0
      ? ''
      : `${events} mixed: one call per event ${b.single.toFixed(1).padStart(8)}   applyBatch ${b.batch.toFixed(1).padStart(8)}`;
  const files = workloads.map((w, k) => `   ${w.file.replace(/^.*\//, '')} ${b.files[k].ms.toFixed(1).padStart(8)}`).join('');
  const headroom =
    headroomEvents === 0 ? '' : `   headroom after a write (${headroomEvents} events) ${b.headroom.ms.toFixed(2).padStart(7)}`;
  const load = loadEvents === 0 ? '' : `   applyBatch of ${loadEvents} load events ${b.load.ms.toFixed(1).padStart(8)}`;
  console.log(`${b.dir.padEnd(24)} ${mixed}${files}${headroom}${load}`);
}
