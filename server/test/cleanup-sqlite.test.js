// The cleanup job on the SQLite store (support/cleanup-scenario.js says what is checked).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore, findEntrySql } from '../store/sqlite.js';
import { makeTempDir, writeKeyFile } from './support/tmp.js';
import { startServer } from './support/server-process.js';
import { makeClient } from './support/http-client.js';
import { seedFromEnv } from './support/seed.js';
import { runCleanupScenario, runMemoryScenario } from './support/cleanup-scenario.js';
import { buildApp } from '../app.js';
import { ADMIN, KEYS } from './helpers.js';

const tmp = makeTempDir('ledger-cleanup');
after(() => tmp.remove());

function query(path, fn) {
  const db = new Database(path, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function kit(file) {
  const path = join(tmp.path, file);
  return {
    make: () => new SqliteStore(path),
    logs: async () =>
      query(path, (db) => {
        const logs = new Map();
        const rows = db
          .prepare(
            'SELECT customer, seq, kind, id, amount, t1, t2 FROM archive UNION ALL SELECT customer, seq, kind, id, amount, t1, t2 FROM log ORDER BY customer, seq',
          )
          .all();
        for (const { customer, ...row } of rows) {
          if (!logs.has(customer)) logs.set(customer, []);
          logs.get(customer).push(row);
        }
        return logs;
      }),
    layout: async (customer) =>
      query(path, (db) => ({
        archived: db.prepare('SELECT count(*) FROM archive WHERE customer = ?').pluck().get(customer),
        logged: db.prepare('SELECT count(*) FROM log WHERE customer = ?').pluck().get(customer),
        snapshots: db.prepare('SELECT count(*) FROM snapshots WHERE customer = ?').pluck().get(customer),
      })),
  };
}

test(
  'SQLite: compaction, restart, identical answers at and after the horizon, retries of archived ids',
  { timeout: 120_000 },
  async (t) => {
    await runCleanupScenario(t, kit('cleanup.db'), seedFromEnv('cleanup-sqlite'));
  },
);

test('SQLite: a stream with periodic cleanup keeps every ledger bounded', { timeout: 120_000 }, async () => {
  const r = await runMemoryScenario(kit('memory.db'));
  console.log(
    `# memory: ${r.customers} customers × ${r.events} consumptions with cleanup: at most ${r.maxHeld} held per ledger; WASM heap ${r.baseline} → max ${r.heapMax} bytes, ${r.perCustomer} bytes per customer`,
  );
});

test('server.js: LEDGER_GRACE and LEDGER_CLEANUP_INTERVAL_MS run the job in a server process', { timeout: 60_000 }, async () => {
  const { path: keysPath, keys } = writeKeyFile(tmp.path);
  const server = await startServer({
    store: join(tmp.path, 'process.db'),
    keys: keysPath,
    env: { LEDGER_GRACE: '10', LEDGER_CLEANUP_INTERVAL_MS: '100', LOG_LEVEL: 'warn' },
  });
  const client = makeClient({ target: server, key: keys.admin });
  try {
    const base = '/v1/customers/proc';
    assert.equal(
      (await client.untilAnswered('POST', `${base}/grants`, { grantId: 'g', amount: 100, startTime: 0, endTime: 1000 })).status,
      201,
    );
    for (let i = 0; i < 10; i++)
      await client.untilAnswered('POST', `${base}/consumptions`, { eventId: `e${i}`, amount: 1, timestamp: i * 10 });
    let doc;
    for (let tries = 0; tries < 100; tries++) {
      doc = (await client.untilAnswered('GET', `${base}/ledger`)).body;
      if (doc.horizon === 80) break; // passes may also run mid-stream, at earlier horizons
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(doc.horizon, 80, 'latest consumption 90 minus grace 10');
    assert.deepEqual(
      doc.consumptions.map((c) => c.eventId),
      ['e8', 'e9'],
    );
    // Carried across every horizon the passes set, the grant still reads as it was added.
    const grant = { grantId: 'g', amount: 100, startTime: 0, endTime: 1000 };
    assert.deepEqual((await client.untilAnswered('GET', `${base}/grants?at=85`)).body, { grants: [{ ...grant, remaining: 91 }] });
    const burnDown = (await client.untilAnswered('GET', `${base}/grants/g`)).body;
    // Its draws and breakpoints from the horizon on (before it, history is final).
    assert.deepEqual(burnDown, {
      ...grant,
      draws: [
        { timestamp: 80, eventId: 'e8', amount: 1 },
        { timestamp: 90, eventId: 'e9', amount: 1 },
      ],
      remaining: [
        [80, 91],
        [90, 90],
      ],
    });
    const late = await client.untilAnswered('POST', `${base}/consumptions`, { eventId: 'late', amount: 1, timestamp: 5 });
    assert.deepEqual([late.status, late.body.error.code], [409, 'BEFORE_HORIZON']);
    assert.match(late.body.error.message, /^consume: consumption "late" /, 'the call the client made');
    const dry = await client.untilAnswered('POST', `${base}/consumptions`, { eventId: 'late', amount: 1, timestamp: 5, dryRun: true });
    assert.deepEqual([dry.status, dry.body.error.code], [409, 'BEFORE_HORIZON']);
    assert.match(dry.body.error.message, /^tryConsume: consumption "late" /);
    // Queued, the call is a submit, and its refusal says so.
    const queued = await client.untilAnswered('POST', `${base}/consumptions`, { eventId: 'late', amount: 1, timestamp: 5, queue: true });
    assert.deepEqual([queued.status, queued.body.error.code], [409, 'BEFORE_HORIZON']);
    assert.match(queued.body.error.message, /^submit: consumption "late" /);
    assert.deepEqual(await server.stop(), { code: 0, signal: null }, 'SIGTERM stops the job and the server cleanly');
  } finally {
    client.close();
    await server.stop();
  }
});

test("SQLite: an id's lookup in the log and the archive reads the kind's id index, not the customer's rows", async () => {
  const path = join(tmp.path, 'plan.db');
  const store = new SqliteStore(path);
  await store.open();
  await store.close();
  const db = new Database(path, { readonly: true });
  try {
    for (const kind of ['grant', 'consume', 'submit']) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${findEntrySql(kind)}`)
        .all('c', 'x', 'c', 'x')
        .map((row) => row.detail);
      // Both arms search their table through the kind's partial index on (customer, id).
      assert.deepEqual(
        plan.filter((detail) => /^(SEARCH|SCAN) (log|archive)\b/.test(detail)),
        [
          `SEARCH log USING INDEX log_${kind}_id (customer=? AND id=?)`,
          `SEARCH archive USING INDEX archive_${kind}_id (customer=? AND id=?)`,
        ],
        kind,
      );
    }
  } finally {
    db.close();
  }
});

test('SQLite: a snapshot without carriedGrants (written before the field) reads its carried grants as added, from their logged adds', async () => {
  const path = join(tmp.path, 'older-snapshot.db');
  const open = async () => {
    const store = new SqliteStore(path);
    await store.open();
    return buildApp({ store, keys: KEYS, limits: { maxEventLoopDelay: 0 }, cleanup: { grace: 0, intervalMs: 3_600_000 } });
  };
  const caller = (app) => async (method, url, payload) => {
    const r = await app.inject({ method, url: `/v1/customers/old${url}`, headers: { authorization: `Bearer ${ADMIN}` }, payload });
    return [r.statusCode, r.json()];
  };
  const document = () => query(path, (db) => JSON.parse(db.prepare('SELECT document FROM snapshots ORDER BY seq DESC').pluck().get()));
  const carried = () => document().carriedGrants.sort(([a], [b]) => (a < b ? -1 : 1));
  let app = await open();
  after(() => app.close()); // a failed assertion leaves the latest open
  let call = caller(app);
  await call('POST', '/grants', { grantId: 'G', amount: 100, startTime: 0, endTime: 1000 });
  await call('POST', '/grants', { grantId: 'H', amount: 7, startTime: 20, endTime: 500 });
  await call('POST', '/grants', { grantId: 'late', amount: 3, startTime: 70, endTime: 900 });
  await call('POST', '/consumptions', { eventId: 'e1', amount: 30, timestamp: 10 });
  await call('POST', '/consumptions', { eventId: 'e2', amount: 5, timestamp: 50 });
  const reads = async () => [await call('GET', '/grants/G'), await call('GET', '/grants/H'), await call('GET', '/grants?at=60')];
  assert.deepEqual(
    (await app.cleanup.runOnce()).map((pass) => pass.horizon),
    [50],
  );
  const compacted = await reads(); // as added: G 100 from 0, H 7 from 20
  assert.deepEqual(compacted[2][1].grants.map((g) => [g.grantId, g.amount, g.startTime]).sort(), [
    ['G', 100, 0],
    ['H', 7, 20],
  ]);
  await app.close();
  assert.deepEqual(carried(), [
    ['G', 100, 0],
    ['H', 7, 20],
  ]);
  // The snapshot as the versions before the field wrote it.
  const db = new Database(path);
  db.prepare("UPDATE snapshots SET document = json_remove(document, '$.carriedGrants')").run();
  db.close();
  app = await open();
  call = caller(app);
  assert.deepEqual(await reads(), compacted, 'read as when the compaction was made');
  assert.equal((await call('POST', '/grants', { grantId: 'G', amount: 100, startTime: 0, endTime: 1000 }))[0], 200);
  await call('POST', '/consumptions', { eventId: 'e3', amount: 1, timestamp: 60 });
  assert.deepEqual(
    (await app.cleanup.runOnce()).map((pass) => pass.horizon),
    [60],
  );
  await app.close();
  assert.deepEqual(
    carried(),
    [
      ['G', 100, 0],
      ['H', 7, 20],
    ],
    'the next snapshot keeps them as added',
  );
  app = await open();
  call = caller(app);
  const [[, g], [, h]] = await reads();
  assert.deepEqual([g.amount, g.startTime, h.amount, h.startTime], [100, 0, 7, 20]);
  await app.close();
});
