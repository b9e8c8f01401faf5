// Per-event costs of the two stores, without HTTP: the figures behind the README's
// capacity model. For each store, one commit at a time (as the service runs them):
// group commits of E events spread over C customers (C head locks, E rows), a catch-up
// query with nothing new (what every strong request costs on a shared store), and a
// rebuild read (load) of a customer with many entries.
//
//   node server/bench/store-costs.js [--seconds 3]
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { SqliteStore } from '../store/sqlite.js';
import { PostgresStore } from '../store/postgres.js';
import { startPostgres } from '../test/support/postgres.js';
import { makeTempDir } from '../test/support/tmp.js';

const { values: opts } = parseArgs({ options: { seconds: { type: 'string', default: '3' } } });
const seconds = Number(opts.seconds);
const SHAPES = [
  [1, 1],
  [10, 10],
  [100, 100],
  [100, 1],
  [1000, 1],
];

async function timed(fn) {
  let n = 0;
  const started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    await fn(n);
    n++;
  }
  return { n, ms: performance.now() - started };
}

async function measure(name, store) {
  const seq = new Map(); // customer → last seq
  const out = [];
  for (const [events, customers] of SHAPES) {
    const r = await timed(async (n) => {
      const groups = [];
      for (let c = 0; c < customers; c++) {
        const customer = `cust-${c}`;
        const base = seq.get(customer) ?? 0;
        const entries = [];
        for (let e = 0; e < events / customers; e++) entries.push(['consume', `e-${events}-${customers}-${n}-${e}`, 1, base + e, null]);
        groups.push({ customer, baseSeq: base, entries });
      }
      await store.commit(groups);
      for (const g of groups) seq.set(g.customer, g.baseSeq + g.entries.length);
    });
    const perCommit = r.ms / r.n;
    out.push(
      `| ${name} | commit of ${events} events over ${customers} customer(s) | ${(perCommit * 1000).toFixed(0)} µs | ${((perCommit * 1000) / events).toFixed(1)} µs | ${Math.round((r.n * events) / (r.ms / 1000)).toLocaleString('en')} |`,
    );
  }
  const tail = await timed(() => store.readAfter('cust-0', seq.get('cust-0')));
  out.push(
    `| ${name} | catch-up query, nothing new | ${((tail.ms * 1000) / tail.n).toFixed(0)} µs | | ${Math.round(tail.n / (tail.ms / 1000)).toLocaleString('en')} queries/s |`,
  );
  const big = seq.get('cust-0');
  const t0 = performance.now();
  const loaded = await store.load('cust-0');
  let count = 0;
  for (const item of loaded.entries) count += Array.isArray(item) ? 1 : item.lastSeq - item.firstSeq + 1; // a tuple or a pack
  const loadMs = performance.now() - t0;
  out.push(
    `| ${name} | load (rebuild read) of ${count.toLocaleString('en')} entries | ${(loadMs * 1000).toFixed(0)} µs | ${((loadMs * 1000) / count).toFixed(2)} µs | |`,
  );
  if (count !== big) throw new Error(`load returned ${count} entries, ${big} were committed`);
  return out;
}

const tmp = makeTempDir('ledger-store-costs');
const pg = await startPostgres({ fsync: true });
try {
  console.log(
    `# store costs, ${new Date().toISOString()}, ${seconds} s per row, one commit at a time; load average ${loadavg()[0].toFixed(2)}`,
  );
  console.log(
    "# SQLite: WAL, synchronous=FULL, commits on the store's commit thread; PostgreSQL 15: local temp cluster, fsync on, 127.0.0.1",
  );
  console.log('');
  console.log('| store | operation | time each | per event | events/s |');
  console.log('|---|---|---|---|---|');
  const sqlite = new SqliteStore(join(tmp.path, 'costs.db'));
  await sqlite.open();
  for (const line of await measure('SQLite', sqlite)) console.log(line);
  await sqlite.close();
  const postgres = new PostgresStore(pg.url);
  await postgres.open();
  for (const line of await measure('PostgreSQL', postgres)) console.log(line);
  await postgres.close();
  console.log(`# load average after: ${loadavg()[0].toFixed(2)}`);
} finally {
  pg.stop();
  tmp.remove();
}
