// Cold start half of `npm run bench`: from before `import('gpu-credit-ledger')` to the
// first exact answer, in fresh Node processes (nothing compiled or cached beforehand).
//   node bench/cold_start.mjs [--runs N]      (default 5 processes per case)
// (a) 2,000 calls: import, then the seed-scale mixed workload (20% grants, 70%
//     consumptions with one in ten backdated, 10% balance queries; built in the child from
//     a fixed seed before the clock starts), then getBalance.
// (b) 10^5 events: import, then GPULedger.fromJSON of a snapshot written to disk by this
//     process beforehand, then getBalance. The child reads and parses the file before the
//     clock starts (that time is printed apart, as "parse").
// Each child prints its breakdown: module = evaluating the module (the JavaScript, the
// inlined binary as text), load = decoding, compiling and instantiating the WebAssembly
// and registering its classes (loadLedger), work = the calls or fromJSON, answer = the
// first getBalance; total = all of these, what the targets are about.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mixedCalls, snapshotOf } from './generators.mjs';

const here = fileURLToPath(import.meta.url);

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4]);
} else {
  parent();
}

async function child(kind, file) {
  const { readFileSync } = await import('node:fs');
  let prepared;
  let parse = 0;
  if (kind === 'calls') {
    prepared = mixedCalls(2000, 1);
  } else {
    const p0 = performance.now();
    prepared = JSON.parse(readFileSync(file, 'utf8'));
    parse = performance.now() - p0;
  }
  const t0 = performance.now();
  const load = await import('gpu-credit-ledger/load');
  const t1 = performance.now();
  const { GPULedger } = await load.loadLedger();
  const t2 = performance.now();
  let ledger;
  let at;
  if (kind === 'calls') {
    ledger = new GPULedger();
    for (const call of prepared.calls) {
      if (call.kind === 'grant') ledger.addGrant(call.grantId, call.amount, call.startTime, call.endTime);
      else if (call.kind === 'consume') ledger.consume(call.eventId, call.amount, call.timestamp);
      else ledger.getBalance(call.at);
    }
    at = prepared.end;
  } else {
    ledger = GPULedger.fromJSON(prepared);
    at = prepared.consumptions.at(-1).timestamp;
  }
  const t3 = performance.now();
  const balance = ledger.getBalance(at);
  const t4 = performance.now();
  // The main entry must be the same module instance (it awaits the same loadLedger).
  const main = await import('gpu-credit-ledger');
  if (main.GPULedger !== GPULedger) throw new Error('cold_start: two module instances');
  console.log(JSON.stringify({ module: t1 - t0, load: t2 - t1, work: t3 - t2, answer: t4 - t3, total: t4 - t0, parse, balance }));
}

function parent() {
  const runsAt = process.argv.indexOf('--runs');
  const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 5;
  const dir = mkdtempSync(join(tmpdir(), 'gcl-cold-'));
  const snapshotFile = join(dir, 'snapshot-1e5.json');
  writeFileSync(snapshotFile, JSON.stringify(snapshotOf(1e5)));
  const cases = [
    ['2,000 calls', 'calls'],
    ['fromJSON 10^5 events', 'snapshot'],
  ];
  const fields = ['module', 'load', 'work', 'answer', 'total', 'parse'];
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`\nCold start, ${runs} fresh Node ${process.version} processes per case: median (min-max) ms`);
  console.log(`${'case'.padEnd(22)} ${fields.map((f) => f.padStart(18)).join(' ')}`);
  try {
    for (const [name, kind] of cases) {
      const samples = [];
      for (let i = 0; i < runs; i++) {
        const out = spawnSync(process.execPath, [here, '--child', kind, snapshotFile], { encoding: 'utf8' });
        if (out.status !== 0) throw new Error(`cold_start child failed:\n${out.stderr}`);
        samples.push(JSON.parse(out.stdout.trim().split('\n').at(-1)));
      }
      if (new Set(samples.map((s) => s.balance)).size !== 1) throw new Error('cold_start: runs disagree on the balance');
      const cell = (f) => {
        const values = samples.map((s) => s[f]);
        return `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)})`.padStart(18);
      };
      console.log(`${name.padEnd(22)} ${fields.map(cell).join(' ')}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('total = module + load + work + answer (parse, case b only, is before the clock starts)');
}
