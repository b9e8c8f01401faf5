// The cleanup job on the PostgreSQL store (support/cleanup-scenario.js says what is
// checked), plus: an instance that cached a customer before another instance compacted
// it applies the same horizon when it catches up (the compact entry is in the log).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresStore } from '../store/postgres.js';
import { buildApp } from '../app.js';
import { KEYS, ADMIN } from './helpers.js';
import { readPgLogs, startPostgres } from './support/postgres.js';
import { seedFromEnv } from './support/seed.js';
import { runCleanupScenario, runMemoryScenario } from './support/cleanup-scenario.js';

let server;
before(async () => {
  server = await startPostgres();
});
after(() => server?.stop());

async function count(sql, customer) {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    return Number((await client.query(sql, [customer])).rows[0].n);
  } finally {
    await client.end();
  }
}

const kit = () => ({
  make: () => new PostgresStore(server.url),
  logs: () => readPgLogs(server.url),
  layout: async (customer) => ({
    archived: await count('SELECT count(*) AS n FROM archive WHERE customer_id = $1', customer),
    logged: await count('SELECT count(*) AS n FROM log WHERE customer_id = $1', customer),
    snapshots: await count('SELECT count(*) AS n FROM snapshots WHERE customer_id = $1', customer),
  }),
});

test(
  'PostgreSQL: compaction, restart, identical answers at and after the horizon, retries of archived ids',
  { timeout: 120_000 },
  async (t) => {
    await runCleanupScenario(t, kit(), seedFromEnv('cleanup-postgres'));
  },
);

test('PostgreSQL: another instance applies the horizon when it catches up', { timeout: 60_000 }, async () => {
  const open = async (grace) => {
    const store = new PostgresStore(server.url);
    await store.open();
    return buildApp({
      store,
      keys: KEYS,
      limits: { maxEventLoopDelay: 0 },
      cleanup: grace === null ? {} : { grace, intervalMs: 3_600_000 },
    });
  };
  const auth = { authorization: `Bearer ${ADMIN}` };
  const a = await open(10);
  const b = await open(null);
  try {
    const base = '/v1/customers/shared-1';
    const post = (app, route, payload) => app.inject({ method: 'POST', url: `${base}/${route}`, headers: auth, payload });
    assert.equal((await post(a, 'grants', { grantId: 'g', amount: 1000, startTime: 0, endTime: 10_000 })).statusCode, 201);
    for (let i = 0; i < 40; i++)
      assert.equal((await post(i % 2 ? a : b, 'consumptions', { eventId: `e${i}`, amount: 1, timestamp: i * 5 })).json().accepted, true);
    // b holds the customer (cached, uncompacted); a compacts it at 195 - 10.
    const [pass] = await a.cleanup.runOnce();
    assert.equal(pass.horizon, 185);
    const late = await post(b, 'consumptions', { eventId: 'late', amount: 1, timestamp: 100 });
    assert.equal(late.statusCode, 409, 'b caught up with the compact entry before deciding');
    assert.equal(late.json().error.code, 'BEFORE_HORIZON');
    const retry = await post(b, 'consumptions', { eventId: 'e3', amount: 1, timestamp: 15 });
    assert.equal(retry.json().accepted, true, 'b answers a retry of an archived consumption');
    const docA = (await a.inject({ method: 'GET', url: `${base}/ledger`, headers: auth })).json();
    const docB = (await b.inject({ method: 'GET', url: `${base}/ledger`, headers: auth })).json();
    assert.deepEqual(docB, docA, 'both instances hold the same compacted ledger');
  } finally {
    await a.close();
    await b.close();
  }
});

test('PostgreSQL: a stream with periodic cleanup keeps every ledger bounded', { timeout: 120_000 }, async () => {
  const r = await runMemoryScenario(kit());
  console.log(
    `# memory: ${r.customers} customers × ${r.events} consumptions with cleanup: at most ${r.maxHeld} held per ledger; WASM heap ${r.baseline} → max ${r.heapMax} bytes, ${r.perCustomer} bytes per customer`,
  );
});
