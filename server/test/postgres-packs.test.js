// Packs on the PostgreSQL store: rebuilds through packs equal rebuilds from the rows, a
// compaction drops the packs it cut into, a rejected commit leaves no pack, and a group
// commit of several customers writes their packs too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresStore } from '../store/postgres.js';
import { PACK_ROWS } from '../store/packs.js';
import { startPostgres } from './support/postgres.js';
import { assertPacksRebuildLikeRows, commitLog, makeLog, packScenarios } from './support/pack-log.js';

let server;
before(async () => {
  server = await startPostgres();
});
after(() => server?.stop());

async function open() {
  const store = new PostgresStore(server.url);
  await store.open();
  return store;
}

async function packRanges(customer) {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    const { rows } = await client.query({
      text: 'SELECT first_seq::int, last_seq::int FROM packs WHERE customer_id = $1 ORDER BY first_seq',
      values: [customer],
      rowMode: 'array',
    });
    return rows;
  } finally {
    await client.end();
  }
}

packScenarios({ test, open, packRanges });

test('a group commit of several customers writes the packs each completes, ids with U+0000 included', async () => {
  const store = await open();
  try {
    const logs = ['m1', 'm2'].map((customer, k) => [
      customer,
      makeLog(PACK_ROWS + 300, 20 + k).map(([kind, id, ...rest]) => [kind, `${id}\u0000`, ...rest]),
    ]);
    const seq = new Map();
    for (let at = 0; at < PACK_ROWS + 300; at += 700) {
      const groups = logs.map(([customer, log]) => ({ customer, baseSeq: seq.get(customer) ?? 0, entries: log.slice(at, at + 700) }));
      await store.commit(groups);
      for (const g of groups) seq.set(g.customer, g.baseSeq + g.entries.length);
    }
    for (const [customer] of logs) {
      assert.deepEqual(await packRanges(customer), [[1, PACK_ROWS]]);
      assert.equal((await assertPacksRebuildLikeRows(store, customer)).length, 1);
    }
    await commitLog(
      store,
      'm1',
      makeLog(10, 30).map(([kind, id, ...rest]) => [kind, `late-${id}`, ...rest]),
      { baseSeq: seq.get('m1') },
    );
    assert.equal((await assertPacksRebuildLikeRows(store, 'm1')).length, 1);
  } finally {
    await store.close();
  }
});
