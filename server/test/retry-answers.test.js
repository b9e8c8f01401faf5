// Identical retries of an accepted consumption repeat its first answer: the allocations it
// was accepted with, kept in its log entry, even after a late grant moved its draws, after
// a restart, and in a batch. An entry logged before that column existed answers with the
// draws as they are now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { appWithCleanup, client, startApp, tempDir } from './helpers.js';

const BASE = '/v1/customers/acme';
const C1 = { eventId: 'c1', amount: 5, timestamp: 10 };

// g-long funds c1; g-short (ending first, valid at 10) then arrives and takes its draws.
async function acceptThenMove(c) {
  assert.equal((await c.post(`${BASE}/grants`, { grantId: 'g-long', amount: 10, startTime: 0, endTime: 100 })).status, 201);
  const first = await c.post(`${BASE}/consumptions`, C1);
  assert.deepEqual(first.body.allocations, [{ grantId: 'g-long', amount: 5 }]);
  assert.equal((await c.post(`${BASE}/grants`, { grantId: 'g-short', amount: 10, startTime: 0, endTime: 20 })).status, 201);
  const now = await c.get(`${BASE}/consumptions/c1`);
  assert.deepEqual(now.body.allocations, [{ grantId: 'g-short', amount: 5 }], 'the late grant moved the draws');
  return first;
}

test('an identical retry repeats the first answer after its draws moved, after a restart, and in a batch', async () => {
  const dir = tempDir();
  let server = await startApp({ dir });
  try {
    const first = await acceptThenMove(client(server.url));
    let c = client(server.url);
    assert.deepEqual(await c.post(`${BASE}/consumptions`, C1).then((r) => [r.status, r.body]), [200, first.body]);
    await server.close();
    server = await startApp({ dir });
    c = client(server.url);
    assert.deepEqual(await c.post(`${BASE}/consumptions`, C1).then((r) => [r.status, r.body]), [200, first.body], 'after a restart');
    const batch = await c.post(`${BASE}/events`, { events: [{ type: 'consumption', ...C1 }] });
    assert.deepEqual(batch.body.results, [{ status: 200, ...first.body }], 'in a batch');
    assert.deepEqual((await c.post(`${BASE}/consumptions`, { ...C1, dryRun: true })).body, first.body, 'a dry run answers as the retry');
    assert.equal((await c.post(`${BASE}/consumptions`, { ...C1, amount: 6 })).status, 409, 'other parameters: DUPLICATE_ID');
    assert.deepEqual((await c.get(`${BASE}/balance?at=10`)).body.balance, 15, 'no second charge');
  } finally {
    await server.close();
  }
});

test('a consumption logged before the allocations column answers its retry with its draws now', async () => {
  const dir = tempDir();
  let server = await startApp({ dir });
  try {
    await acceptThenMove(client(server.url));
    await server.close();
    // Back to the schema before that migration (user_version 3): the entry has no allocations.
    const db = new Database(join(dir, 'ledger.db'));
    db.exec('ALTER TABLE log DROP COLUMN allocations; ALTER TABLE archive DROP COLUMN allocations');
    db.pragma('user_version = 3');
    db.close();
    server = await startApp({ dir });
    const retry = await client(server.url).post(`${BASE}/consumptions`, C1);
    assert.equal(retry.status, 200);
    assert.deepEqual(retry.body.allocations, [{ grantId: 'g-short', amount: 5 }]);
  } finally {
    await server.close();
  }
});

test("a late retry of a grant's first add is an identical retry after an end change and after a void", async () => {
  const server = await startApp();
  try {
    const c = client(server.url);
    const add = { grantId: 'g', amount: 10, startTime: 0, endTime: 20 };
    const first = await c.post(`${BASE}/grants`, add);
    assert.equal(first.status, 201);
    const queued = await c.post(`${BASE}/consumptions`, { eventId: 'q', amount: 12, timestamp: 25, queue: true });
    assert.equal(queued.body.queued, true);
    const patched = await c('PATCH', `${BASE}/grants/g`, { body: { endTime: 30 } });
    assert.deepEqual(patched.body, { applied: true, blockingEventId: null, acceptedPending: [] });
    assert.deepEqual(
      [(await c.post(`${BASE}/grants`, add)).status, (await c.post(`${BASE}/grants`, add)).body],
      [200, { ...add, acceptedPending: [] }],
    );
    assert.equal((await c.post(`${BASE}/grants`, { ...add, amount: 11 })).status, 409, 'other parameters');
    // A grant that lets the queued consumption in reports its id, as PATCH would.
    const topUp = await c.post(`${BASE}/grants`, { grantId: 'top-up', amount: 15, startTime: 20, endTime: 26 });
    assert.deepEqual(topUp.body.acceptedPending, ['q']);
    assert.deepEqual((await c.post(`${BASE}/grants/g/void`)).body, { applied: true, blockingEventId: null });
    assert.equal((await c.post(`${BASE}/grants`, add)).status, 200, 'after the void too');
    assert.equal((await c.post(`${BASE}/grants`, { ...add, endTime: 21 })).status, 409);
    assert.equal((await c.get(`${BASE}/grants/g`)).status, 404, 'the retry brought nothing back');
  } finally {
    await server.close();
  }
});

test('an id the package refuses is answered 400 before any lookup, and the customer keeps answering', async () => {
  const { app, inject } = await appWithCleanup(0);
  try {
    const long = 'é'.repeat(600); // 600 characters, 1,200 UTF-8 bytes
    for (const compacted of [false, true]) {
      if (compacted) {
        assert.equal((await inject('POST', `${BASE}/consumptions`, { eventId: 'late', amount: 1, timestamp: 30 })).statusCode, 200);
        assert.equal((await app.cleanup.runOnce()).length, 1, 'the ledger is compacted');
      } else {
        assert.equal((await inject('POST', `${BASE}/grants`, { grantId: 'g', amount: 10, startTime: 0, endTime: 50 })).statusCode, 201);
      }
      for (const [route, body] of [
        ['grants', { grantId: long, amount: 1, startTime: 40, endTime: 50 }],
        ['grants', { grantId: '', amount: 1, startTime: 40, endTime: 50 }],
        ['consumptions', { eventId: long, amount: 1, timestamp: 40 }],
      ]) {
        const r = await inject('POST', `${BASE}/${route}`, body);
        assert.equal(r.statusCode, 400, `${route} ${JSON.stringify(body).slice(0, 40)}: ${r.body}`);
        assert.equal(r.json().error.code, 'INVALID_ARGUMENT');
      }
      const batch = await inject('POST', `${BASE}/events`, {
        events: [
          { type: 'grant', grantId: long, amount: 1, startTime: 40, endTime: 50 },
          { type: 'consumption', eventId: `ok-${compacted}`, amount: 1, timestamp: 40 },
        ],
      });
      assert.equal(batch.statusCode, 200, batch.body);
      assert.deepEqual(
        batch.json().results.map((result) => result.status),
        [400, 200],
        'the too-long id fails its own event, however it is too long',
      );
      assert.equal((await inject('GET', `${BASE}/balance?at=40`)).statusCode, 200, 'the customer still answers');
    }
  } finally {
    await app.close();
  }
});

test("after a compaction, a carried grant's retry may have its end now; a dropped grant's, its first add's", async () => {
  const { app, inject } = await appWithCleanup(100);
  const add = (grant) => inject('POST', `${BASE}/grants`, grant).then((r) => r.statusCode);
  try {
    const kept = { grantId: 'K', amount: 10, startTime: 0, endTime: 10_000 };
    const dropped = { grantId: 'D', amount: 10, startTime: 0, endTime: 100 };
    assert.deepEqual([await add(kept), await add(dropped)], [201, 201]);
    assert.equal((await inject('PATCH', `${BASE}/grants/K`, { endTime: 9000 })).statusCode, 200);
    assert.equal((await inject('PATCH', `${BASE}/grants/D`, { endTime: 70 })).statusCode, 200);
    assert.equal(await add({ ...kept, endTime: 9000 }), 200, 'its parameters now, before the compaction');
    assert.equal((await inject('POST', `${BASE}/consumptions`, { eventId: 'x', amount: 1, timestamp: 5000 })).statusCode, 200);
    const [pass] = await app.cleanup.runOnce();
    assert.equal(pass.horizon, 4900);
    assert.equal(pass.droppedGrants, 1, 'D ended before the horizon');
    assert.deepEqual(
      [await add(kept), await add({ ...kept, endTime: 9000 }), await add({ ...kept, endTime: 8000 })],
      [200, 200, 409],
      'K, carried: its first add and its end now are retries, another end is not',
    );
    assert.deepEqual([await add(dropped), await add({ ...dropped, endTime: 70 })], [200, 409], "D, dropped: its first add's only");
    // GET shows K as added, with its end now; K as the package shows it (from the horizon,
    // with what was left there), which it takes as an identical retry, is another grant's
    // parameters, as it was before the cleanup.
    const shown = (await inject('GET', `${BASE}/grants/K`)).json();
    assert.deepEqual([shown.amount, shown.startTime, shown.endTime], [10, 0, 9000]);
    assert.equal(await add({ grantId: 'K', amount: 10, startTime: 4900, endTime: 9000 }), 409, 'K as the package shows it');
    assert.equal(await add({ grantId: 'K', amount: 9, startTime: 4900, endTime: 9000 }), 409);
  } finally {
    await app.close();
  }
});

test('a batch event refused before the horizon is answered as its single call: a later event of the batch logging the id does not answer it', async () => {
  const { app, inject } = await appWithCleanup(10);
  try {
    assert.equal((await inject('POST', `${BASE}/grants`, { grantId: 'g', amount: 100, startTime: 0, endTime: 1000 })).statusCode, 201);
    assert.equal((await inject('POST', `${BASE}/consumptions`, { eventId: 'c', amount: 1, timestamp: 60 })).statusCode, 200);
    assert.equal((await app.cleanup.runOnce())[0].horizon, 50);
    const batch = await inject('POST', `${BASE}/events`, {
      events: [
        { type: 'consumption', eventId: 'late', amount: 1, timestamp: 49 }, // before the horizon: BEFORE_HORIZON
        { type: 'consumption', eventId: 'late', amount: 1, timestamp: 50 }, // logged
        { type: 'consumption', eventId: 'late', amount: 1, timestamp: 49 }, // now 'late' is logged: DUPLICATE_ID
        { type: 'grant', grantId: 'h', amount: 5, startTime: 40, endTime: 90 }, // BEFORE_HORIZON
        { type: 'grant', grantId: 'h', amount: 5, startTime: 50, endTime: 90 }, // 201
        { type: 'grant', grantId: 'h', amount: 5, startTime: 40, endTime: 90 }, // DUPLICATE_ID
      ],
    });
    assert.deepEqual(
      batch.json().results.map((r) => [r.status, r.error?.code ?? null]),
      [
        [409, 'BEFORE_HORIZON'],
        [200, null],
        [409, 'DUPLICATE_ID'],
        [409, 'BEFORE_HORIZON'],
        [201, null],
        [409, 'DUPLICATE_ID'],
      ],
    );
  } finally {
    await app.close();
  }
});

test('an id queued, cancelled and queued again: after a compaction its latest submission is the one that counts', async () => {
  const { app, inject } = await appWithCleanup(10);
  const post = (route, body) => inject('POST', `${BASE}/${route}`, body);
  try {
    assert.equal((await post('consumptions', { eventId: 'a', amount: 5, timestamp: 10, queue: true })).json().queued, true);
    assert.equal((await inject('DELETE', `${BASE}/pending/a`)).statusCode, 200);
    assert.equal((await post('consumptions', { eventId: 'a', amount: 7, timestamp: 20, queue: true })).json().queued, true);
    assert.equal((await post('grants', { grantId: 'g', amount: 1, startTime: 55, endTime: 1000 })).json().acceptedPending.length, 0);
    assert.equal((await post('consumptions', { eventId: 'c', amount: 1, timestamp: 60 })).statusCode, 200);
    assert.equal((await app.cleanup.runOnce())[0].horizon, 50);
    const code = async (body) => (await post('consumptions', body)).json().error?.code ?? 'OK';
    assert.equal(await code({ eventId: 'a', amount: 5, timestamp: 10 }), 'DUPLICATE_ID', 'the cancelled parameters');
    assert.equal(await code({ eventId: 'a', amount: 7, timestamp: 20 }), 'BEFORE_HORIZON', 'still queued when compacted: dropped');
    assert.equal((await inject('GET', `${BASE}/consumptions/a`)).statusCode, 404);
  } finally {
    await app.close();
  }
});

test('a cancelled id is free for other parameters, before a compaction as after it (also after a restart)', async () => {
  const dir = tempDir();
  let { app, inject } = await appWithCleanup(10, dir);
  const post = (route, body) => inject('POST', `${BASE}/${route}`, body);
  try {
    assert.equal((await post('grants', { grantId: 'g', amount: 100, startTime: 0, endTime: 5000 })).statusCode, 201);
    assert.equal((await post('consumptions', { eventId: 'x', amount: 500, timestamp: 15, queue: true })).json().queued, true);
    assert.equal((await inject('DELETE', `${BASE}/pending/x`)).statusCode, 200);
    assert.equal((await post('consumptions', { eventId: 'c', amount: 1, timestamp: 60 })).statusCode, 200);
    assert.equal((await app.cleanup.runOnce())[0].horizon, 50);
    for (const when of ['after the compaction', 'after a restart']) {
      const reused = await post('consumptions', { eventId: 'x', amount: 1, timestamp: 70, dryRun: true });
      assert.deepEqual([reused.statusCode, reused.json().accepted], [200, true], `${when}: ${reused.body}`);
      if (when === 'after the compaction') {
        await app.close();
        ({ app, inject } = await appWithCleanup(10, dir));
      }
    }
    const charged = await post('consumptions', { eventId: 'x', amount: 1, timestamp: 70 });
    assert.deepEqual([charged.statusCode, charged.json().accepted], [200, true], charged.body);
  } finally {
    await app.close();
  }
});

test('a consumption queued, let in by a grant or an end change, then compacted: GET and its retry answer it as accepted, also after a restart', async () => {
  const dir = tempDir();
  let { app, inject } = await appWithCleanup(10, dir);
  const post = (route, body) => inject('POST', `${BASE}/${route}`, body);
  const byGrant = { eventId: 'q1', amount: 7, timestamp: 20 };
  const byEnd = { eventId: 'q2', amount: 4, timestamp: 30 };
  try {
    assert.equal((await post('grants', { grantId: 'short', amount: 4, startTime: 0, endTime: 25 })).statusCode, 201);
    assert.equal((await post('grants', { grantId: 'spare', amount: 4, startTime: 0, endTime: 10 })).statusCode, 201);
    for (const event of [byGrant, byEnd]) assert.equal((await post('consumptions', { ...event, queue: true })).json().queued, true);
    assert.deepEqual((await post('grants', { grantId: 'g', amount: 3, startTime: 0, endTime: 25 })).json().acceptedPending, ['q1']);
    const patched = await inject('PATCH', `${BASE}/grants/spare`, { endTime: 40 });
    assert.deepEqual(patched.json().acceptedPending, ['q2']);
    assert.equal((await post('grants', { grantId: 'later', amount: 10, startTime: 0, endTime: 1000 })).statusCode, 201);
    assert.equal((await post('consumptions', { eventId: 'c', amount: 1, timestamp: 60 })).statusCode, 200);
    const balance = (await inject('GET', `${BASE}/balance?at=60`)).json().balance;
    assert.equal((await app.cleanup.runOnce())[0].horizon, 50);
    for (let round = 0; round < 2; round++) {
      const when = round === 0 ? 'after the compaction' : 'after a restart';
      for (const event of [byGrant, byEnd]) {
        const got = await inject('GET', `${BASE}/consumptions/${event.eventId}`);
        assert.equal(got.statusCode, 200, `${event.eventId} ${when}: ${got.body}`);
        assert.deepEqual(got.json(), { ...event, allocations: [] }, `${event.eventId} ${when}: final, not itemised`);
        const retry = await post('consumptions', { ...event, queue: true });
        assert.equal(retry.statusCode, 200, `${event.eventId} ${when}: ${retry.body}`);
        assert.deepEqual([retry.json().accepted, retry.json().queued], [true, false], `${event.eventId} ${when}`);
        assert.equal((await post('consumptions', { ...event, amount: event.amount + 1 })).json().error.code, 'DUPLICATE_ID');
      }
      assert.equal((await inject('GET', `${BASE}/balance?at=60`)).json().balance, balance, `${when}: nothing charged twice`);
      if (round === 0) {
        await app.close();
        ({ app, inject } = await appWithCleanup(10, dir));
      }
    }
  } finally {
    await app.close();
  }
});

test('a cancel retried answers as the first did, after a restart and a compaction too, until the id is queued again or accepted', async () => {
  const dir = tempDir();
  let { app, inject } = await appWithCleanup(10, dir);
  const cancel = async (eventId) => {
    const r = await inject('DELETE', `${BASE}/pending/${eventId}`);
    return [r.statusCode, r.json().cancelled ?? r.json().error.code];
  };
  const post = (route, body) => inject('POST', `${BASE}/${route}`, body);
  try {
    assert.equal((await post('consumptions', { eventId: 'q1', amount: 5, timestamp: 10, queue: true })).json().queued, true);
    assert.deepEqual(await cancel('q1'), [200, true]);
    assert.deepEqual(await cancel('q1'), [200, true], 'retried');
    assert.deepEqual(await cancel('never'), [404, 'NOT_FOUND'], 'an id never queued');
    assert.deepEqual((await inject('GET', `${BASE}/pending`)).json().pending, []);
    await app.close();
    ({ app, inject } = await appWithCleanup(10, dir));
    assert.deepEqual(await cancel('q1'), [200, true], 'after a restart');
    assert.equal((await post('grants', { grantId: 'g', amount: 100, startTime: 50, endTime: 1000 })).statusCode, 201);
    assert.equal((await post('consumptions', { eventId: 'c', amount: 1, timestamp: 60 })).statusCode, 200);
    assert.equal((await app.cleanup.runOnce())[0].horizon, 50);
    assert.deepEqual(await cancel('q1'), [200, true], 'after a compaction made it final');
    await app.close();
    ({ app, inject } = await appWithCleanup(10, dir));
    assert.deepEqual(await cancel('q1'), [200, true], 'after a restart from the compaction snapshot');
    // Queued again, then let in: no longer cancelled.
    assert.equal((await post('consumptions', { eventId: 'q2', amount: 500, timestamp: 70, queue: true })).json().queued, true);
    assert.deepEqual(await cancel('q2'), [200, true]);
    assert.equal((await post('consumptions', { eventId: 'q2', amount: 500, timestamp: 70, queue: true })).json().queued, true);
    assert.deepEqual((await post('grants', { grantId: 'h', amount: 500, startTime: 60, endTime: 1000 })).json().acceptedPending, ['q2']);
    assert.deepEqual(await cancel('q2'), [404, 'NOT_FOUND'], 'accepted since: nothing queued to cancel');
    assert.equal((await post('consumptions', { eventId: 'q3', amount: 1, timestamp: 70, queue: true })).json().queued, false);
    assert.deepEqual(await cancel('q3'), [404, 'NOT_FOUND'], 'accepted at once, never queued');
  } finally {
    await app.close();
  }
});
