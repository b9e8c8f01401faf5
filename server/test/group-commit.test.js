// The group commit itself, without HTTP: writes of one event-loop turn over several
// customers go to the store in ONE commit and are answered only after it; a failed
// commit rejects all of them, and the customers are rebuilt from what was committed.
// Also: when the shared WebAssembly heap is full, idle ledgers are evicted for a retry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LedgerService } from '../ledger/service.js';
import * as ops from '../ledger/operations.js';
import { LedgerError } from 'gpu-credit-ledger';

/** An in-memory store: the log as arrays, commits recorded, failures on demand. */
class MemoryStore {
  logs = new Map();
  commits = [];
  failNext = false;
  async load(customer) {
    const entries = this.logs.get(customer) ?? [];
    return { snapshot: null, entries, lastSeq: entries.length };
  }
  async readAfter(customer, seq) {
    return (this.logs.get(customer) ?? []).slice(seq);
  }
  async commit(groups) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.commits.push(groups.map((g) => [g.customer, g.entries.length]));
    if (this.failNext) {
      this.failNext = false;
      throw new Error('injected');
    }
    for (const { customer, baseSeq, entries } of groups) {
      const log = this.logs.get(customer) ?? [];
      assert.equal(log.length, baseSeq, 'each group is computed on the committed seq');
      for (const entry of entries) log.push([log.length + 1, ...entry]);
      this.logs.set(customer, log);
    }
  }
  async findConsumption() {
    return null;
  }
  async close() {}
}

const balance = ops.read((ledger, at) => ledger.getBalance(at));
const grant = (grantId, amount) => ({ grantId, amount, startTime: 0, endTime: 10 });

test('one turn of writes over three customers is one commit, answered after it', async () => {
  const store = new MemoryStore();
  const service = new LedgerService({ store });
  const order = [];
  const answers = ['a', 'b', 'c'].map((customer, i) =>
    service.run(customer, ops.addGrant, grant('g', 10 + i)).then((r) => {
      order.push(store.commits.length);
      return r;
    }),
  );
  const read = service.run('a', balance, 5).then((r) => (order.push(store.commits.length), r));
  const results = await Promise.all(answers);
  assert.deepEqual(
    results.map((r) => r.status),
    [201, 201, 201],
  );
  assert.deepEqual(
    store.commits,
    [
      [
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ],
    ],
    'one commit with three groups',
  );
  assert.deepEqual(order.slice(0, 3), [1, 1, 1], 'answered after the commit');
  assert.equal((await read).body, 10, 'the read behind the write sees it, after the commit');
  await service.close();
});

test('a failed commit rejects the whole batch; later requests see only what was committed', async () => {
  const store = new MemoryStore();
  const service = new LedgerService({ store });
  await service.run('a', ops.addGrant, grant('g0', 5));
  store.failNext = true;
  const batch = await Promise.allSettled([
    service.run('a', ops.addGrant, grant('g1', 100)),
    service.run('b', ops.addGrant, grant('g1', 100)),
    service.run('a', ops.consume, { eventId: 'c', amount: 50, timestamp: 1 }),
    service.run('a', balance, 1),
  ]);
  for (const outcome of batch) {
    assert.equal(outcome.status, 'rejected');
    assert.equal(outcome.reason.statusCode, 503);
  }
  assert.equal((await service.run('a', balance, 1)).body, 5);
  assert.equal((await service.run('b', balance, 1)).body, 0);
  const retry = await service.run('a', ops.consume, { eventId: 'c', amount: 50, timestamp: 1 });
  assert.equal(retry.body.accepted, false, 'the grant of the failed batch is not there');
  await service.close();
});

test('a request the shared heap cannot hold evicts the other idle ledgers and runs again', async () => {
  const store = new MemoryStore();
  const service = new LedgerService({ store });
  await service.run('a', ops.addGrant, grant('g', 10));
  await service.run('b', ops.addGrant, grant('g', 20));
  let calls = 0;
  // Fails like the package does when the heap cannot grow (the ledger unchanged), once.
  const hungry = ops.read((ledger, at) => {
    calls++;
    if (calls === 1) throw new LedgerError('OUT_OF_MEMORY', 'getBalance: the WebAssembly heap cannot grow enough for this call');
    return ledger.getBalance(at);
  });
  assert.equal((await service.run('c', hungry, 1)).body, 0);
  assert.equal(calls, 2, 'run again after the eviction');
  assert.equal(service.cachedCount, 1, 'a and b were evicted');
  assert.equal((await service.run('b', balance, 1)).body, 20, 'and answer as before, rebuilt from the log');

  // Nothing left to evict: the 503 goes to the client.
  const stuck = ops.read(() => {
    throw new LedgerError('OUT_OF_MEMORY', 'getBalance: the WebAssembly heap cannot grow enough for this call');
  });
  await service.run('a', balance, 1);
  const alone = new LedgerService({ store });
  await assert.rejects(alone.run('a', stuck, 1), (error) => error.statusCode === 503 && error.code === 'UNAVAILABLE');
  await alone.close();
  await service.close();
});

test("a retry of a grant's first add after an end change in the same turn is an identical retry", async () => {
  // The add is still uncommitted when the retry runs: its parameters are looked up in the
  // store once the turn's batch has committed, not before (when the store had none).
  class LookingStore extends MemoryStore {
    lookups = [];
    async findEntries(customer, kind, ids) {
      this.lookups.push([kind, ...ids]);
      const found = new Map();
      for (const [, entryKind, id, amount, t1, t2] of this.logs.get(customer) ?? []) {
        if (entryKind === kind && ids.includes(id) && !found.has(id)) found.set(id, { amount, t1, t2, allocations: null });
      }
      return found;
    }
  }
  const store = new LookingStore();
  const service = new LedgerService({ store });
  const first = { grantId: 'G', amount: 10, startTime: 0, endTime: 10 };
  const answers = await Promise.allSettled([
    service.run('a', ops.addGrant, first),
    service.run('a', ops.setGrantEnd, { grantId: 'G', endTime: 20 }),
    service.run('a', ops.addGrant, first),
    service.run('a', ops.addGrant, { ...first, amount: 11 }),
  ]);
  assert.deepEqual(
    answers.map((answer) => answer.value?.status ?? answer.reason.code),
    [201, 200, 200, 'DUPLICATE_ID'],
  );
  assert.deepEqual(
    store.lookups,
    [
      ['grant', 'G'],
      ['grant', 'G'],
    ],
    'looked up after the batch of the add committed',
  );
  assert.equal(store.commits.length, 1);
  const burnDown = ops.read((ledger, id) => ledger.burnDown(id));
  assert.equal((await service.run('a', burnDown, 'G')).body.endTime, 20, 'the retry changed nothing');
  assert.deepEqual(
    store.logs.get('a').map((entry) => entry[1]),
    ['grant', 'end'],
  );
  await service.close();
});

test('a cached read behind a strong one is answered while the strong one waits on the store', async () => {
  // A shared store (several instances): a strong read first catches the ledger up with the
  // log. While that read of the store hangs, a cached read needs no round trip.
  class SharedStore extends MemoryStore {
    shared = true;
    hold = null;
    async readAfter(customer, seq) {
      if (this.hold !== null) await this.hold;
      return super.readAfter(customer, seq);
    }
  }
  const store = new SharedStore();
  const service = new LedgerService({ store });
  await service.run('a', ops.addGrant, grant('g', 10));
  let release;
  store.hold = new Promise((resolve) => {
    release = resolve;
  });
  let strongDone = false;
  const strong = service.run('a', balance, 5).then((answer) => ((strongDone = true), answer));
  const cached = await service.run('a', balance, 5, 'cached');
  assert.equal(cached.body, 10);
  assert.equal(strongDone, false, 'the strong read still waits for the store');
  store.hold = null;
  release();
  assert.equal((await strong).body, 10);
  await service.close();
});

test('a read answered with writes of the same commit says the seq it reflects (x-ledger-seq), that commit included', async () => {
  const service = new LedgerService({ store: new MemoryStore() });
  assert.equal((await service.run('s', ops.addGrant, grant('g', 100))).status, 201); // seq 1
  // One turn: two writes, a read between them and one after; one commit for all.
  const consumption = (eventId, amount) => ({ eventId, amount, timestamp: 1 });
  const [, between, , last] = await Promise.all([
    service.run('s', ops.consume, consumption('a', 5)),
    service.run('s', balance, 1),
    service.run('s', ops.consume, consumption('b', 7)),
    service.run('s', balance, 1),
  ]);
  assert.deepEqual([between.body, between.view.seq], [95, 2]);
  assert.deepEqual([last.body, last.view.seq], [88, 3]);
});
