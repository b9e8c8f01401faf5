// Cold start half of `npm run bench`: from before `import('gpu-credit-ledger')` to the
// first exact answer, in fresh Node processes (nothing compiled or cached beforehand).
//   node bench/cold_start.mjs [--runs N] [--before DIR] [--child-flags 'FLAG ...']
//   (default 5 processes per case)
// --before DIR (or GCL_BENCH_BEFORE=DIR): the same cases against the package in DIR too (a
// checkout of an earlier commit with its dist/ built), a process of each build in turn,
// so that both see the same machine; one row per build and the ratio of the medians. Both
// are then loaded by file path (without --before: by the package's name, as users do).
// (a) 2,000 calls: import, then the seed-scale mixed workload (20% grants, 70%
//     consumptions with one in ten backdated, 10% balance queries; built in the child from
//     a fixed seed before the clock starts), then getBalance.
// (b) 10^5 events: import, then GPULedger.fromJSON of a snapshot written to disk by this
//     process beforehand, then getBalance. The child reads and parses the file before the
//     clock starts (that time is printed apart, as "parse").
// Each child prints its breakdown: module = evaluating the module (the JavaScript, the
// inlined binary as text), load = decoding, compiling and instantiating the WebAssembly
// and registering its classes (loadLedger), work = the calls or fromJSON, answer = the
// first getBalance; total = all of these, what the targets are about. On a machine others
// share, wall-clock times move by 2x; "cpu" is the main thread's own time on a CPU over
// the same span (Linux: /proc schedstat; absent elsewhere), which other processes move far less.
// --child-flags: Node or V8 flags for every child, space-separated (e.g. '--v8-pool-size=1',
// one worker thread for V8's background compilation: docs/performance.md, *Cold start*).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mixedCalls, snapshotOf } from './generators.mjs';

const here = fileURLToPath(import.meta.url);

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4], process.argv[5]);
} else {
  parent();
}

// `dir`: a package directory to load instead of this one ('' for this package).
async function child(kind, file, dir) {
  const { readFileSync } = await import('node:fs');
  // An entry of the package in `dir` by the file its exports map names (ES module import).
  const entryFile = (name) => {
    const target = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).exports[name === 'index' ? '.' : `./${name}`];
    const esm = target.import ?? target.default ?? target;
    return join(dir, typeof esm === 'string' ? esm : esm.default);
  };
  const entry = (name) => (dir ? pathToFileURL(entryFile(name)).href : `gpu-credit-ledger${name === 'index' ? '' : `/${name}`}`);
  let prepared;
  let parse = 0;
  if (kind === 'calls') {
    prepared = mixedCalls(2000, 1);
  } else {
    const p0 = performance.now();
    prepared = JSON.parse(readFileSync(file, 'utf8'));
    parse = performance.now() - p0;
  }
  // The main thread's time on a CPU so far, in ms (Linux), else NaN.
  const cpu = () => {
    try {
      return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      return NaN;
    }
  };
  // Minor page faults of the process so far: memory touched for the first time (on some
  // virtual machines a fault costs tens of microseconds; bench/page_faults.mjs).
  const faults = () => process.resourceUsage().minorPageFault;
  const f0 = faults();
  const c0 = cpu();
  const t0 = performance.now();
  const load = await import(entry('load'));
  const t1 = performance.now();
  const c1 = cpu();
  const f1 = faults();
  const { GPULedger } = await load.loadLedger();
  const t2 = performance.now();
  const c2 = cpu();
  const f2 = faults();
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
  const c3 = cpu();
  const f3 = faults();
  const balance = ledger.getBalance(at);
  const t4 = performance.now();
  const c4 = cpu();
  const f4 = faults();
  // The main entry must be the same module instance (it awaits the same loadLedger).
  const main = await import(entry('index'));
  if (main.GPULedger !== GPULedger) throw new Error('cold_start: two module instances');
  console.log(
    JSON.stringify({
      module: t1 - t0,
      load: t2 - t1,
      work: t3 - t2,
      answer: t4 - t3,
      total: t4 - t0,
      parse,
      balance,
      cpu: { module: c1 - c0, load: c2 - c1, work: c3 - c2, answer: c4 - c3, total: c4 - c0 },
      faults: { module: f1 - f0, load: f2 - f1, work: f3 - f2, answer: f4 - f3, total: f4 - f0 },
    }),
  );
}

function parent() {
  const runsAt = process.argv.indexOf('--runs');
  const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 5;
  const beforeAt = process.argv.indexOf('--before');
  const beforeDir = beforeAt > 0 ? process.argv[beforeAt + 1] : process.env.GCL_BENCH_BEFORE;
  const flagsAt = process.argv.indexOf('--child-flags');
  const childFlags = flagsAt > 0 ? process.argv[flagsAt + 1].split(' ').filter(Boolean) : [];
  // Both builds by the same route when compared (a file path: resolving the package's
  // name through its exports map costs the loader a few ms more).
  const builds = beforeDir
    ? [
        ['before', beforeDir],
        ['now', fileURLToPath(new URL('..', import.meta.url))],
      ]
    : [['', '']];
  const dir = mkdtempSync(join(tmpdir(), 'gcl-cold-'));
  const snapshotFile = join(dir, 'snapshot-1e5.json');
  writeFileSync(snapshotFile, JSON.stringify(snapshotOf(1e5)));
  const cases = [
    ['2,000 calls', 'calls'],
    ['fromJSON 10^5 events', 'snapshot'],
  ];
  const fields = ['module', 'load', 'work', 'answer', 'total', 'parse'];
  const cpuFields = ['module', 'load', 'work', 'answer', 'total'];
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`\nCold start, ${runs} fresh Node ${process.version} processes per case: median (min-max) ms`);
  if (beforeDir) console.log(`before = ${beforeDir}, now = this package`);
  if (childFlags.length > 0) console.log(`each process runs with ${childFlags.join(' ')}`);
  console.log(`${'case'.padEnd(34)} ${fields.map((f) => f.padStart(18)).join(' ')}`);
  try {
    for (const [name, kind] of cases) {
      const samples = builds.map(() => []);
      for (let i = 0; i < runs; i++) {
        builds.forEach(([, dir], b) => {
          const out = spawnSync(process.execPath, [...childFlags, here, '--child', kind, snapshotFile, dir], {
            encoding: 'utf8',
          });
          if (out.status !== 0) throw new Error(`cold_start child failed:\n${out.stderr}`);
          samples[b].push(JSON.parse(out.stdout.trim().split('\n').at(-1)));
        });
      }
      if (new Set(samples.flat().map((s) => s.balance)).size !== 1) throw new Error('cold_start: runs disagree on the balance');
      const rows = (label, names, value) => {
        builds.forEach(([build], b) => {
          const cell = (f) => {
            const values = samples[b].map((s) => value(s, f));
            return `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)})`.padStart(18);
          };
          console.log(`${[name, build, label].filter(Boolean).join(', ').padEnd(34)} ${names.map(cell).join(' ')}`);
        });
        if (builds.length === 2) {
          const ratio = (f) => (median(samples[1].map((s) => value(s, f))) / median(samples[0].map((s) => value(s, f)))).toFixed(2);
          console.log(
            `${[name, 'now/before', label].filter(Boolean).join(', ').padEnd(34)} ${names.map((f) => `${ratio(f)}x`.padStart(18)).join(' ')}`,
          );
        }
      };
      rows('', fields, (s, f) => s[f]);
      rows('cpu', cpuFields, (s, f) => s.cpu[f]);
      rows('page faults', cpuFields, (s, f) => s.faults[f]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('total = module + load + work + answer (parse, case b only, is before the clock starts);');
  console.log('"cpu" rows: the main thread\'s time on a CPU in each part (Linux; NaN elsewhere);');
  console.log('"page faults" rows: the process\'s minor page faults in each part (memory touched first)');
}
