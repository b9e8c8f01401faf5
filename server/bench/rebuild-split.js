// The SQLite store's rebuild of one big customer, split: the store read (load, every item
// iterated) and the replay (CustomerLedger.rebuild), each in a fresh process, through
// packs and, with the packs table emptied, through the rows. The log is the one the
// service benchmark's rebuild writes (10 grants, then in-order consumptions), committed
// straight to the store in groups of 1,000 entries.
//
//   node server/bench/rebuild-split.js [--events 1000000] [--runs 2]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { CustomerLedger } from '../ledger/customer-ledger.js';
import { SqliteStore } from '../store/sqlite.js';
import { makeTempDir } from '../test/support/tmp.js';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '2' },
    measure: { type: 'string' }, // internal: `read` or `rebuild`, in the child process
    path: { type: 'string' },
  },
});
const CUSTOMER = 'bench-big';

if (opts.measure !== undefined) {
  // Child: one fresh process, one measurement.
  const store = new SqliteStore(opts.path);
  await store.open();
  const started = performance.now();
  const data = await store.load(CUSTOMER);
  let entries = 0;
  let packs = 0;
  if (opts.measure === 'read') {
    for (const item of data.entries) {
      if (Array.isArray(item)) entries++;
      else {
        packs++;
        entries += item.lastSeq - item.firstSeq + 1;
      }
    }
  } else {
    const state = CustomerLedger.rebuild(CUSTOMER, data);
    entries = state.seq;
    state.dispose();
  }
  const ms = performance.now() - started;
  await store.close();
  console.log(JSON.stringify({ ms, entries, packs }));
} else {
  const events = Number(opts.events);
  const tmp = makeTempDir('ledger-rebuild-split');
  try {
    const path = join(tmp.path, 'split.db');
    const store = new SqliteStore(path);
    await store.open();
    const grants = Array.from({ length: 10 }, (_, i) => ['grant', `big-g${i}`, 10 ** 12, 0, Number.MAX_SAFE_INTEGER]);
    await store.commit([{ customer: CUSTOMER, baseSeq: 0, entries: grants }]);
    for (let seq = grants.length; seq < events;) {
      const entries = [];
      for (let i = seq; i < Math.min(events, seq + 1000); i++) entries.push(['consume', `big-e${i}`, 1, i, null]);
      await store.commit([{ customer: CUSTOMER, baseSeq: seq, entries }]);
      seq += entries.length;
    }
    await store.close();
    const child = (measure) => {
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--measure', measure, '--path', path], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      return JSON.parse(r.stdout);
    };
    const line = (what, measure) => {
      const runs = Array.from({ length: Number(opts.runs) }, () => child(measure));
      const { entries, packs } = runs[0];
      // Packs are counted where the log is read alone (the replay reads the log as it goes).
      const counted = measure === 'read' ? `, ${packs} packs` : '';
      console.log(`${what}: ${runs.map((r) => r.ms.toFixed(0)).join(', ')} ms (${entries} entries${counted})`);
    };
    console.log(`# rebuild split, ${new Date().toISOString()}, ${events} entries, each figure a fresh process`);
    line('load read, through packs', 'read');
    line('load + replay, through packs', 'rebuild');
    const db = new Database(path);
    db.exec('DELETE FROM packs');
    db.close();
    line('load read, rows only', 'read');
    line('load + replay, rows only', 'rebuild');
  } finally {
    tmp.remove();
  }
}
