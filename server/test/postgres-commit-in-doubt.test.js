// A connection to PostgreSQL lost at COMMIT (server/test/support/pg-proxy.js cuts it): if
// PostgreSQL had committed, the request is acknowledged (the store checks the log on
// another connection); if it had not, the request gets 503 and nothing of it is applied.
// Either way the answer tells the truth about the log, and retries are answered as such.
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

async function loggedIds(customer) {
  return ((await readPgLogs(server.url)).get(customer) ?? []).map((row) => row.id);
}

test('a COMMIT whose answer is lost is acknowledged; one that never arrived is refused', async () => {
  const store = new PostgresStore(server.url.replace(`:${server.port}/`, `:${proxy.port}/`));
  await store.open();
  const app = await buildApp({ store, keys: KEYS, limits: { maxEventLoopDelay: 0 } });
  const post = (route, payload) => app.inject({ method: 'POST', url: `/v1/customers/doubt/${route}`, headers: auth, payload });
  try {
    assert.equal((await post('grants', { grantId: 'g', amount: 100, startTime: 0, endTime: 100 })).statusCode, 201);

    proxy.cutAtNextCommit('after');
    const landed = await post('consumptions', { eventId: 'c1', amount: 10, timestamp: 1 });
    assert.equal(proxy.fired, 1, 'the connection was cut after PostgreSQL answered the COMMIT');
    assert.equal(landed.statusCode, 200, landed.body);
    assert.equal(landed.json().accepted, true);
    assert.deepEqual(await loggedIds('doubt'), ['g', 'c1'], 'c1 is in the log, as its answer says');

    proxy.cutAtNextCommit('before');
    const lost = await post('consumptions', { eventId: 'c2', amount: 20, timestamp: 2 });
    assert.equal(proxy.fired, 2, 'the connection was cut before the COMMIT reached PostgreSQL');
    assert.equal(lost.statusCode, 503, lost.body);
    assert.deepEqual(await loggedIds('doubt'), ['g', 'c1'], 'c2 is not in the log, as its answer says');

    // Several customers in one commit take the other path (#commitMany): the same rule.
    // While one commit is held back, the writes of two more customers gather into the
    // next group commit, whose COMMIT is then cut after PostgreSQL answered it.
    const write = (customer, grantId) =>
      app.inject({
        method: 'POST',
        url: `/v1/customers/${customer}/grants`,
        headers: auth,
        payload: { grantId, amount: 1, startTime: 0, endTime: 9 },
      });
    for (const customer of ['doubt-x', 'doubt-a', 'doubt-b']) {
      // Loaded first: a load is a (read-only) transaction with a COMMIT too.
      assert.equal((await app.inject({ method: 'GET', url: `/v1/customers/${customer}/balance?at=0`, headers: auth })).statusCode, 200);
    }
    proxy.holdNextCommit(500, 'doubt-x');
    proxy.cutAtNextCommit('after', 'doubt-b');
    const held = write('doubt-x', 'x');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const both = await Promise.all([write('doubt-a', 'a'), write('doubt-b', 'b')]);
    assert.equal((await held).statusCode, 201);
    assert.equal(proxy.fired, 4);
    assert.deepEqual(
      both.map((r) => r.statusCode),
      [201, 201],
      'a two-customer commit that landed is acknowledged',
    );
    assert.deepEqual([await loggedIds('doubt-a'), await loggedIds('doubt-b')], [['a'], ['b']]);

    const ledger = (await app.inject({ method: 'GET', url: '/v1/customers/doubt/ledger', headers: auth })).json();
    assert.deepEqual(
      ledger.consumptions.map((c) => c.eventId),
      ['c1'],
      'the service shows what the log holds',
    );
    const retried = await post('consumptions', { eventId: 'c1', amount: 10, timestamp: 1 });
    assert.deepEqual([retried.statusCode, retried.json().accepted], [200, true], 'a retry of c1 is an identical retry');
    const again = await post('consumptions', { eventId: 'c2', amount: 20, timestamp: 2 });
    assert.deepEqual([again.statusCode, again.json().accepted], [200, true], 'c2 applies when sent again');
    assert.deepEqual(await loggedIds('doubt'), ['g', 'c1', 'c2'], 'each once');
  } finally {
    await app.close();
  }
});

test('a store that cannot be read fails the requests that need it and /healthz; cached reads keep answering from the cache', async () => {
  const store = new PostgresStore(server.url.replace(`:${server.port}/`, `:${proxy.port}/`));
  await store.open();
  const app = await buildApp({ store, keys: KEYS, limits: { maxEventLoopDelay: 0 } });
  const post = (route, payload) => app.inject({ method: 'POST', url: `/v1/customers/outage/${route}`, headers: auth, payload });
  const balance = async (consistency) => {
    const r = await app.inject({ method: 'GET', url: `/v1/customers/outage/balance?at=3${consistency}`, headers: auth });
    return [r.statusCode, r.json().balance ?? r.json().error.code];
  };
  try {
    assert.equal((await post('grants', { grantId: 'g', amount: 100, startTime: 0, endTime: 100 })).statusCode, 201);
    assert.equal((await post('consumptions', { eventId: 'c1', amount: 10, timestamp: 1 })).statusCode, 200);
    assert.deepEqual(await balance(''), [200, 90]);
    const health = async () => {
      const r = await app.inject({ method: 'GET', url: '/healthz' });
      return [r.statusCode, r.json().status ?? r.json().error.code, r.headers['retry-after']];
    };
    assert.deepEqual(await health(), [200, 'ok', undefined]);
    proxy.setDown(true);
    try {
      assert.deepEqual(await health(), [503, 'UNAVAILABLE', '1'], 'a proxy checking /healthz takes the instance out');
      assert.deepEqual(await balance('&consistency=cached'), [200, 90], 'a cached read needs no store');
      assert.deepEqual(await balance(''), [503, 'UNAVAILABLE'], 'a strong read cannot catch up');
      assert.deepEqual(await balance('&consistency=cached'), [200, 90], 'the failed catch-up kept the cached ledger');
    } finally {
      proxy.setDown(false);
    }
    assert.deepEqual(await balance(''), [200, 90], 'back once the store is');
    assert.deepEqual(await health(), [200, 'ok', undefined]);
    assert.equal((await post('consumptions', { eventId: 'c2', amount: 5, timestamp: 2 })).json().accepted, true);
    assert.deepEqual(await balance(''), [200, 85]);
  } finally {
    await app.close();
  }
});

// Every wait on PostgreSQL is bounded (PostgresStore's timeoutMs, LEDGER_PG_TIMEOUT_MS): a row
// lock held by another instance frozen mid-commit, or a COMMIT a database that stopped
// answering never answers, gets 503 instead of a request that waits for ever.
const TIMEOUT_MS = 400;

async function appOn(url) {
  const store = new PostgresStore(url, { timeoutMs: TIMEOUT_MS });
  await store.open();
  return buildApp({ store, keys: KEYS, limits: { maxEventLoopDelay: 0 } });
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
