// The cleanup job on the SQLite store (support/cleanup-scenario.js says what is checked).
import { after, test } from 'node:test';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../store/sqlite.js';
import { makeTempDir } from './support/tmp.js';
import { seedFromEnv } from './support/seed.js';
import { runCleanupScenario, runMemoryScenario } from './support/cleanup-scenario.js';

const tmp = makeTempDir('ledger-cleanup');
after(() => tmp.remove());

function kit(file) {
  const path = join(tmp.path, file);
  const query = (fn) => {
    const db = new Database(path, { readonly: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  return {
    make: () => new SqliteStore(path),
    logs: async () => query((db) => {
      const logs = new Map();
      const rows = db.prepare('SELECT customer, seq, kind, id, amount, t1, t2 FROM archive UNION ALL SELECT customer, seq, kind, id, amount, t1, t2 FROM log ORDER BY customer, seq').all();
      for (const { customer, ...row } of rows) {
        if (!logs.has(customer)) logs.set(customer, []);
        logs.get(customer).push(row);
      }
      return logs;
    }),
    layout: async (customer) => query((db) => ({
      archived: db.prepare('SELECT count(*) FROM archive WHERE customer = ?').pluck().get(customer),
      logged: db.prepare('SELECT count(*) FROM log WHERE customer = ?').pluck().get(customer),
      snapshots: db.prepare('SELECT count(*) FROM snapshots WHERE customer = ?').pluck().get(customer),
    })),
  };
}

test('SQLite: compaction, restart, identical answers at and after the horizon, retries of archived ids', { timeout: 120_000 }, async (t) => {
  await runCleanupScenario(t, kit('cleanup.db'), seedFromEnv('cleanup-sqlite'));
});

test('SQLite: a stream with periodic cleanup keeps every ledger bounded', { timeout: 120_000 }, async () => {
  const r = await runMemoryScenario(kit('memory.db'));
  console.log(`# memory: ${r.customers} customers × ${r.events} consumptions with cleanup: at most ${r.maxHeld} held per ledger; WASM heap ${r.baseline} → max ${r.heapMax} bytes, ${r.perCustomer} bytes per customer`);
});
