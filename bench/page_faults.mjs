// What memory costs the first time it is touched, on the machine that runs the benches.
// A WebAssembly memory only grows; the pages it grows by are mapped by the kernel on their
// first write (a page fault each). On an ordinary machine that costs well under a
// microsecond per 4 KiB page; in a virtual machine whose host backs guest memory lazily it
// can cost tens of microseconds, which makes the bytes a call touches for the first time a
// large part of its time. Prints, in fresh processes:
//   1. a WebAssembly.Memory grown by 64 MiB: its pages written once, then again;
//   2. the bulk load of bench/load_bench.mjs (applyBatch, 10^6 events; --quick: 10^5)
//      in a fresh process, then again in the same process after dispose(), when the
//      memory is already mapped: time and page faults (process.resourceUsage());
//   3. the same events in runs of 4,096, one applyBatch each (how the service replays a
//      log), in fresh processes, without and with reserveEvents(n) first.
//   node bench/page_faults.mjs [--quick]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const pad = (text, width) => String(text).padStart(width);
const faults = () => process.resourceUsage().minorPageFault;
const since = (start) => Number(process.hrtime.bigint() - start) / 1e6;

function touchMemory() {
  const mib = 64;
  const memory = new WebAssembly.Memory({ initial: 16, maximum: 16 + mib * 16 });
  memory.grow(mib * 16);
  const bytes = new Uint8Array(memory.buffer);
  const out = [];
  for (let pass = 0; pass < 2; pass++) {
    const f0 = faults();
    const start = process.hrtime.bigint();
    for (let i = 16 * 65536; i < bytes.length; i += 4096) bytes[i] = pass + 1;
    out.push({ ms: since(start), faults: faults() - f0, mib });
  }
  return out;
}

async function loadTwice(n) {
  const { GPULedger } = await import('gpu-credit-ledger');
  const { eventsOf } = await import('./generators.mjs');
  const events = eventsOf(n);
  const out = [];
  for (let pass = 0; pass < 2; pass++) {
    const f0 = faults();
    const start = process.hrtime.bigint();
    const ledger = new GPULedger();
    const results = ledger.applyBatch(events);
    const ms = since(start);
    if (results.length !== n) throw new Error('bench: applyBatch answered short');
    out.push({ ms, faults: faults() - f0, heap: GPULedger.wasmHeapBytes() });
    ledger.dispose();
  }
  return out;
}

// The service's replay of a log (server/ledger/customer-ledger.js): one applyBatch per run
// of 4,096 events, after reserveEvents(n) when `reserve` is set; one pass, in a fresh process.
async function loadInRuns(n, reserve) {
  const { GPULedger } = await import('gpu-credit-ledger');
  const { eventsOf } = await import('./generators.mjs');
  const events = eventsOf(n);
  const runs = [];
  for (let from = 0; from < n; from += 4096) runs.push(events.slice(from, from + 4096));
  const f0 = faults();
  const start = process.hrtime.bigint();
  const ledger = new GPULedger();
  if (reserve) ledger.reserveEvents(n);
  for (const run of runs) {
    if (ledger.applyBatch(run).some((result) => result !== true)) throw new Error('bench: applyBatch refused an event');
  }
  return { ms: since(start), faults: faults() - f0, heap: GPULedger.wasmHeapBytes() };
}

const child = process.argv[2];
if (child === '--child-touch') {
  process.stdout.write(JSON.stringify(touchMemory()));
} else if (child === '--child-load') {
  process.stdout.write(JSON.stringify(await loadTwice(Number(process.argv[3]))));
} else if (child === '--child-runs') {
  process.stdout.write(JSON.stringify(await loadInRuns(Number(process.argv[3]), process.argv[4] === 'reserve')));
} else {
  const quick = process.argv.includes('--quick');
  const run = (...args) => JSON.parse(execFileSync(process.execPath, [self, ...args], { encoding: 'utf8' }));
  console.log('\nFirst touch of memory (fresh processes; page faults from process.resourceUsage())');
  console.log(`${'what'.padEnd(52)} ${pad('ms', 9)} ${pad('faults', 8)} ${pad('us/fault', 9)}`);
  const row = (what, r) =>
    console.log(
      `${what.padEnd(52)} ${pad(r.ms.toFixed(1), 9)} ${pad(r.faults, 8)} ${pad(r.faults >= 1000 ? ((1e3 * r.ms) / r.faults).toFixed(1) : '', 9)}`,
    );
  for (let i = 0; i < 2; i++) {
    const [first, second] = run('--child-touch');
    row(`WebAssembly.Memory +${first.mib} MiB, first write per page`, first);
    row(`  the same pages written again`, second);
  }
  const n = quick ? 1e5 : 1e6;
  for (let i = 0; i < 2; i++) {
    const [first, second] = run('--child-load', String(n));
    row(`applyBatch ${n} events, fresh process (${(first.heap / 2 ** 20).toFixed(0)} MiB in use)`, first);
    row(`  again after dispose(), in the memory already mapped`, second);
  }
  for (let i = 0; i < 2; i++) {
    for (const reserve of ['', 'reserve']) {
      const r = run('--child-runs', String(n), reserve);
      row(`${reserve ? 'reserveEvents(n), ' : ''}runs of 4096, new process (${(r.heap / 2 ** 20).toFixed(0)} MiB)`, r);
    }
  }
}
