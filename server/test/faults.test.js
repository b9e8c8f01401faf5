// Faults: a store whose commits fail on demand. The requests of a failed batch get 503
// UNAVAILABLE, nothing of them is visible afterwards, and the server keeps serving.
// Also: a read queued behind a write is answered only after that write's commit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteStore } from '../store/sqlite.js';
import { client, startApp, tempDir } from './helpers.js';

/**
 * Wraps a store: the next `failCommits` commits throw, and every commit while `failing`;
 * `commitDelayMs` holds each commit back; `commitsEnded` records when commits end.
 */
class FaultyStore {
  failCommits = 0;
  failing = false;
  commitDelayMs = 0;
  commitsEnded = [];
  constructor(inner) {
    this.inner = inner;
  }
  open() {
    return this.inner.open();
  }
  load(customer) {
    return this.inner.load(customer);
  }
  readAfter(customer, seq) {
    return this.inner.readAfter(customer, seq);
  }
  findConsumption(customer, eventId) {
    return this.inner.findConsumption(customer, eventId);
  }
  close() {
    return this.inner.close();
  }
  async commit(groups) {
    if (this.commitDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.commitDelayMs));
    try {
      if (this.failing || this.failCommits > 0) {
        if (!this.failing) this.failCommits--;
        throw new Error('disk on fire (injected)');
      }
      return await this.inner.commit(groups);
    } finally {
      this.commitsEnded.push(performance.now());
    }
  }
}

let service;
let store;
let c;

before(async () => {
  const dir = tempDir();
  store = new FaultyStore(new SqliteStore(join(dir, 'ledger.db')));
  service = await startApp({ store, dir });
  c = client(service.url);
});

after(() => service?.close());

async function view(customer) {
  const base = `/v1/customers/${customer}`;
  return {
    ledger: (await c.get(`${base}/ledger`)).body,
    balance: (await c.get(`${base}/balance?at=5`)).body,
    pending: (await c.get(`${base}/pending`)).body,
    c9: (await c.get(`${base}/consumptions/c9`)).status,
  };
}

test('a failed commit answers 503 to its whole batch and leaves no trace', async () => {
  assert.equal((await c.post('/v1/customers/f1/grants', { grantId: 'g1', amount: 100, startTime: 0, endTime: 10 })).status, 201);
  assert.equal((await c.post('/v1/customers/f1/grants', { grantId: 'g0', amount: 5, startTime: 0, endTime: 20 })).status, 201);
  assert.equal((await c.post('/v1/customers/f1/consumptions', { eventId: 'c1', amount: 30, timestamp: 5 })).body.accepted, true);
  const before1 = await view('f1');
  const before2 = await view('f2');

  store.failing = true;
  const answers = await Promise.all([
    c.post('/v1/customers/f1/consumptions', { eventId: 'c9', amount: 10, timestamp: 5 }),
    c.post('/v1/customers/f1/grants', { grantId: 'g2', amount: 7, startTime: 0, endTime: 3 }),
    c.post('/v1/customers/f2/events', { events: [{ type: 'grant', grantId: 'x', amount: 5, startTime: 0, endTime: 9 }] }),
    c.post('/v1/customers/f1/consumptions', { eventId: 'q1', amount: 1000, timestamp: 5, queue: true }),
    c.post('/v1/customers/f1/grants/g0/void'),
    c('PATCH', '/v1/customers/f1/grants/g1', { body: { endTime: 12 } }),
  ]);
  store.failing = false;
  for (const answer of answers) {
    assert.equal(answer.status, 503, JSON.stringify(answer.body));
    assert.equal(answer.body.error.code, 'UNAVAILABLE');
    assert.ok(answer.headers.get('retry-after'));
  }
  assert.deepEqual(await view('f1'), before1, 'nothing of the failed batch is visible for f1');
  assert.deepEqual(await view('f2'), before2, 'nothing of the failed batch is visible for f2');

  // The server keeps serving, and the same requests now succeed.
  const retried = await c.post('/v1/customers/f1/consumptions', { eventId: 'c9', amount: 10, timestamp: 5 });
  assert.equal(retried.status, 200);
  assert.equal(retried.body.accepted, true);
  assert.equal((await c.get('/v1/customers/f1/balance?at=5')).body.balance, 65);
  assert.equal((await c.get('/v1/customers/f1/consumptions/c9')).status, 200);
});

test('a failed commit of one request leaves the next request of the same customer correct', async () => {
  store.failCommits = 1;
  const failed = await c.post('/v1/customers/f3/grants', { grantId: 'g', amount: 10, startTime: 0, endTime: 10 });
  assert.equal(failed.status, 503);
  // Had the failed grant stayed in the cache, this would be accepted.
  const rejected = await c.post('/v1/customers/f3/consumptions', { eventId: 'c', amount: 5, timestamp: 1 });
  assert.equal(rejected.body.accepted, false);
  assert.equal(rejected.body.reason, 'INSUFFICIENT_CREDIT');
  assert.equal((await c.post('/v1/customers/f3/grants', { grantId: 'g', amount: 10, startTime: 0, endTime: 10 })).status, 201);
});

test('a read behind an uncommitted write waits for the commit and sees it', async () => {
  await c.post('/v1/customers/f4/grants', { grantId: 'g', amount: 50, startTime: 0, endTime: 10 });
  store.commitDelayMs = 150;
  store.commitsEnded = [];
  try {
    const write = c.post('/v1/customers/f4/consumptions', { eventId: 'w', amount: 20, timestamp: 2 });
    await new Promise((resolve) => setTimeout(resolve, 40)); // the write is applied, its commit pending
    const read = await c.get('/v1/customers/f4/balance?at=5');
    const answeredAt = performance.now();
    assert.equal(read.body.balance, 30, 'the read sees the write');
    assert.ok(store.commitsEnded.length >= 1 && store.commitsEnded[0] <= answeredAt, 'answered only after the commit');
    assert.equal((await write).body.accepted, true);

    // And if that commit fails, the read behind it must not have shown the write.
    store.failCommits = 1;
    const write2 = c.post('/v1/customers/f4/consumptions', { eventId: 'w2', amount: 20, timestamp: 2 });
    await new Promise((resolve) => setTimeout(resolve, 40));
    const read2 = await c.get('/v1/customers/f4/balance?at=5');
    assert.equal((await write2).status, 503);
    assert.ok(read2.status === 503 || read2.body.balance === 30, `read behind a failed commit: ${JSON.stringify(read2.body)}`);
    assert.equal((await c.get('/v1/customers/f4/balance?at=5')).body.balance, 30);
  } finally {
    store.commitDelayMs = 0;
  }
});
