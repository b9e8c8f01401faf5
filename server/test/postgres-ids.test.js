// Ids the package allows but PostgreSQL text does not hold as they are (U+0000) are
// stored escaped: such a request commits like any other, does not fail the group commit
// it shares with other customers, and reads back the same after a restart.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresStore, encodeId, decodeId } from '../store/postgres.js';
import { buildApp } from '../app.js';
import { KEYS, ADMIN } from './helpers.js';
import { startPostgres } from './support/postgres.js';

let server;
before(async () => {
  server = await startPostgres();
});
after(() => server?.stop());

const auth = { authorization: `Bearer ${ADMIN}` };

async function open() {
  const store = new PostgresStore(server.url);
  await store.open();
  return buildApp({ store, keys: KEYS, limits: { maxEventLoopDelay: 0 } });
}

test('the id escaping is injective and reversible', () => {
  const alphabet = ['a', '\\', '\u0000', '0', 'ü'];
  const ids = [];
  for (let n = 1; n <= 4; n++) {
    const walk = (prefix) => {
      if (prefix.length === n) return void ids.push(prefix);
      for (const c of alphabet) walk(prefix + c);
    };
    walk('');
  }
  const encoded = ids.map(encodeId);
  assert.equal(new Set(encoded).size, ids.length, 'no two ids share a stored form');
  assert.ok(encoded.every((e) => !e.includes('\u0000')));
  assert.deepEqual(encoded.map(decodeId), ids);
});

test('an id with U+0000 commits alongside another customer, and reads back after a restart', async () => {
  let app = await open();
  const nul = 'job\u0000one';
  const slash = 'back\\slash\\0';
  try {
    const [g, c1, c2, other] = await Promise.all([
      app.inject({
        method: 'POST',
        url: '/v1/customers/ids/grants',
        headers: auth,
        payload: { grantId: 'g\u0000', amount: 10, startTime: 0, endTime: 10 },
      }),
      app.inject({
        method: 'POST',
        url: '/v1/customers/ids/consumptions',
        headers: auth,
        payload: { eventId: nul, amount: 3, timestamp: 1 },
      }),
      app.inject({
        method: 'POST',
        url: '/v1/customers/ids/consumptions',
        headers: auth,
        payload: { eventId: slash, amount: 2, timestamp: 2 },
      }),
      app.inject({
        method: 'POST',
        url: '/v1/customers/other/grants',
        headers: auth,
        payload: { grantId: 'plain', amount: 5, startTime: 0, endTime: 10 },
      }),
    ]);
    assert.equal(g.statusCode, 201, g.body);
    assert.equal(c1.json().accepted, true, c1.body);
    assert.equal(c2.json().accepted, true, c2.body);
    assert.equal(other.statusCode, 201, other.body);
    const before = (await app.inject({ method: 'GET', url: '/v1/customers/ids/ledger', headers: auth })).json();
    await app.close();
    app = await open();
    const afterRestart = (await app.inject({ method: 'GET', url: '/v1/customers/ids/ledger', headers: auth })).json();
    assert.deepEqual(afterRestart, before);
    assert.deepEqual(
      afterRestart.consumptions.map((c) => c.eventId),
      [nul, slash],
    );
    const retry = await app.inject({
      method: 'POST',
      url: '/v1/customers/ids/consumptions',
      headers: auth,
      payload: { eventId: nul, amount: 3, timestamp: 1 },
    });
    assert.equal(retry.json().accepted, true);
    const got = await app.inject({ method: 'GET', url: `/v1/customers/ids/consumptions/${encodeURIComponent(slash)}`, headers: auth });
    assert.deepEqual([got.statusCode, got.json().amount], [200, 2]);
    const balance = (await app.inject({ method: 'GET', url: '/v1/customers/ids/balance?at=5', headers: auth })).json().balance;
    assert.equal(balance, 5, 'no second charge');
  } finally {
    await app.close();
  }
});

test('a compaction of a customer with such ids is stored, reloaded, and remembers them', async () => {
  const openWithCleanup = async () => {
    const store = new PostgresStore(server.url);
    await store.open();
    return buildApp({ store, keys: KEYS, limits: { maxEventLoopDelay: 0 }, cleanup: { grace: 0, intervalMs: 3_600_000 } });
  };
  const post = (app, route, payload) => app.inject({ method: 'POST', url: `/v1/customers/ids-c/${route}`, headers: auth, payload });
  let app = await openWithCleanup();
  try {
    assert.equal((await post(app, 'grants', { grantId: 'g\u0000', amount: 10, startTime: 0, endTime: 10 })).statusCode, 201);
    assert.equal((await post(app, 'consumptions', { eventId: 'old\u0000', amount: 3, timestamp: 1 })).json().accepted, true);
    assert.equal((await post(app, 'consumptions', { eventId: 'new\u0000\\', amount: 2, timestamp: 4 })).json().accepted, true);
    const [pass] = await app.cleanup.runOnce();
    assert.equal(pass.horizon, 4);
    const compacted = (await app.inject({ method: 'GET', url: '/v1/customers/ids-c/ledger', headers: auth })).json();
    await app.close();
    app = await openWithCleanup();
    const reloaded = (await app.inject({ method: 'GET', url: '/v1/customers/ids-c/ledger', headers: auth })).json();
    assert.deepEqual(reloaded, compacted, 'rebuilt from the snapshot');
    assert.deepEqual(
      reloaded.consumptions.map((c) => c.eventId),
      ['new\u0000\\'],
    );
    const retry = await post(app, 'consumptions', { eventId: 'old\u0000', amount: 3, timestamp: 1 });
    assert.equal(retry.json().accepted, true, 'the archived id is found under its escaped form');
  } finally {
    await app.close();
  }
});
