// Every wait on PostgreSQL is bounded (PostgresStore's timeoutMs, LEDGER_PG_TIMEOUT_MS): a
// row lock held by another instance frozen mid-commit, or a COMMIT a database that stopped
// answering never answers, gets 503 instead of a request that waits for ever; nothing of a
// refused request is applied, and one in doubt is answered as such, then as an identical
// retry.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresStore } from '../store/postgres.js';
import { buildApp } from '../app.js';
import { KEYS, ADMIN } from './helpers.js';
import { readPgLogs, startPostgres } from './support/postgres.js';
import { startPgProxy } from './support/pg-proxy.js';

let server;
let proxy;
before(async () => {
  server = await startPostgres();
  proxy = await startPgProxy(server.port);
});
after(async () => {
  await proxy?.close();
  server?.stop();
});

const auth = { authorization: `Bearer ${ADMIN}` };
const TIMEOUT_MS = 400;

async function appOn(url) {
  const store = new PostgresStore(url, { timeoutMs: TIMEOUT_MS });
  await store.open();
  return buildApp({ store, keys: KEYS, limits: { maxEventLoopDelay: 0 } });
}

async function loggedIds(customer) {
  return ((await readPgLogs(server.url)).get(customer) ?? []).map((row) => row.id);
}

test("a customer's head locked by a frozen instance: its writes get 503 in bounded time, then apply", async () => {
  const app = await appOn(server.url);
  const grant = (grantId) =>
    app.inject({
      method: 'POST',
      url: '/v1/customers/frozen/grants',
      headers: auth,
      payload: { grantId, amount: 5, startTime: 0, endTime: 9 },
    });
  const holder = new pg.Client({ connectionString: server.url });
  await holder.connect();
  try {
    assert.equal((await grant('g1')).statusCode, 201);
    // Another instance's commit, frozen while it holds the customer's head.
    await holder.query('BEGIN');
    await holder.query('SELECT last_seq FROM heads WHERE customer_id = $1 FOR UPDATE', ['frozen']);
    const started = performance.now();
    const refused = await grant('g2');
    const waited = performance.now() - started;
    assert.equal(refused.statusCode, 503, refused.body);
    assert.ok(waited < 10 * TIMEOUT_MS, `answered after ${waited.toFixed(0)} ms`);
    assert.deepEqual(await loggedIds('frozen'), ['g1'], 'nothing of the refused write');
    await holder.query('ROLLBACK');
    assert.equal((await grant('g2')).statusCode, 201);
    assert.deepEqual(await loggedIds('frozen'), ['g1', 'g2']);
  } finally {
    await holder.end();
    await app.close();
  }
});

test('a COMMIT the database does not answer in time is in doubt: 503, then an identical retry', async () => {
  const app = await appOn(server.url.replace(`:${server.port}/`, `:${proxy.port}/`));
  const consume = () =>
    app.inject({
      method: 'POST',
      url: '/v1/customers/slow/consumptions',
      headers: auth,
      payload: { eventId: 'c1', amount: 1, timestamp: 1 },
    });
  try {
    const grant = { grantId: 'g', amount: 5, startTime: 0, endTime: 9 };
    assert.equal((await app.inject({ method: 'POST', url: '/v1/customers/slow/grants', headers: auth, payload: grant })).statusCode, 201);
    // Held past the client's wait (twice timeoutMs), then let through: it commits late.
    proxy.holdNextCommit(6 * TIMEOUT_MS, 'slow');
    const started = performance.now();
    const doubt = await consume();
    assert.ok(performance.now() - started < 6 * TIMEOUT_MS, 'answered before the database was');
    assert.equal(doubt.statusCode, 503, doubt.body);
    assert.match(doubt.json().error.message, /may or may not be applied/);
    // Once the late COMMIT has landed, the retry is an identical retry: charged once.
    let logged = [];
    for (let i = 0; i < 50 && !logged.includes('c1'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      logged = await loggedIds('slow');
    }
    const retry = await consume();
    assert.deepEqual([retry.statusCode, retry.json().accepted], [200, true], retry.body);
    assert.deepEqual(await loggedIds('slow'), ['g', 'c1'], 'once');
  } finally {
    await app.close();
  }
});
