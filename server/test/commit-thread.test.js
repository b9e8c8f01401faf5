// The SQLite store's commit thread dying mid-run (ended from outside while commits are in
// flight): every write answered 2xx is on disk exactly once, every write answered 503 is
// not (a commit that reached the disk before its thread died is acknowledged, not
// refused), the thread is replaced and the service keeps serving, and a restart rebuilds
// exactly what was acknowledged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../store/sqlite.js';
import { client, random, startApp, tempDir } from './helpers.js';

const ROUNDS = 40;
const WRITES_PER_ROUND = 6;

test(
  'a dead commit thread: acknowledged writes are on disk, refused ones are not, and the service goes on',
  { timeout: 120_000 },
  async () => {
    const dir = tempDir();
    const path = join(dir, 'ledger.db');
    const rng = random(20261130);
    let service = await startApp({ store: new SqliteStore(path), dir });
    const acknowledged = new Set();
    const refused = new Set();
    let killed = 0;
    try {
      const c = client(service.url);
      const grant = await c.post('/v1/customers/t1/grants', { grantId: 'g', amount: 1e12, startTime: 0, endTime: 1e12 });
      assert.equal(grant.status, 201);
      for (let round = 0; round < ROUNDS; round++) {
        const writes = [];
        for (let i = 0; i < WRITES_PER_ROUND; i++) {
          const eventId = `r${round}-${i}`;
          writes.push(c.post('/v1/customers/t1/consumptions', { eventId, amount: 1, timestamp: round }).then((r) => [eventId, r]));
        }
        // End the thread 0-4 ms later: before, during or after the round's commits.
        await new Promise((resolve) => setTimeout(resolve, rng.int(0, 4)));
        const thread = service.store.commitThread;
        if (thread !== null) {
          killed++;
          await thread.terminate();
        }
        for (const [eventId, r] of await Promise.all(writes)) {
          if (r.status === 200) {
            assert.equal(r.body.accepted, true);
            acknowledged.add(eventId);
          } else {
            assert.equal(r.status, 503, JSON.stringify(r.body));
            refused.add(eventId);
          }
        }
      }
      assert.ok(killed >= ROUNDS / 2, `the thread was ended ${killed} times`);
      assert.ok(refused.size > 0, 'some commits were in flight when their thread died');
      assert.ok(acknowledged.size > 0, 'and some were acknowledged');
      // Replaced: the next write commits.
      const last = await c.post('/v1/customers/t1/consumptions', { eventId: 'last', amount: 1, timestamp: ROUNDS });
      assert.equal(last.status, 200);
      acknowledged.add('last');
      const served = (await c.get('/v1/customers/t1/ledger')).body.consumptions.map((x) => x.eventId);
      assert.deepEqual(new Set(served), acknowledged, 'the cached ledger holds exactly the acknowledged writes');
    } finally {
      await service.close();
    }
    const db = new Database(path, { readonly: true });
    let logged;
    try {
      logged = db.prepare("SELECT id FROM log WHERE customer = 't1' AND kind = 'consume'").pluck().all();
    } finally {
      db.close();
    }
    assert.equal(logged.length, new Set(logged).size, 'each logged once');
    assert.deepEqual(new Set(logged), acknowledged, 'on disk: exactly the acknowledged writes');
    service = await startApp({ store: new SqliteStore(path), dir });
    try {
      const rebuilt = (await client(service.url).get('/v1/customers/t1/ledger')).body.consumptions.map((x) => x.eventId);
      assert.deepEqual(new Set(rebuilt), acknowledged, 'a restart rebuilds exactly the acknowledged writes');
    } finally {
      await service.close();
    }
    console.log(`# commit thread ended ${killed} times: ${acknowledged.size} writes acknowledged, ${refused.size} refused (503)`);
  },
);
