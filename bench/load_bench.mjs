// Bulk-load and preview half of `npm run bench`: how fast a ledger is loaded from a
// snapshot (fromJSON), from a list of events (applyBatch, one crossing into WASM per
// chunk) or from typed-array columns (applyColumns) against one call per event (a write followed by headroom queries:
// bench/headroom_bench.mjs).
//   node bench/load_bench.mjs [--quick]      (--quick leaves out 10^6)
import { GPULedger } from 'gpu-credit-ledger';
import { columnsOf, columnsPart, eventsOf, snapshotOf } from './generators.mjs';

const quick = process.argv.includes('--quick');
const RUN = 4096; // entries per applyBatch when the service replays a log
const sizes = quick ? [1e4, 1e5] : [1e4, 1e5, 1e6];
const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9;

function best(repeats, run) {
  let fastest = Infinity;
  for (let i = 0; i < repeats; i++) fastest = Math.min(fastest, run());
  return fastest;
}

const pad = (text, width) => String(text).padStart(width);
const row = (name, n, s) => console.log(`${name.padEnd(38)} ${pad(n, 9)} ${pad(Math.round(n / s), 12)} ${pad((s * 1e3).toFixed(1), 10)}`);

console.log('\nBulk loading through the public API (best of 3, one run at 10^6)');
console.log(`${'load'.padEnd(38)} ${pad('events', 9)} ${pad('events/s', 12)} ${pad('ms', 10)}`);
for (const n of sizes) {
  const repeats = n >= 1e6 ? 1 : 3;
  const events = eventsOf(n);
  const single = best(repeats, () => {
    const start = process.hrtime.bigint();
    const ledger = new GPULedger();
    for (const e of events) {
      if (e.kind === 'grant') ledger.addGrant(e.grantId, e.amount, e.startTime, e.endTime);
      else if (!ledger.consume(e.eventId, e.amount, e.timestamp)) throw new Error('bench: rejected');
    }
    const s = seconds(start);
    ledger.dispose();
    return s;
  });
  row('one call per event', n, single);
  if (typeof GPULedger.prototype.applyBatch === 'function') {
    const batch = best(repeats, () => {
      const start = process.hrtime.bigint();
      const ledger = new GPULedger();
      const results = ledger.applyBatch(events);
      const s = seconds(start);
      if (results.length !== n || results.some((r) => r !== true)) throw new Error('bench: applyBatch refused an event');
      ledger.dispose();
      return s;
    });
    row('applyBatch', n, batch);
    // The service replays a customer's log in runs of 4,096 entries, one applyBatch each
    // (server/ledger/customer-ledger.js): every run reserves room again, so a reservation
    // that does not grow geometrically shows here as a load that grows quadratically. The
    // service reserves the log's length first (reserveEvents(n)), where the package has it.
    const inRuns = (reserve) => () => {
      const start = process.hrtime.bigint();
      const ledger = new GPULedger();
      if (reserve) ledger.reserveEvents(n);
      for (let from = 0; from < n; from += RUN) {
        const results = ledger.applyBatch(events.slice(from, from + RUN));
        if (results.some((r) => r !== true)) throw new Error('bench: applyBatch refused an event');
      }
      const s = seconds(start);
      ledger.dispose();
      return s;
    };
    row(`applyBatch in runs of ${RUN}`, n, best(repeats, inRuns(false)));
    if (typeof GPULedger.prototype.reserveEvents === 'function') row(`reserveEvents(n), runs of ${RUN}`, n, best(repeats, inRuns(true)));
  }
  if (typeof GPULedger.prototype.applyColumns === 'function') {
    // The same events as columns (built before the clock starts, as a log's packs hold them).
    const columns = columnsOf(events);
    const parts = [];
    for (let from = 0; from < n; from += RUN) parts.push(columnsPart(columns, from, Math.min(n, from + RUN)));
    const load = (inParts) => () => {
      const start = process.hrtime.bigint();
      const ledger = new GPULedger();
      const results = [];
      if (inParts) {
        ledger.reserveEvents(n); // as the service's rebuild does
        for (const part of parts) results.push(ledger.applyColumns(part).results);
      } else {
        results.push(ledger.applyColumns(columns).results);
      }
      const s = seconds(start);
      if (results.some((codes) => codes.some((code) => code !== 1))) throw new Error('bench: applyColumns refused an event');
      ledger.dispose();
      return s;
    };
    row('applyColumns', n, best(repeats, load(false)));
    row(`reserveEvents(n), applyColumns ${RUN}`, n, best(repeats, load(true)));
  }
  const snapshot = snapshotOf(n);
  const text = JSON.stringify(snapshot);
  row(
    'fromJSON (object)',
    n,
    best(repeats, () => {
      const start = process.hrtime.bigint();
      const ledger = GPULedger.fromJSON(snapshot);
      const s = seconds(start);
      ledger.dispose();
      return s;
    }),
  );
  row(
    'fromJSON (JSON text, parse included)',
    n,
    best(repeats, () => {
      const start = process.hrtime.bigint();
      const ledger = GPULedger.fromJSON(text);
      const s = seconds(start);
      ledger.dispose();
      return s;
    }),
  );
}
