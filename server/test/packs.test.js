// Packs on the SQLite store: rebuilds through packs equal rebuilds from the rows, a
// compaction drops the packs it cut into, a rejected commit leaves no pack; and a
// database written before the packs migration loads from its rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../store/sqlite.js';
import { PACK_ROWS } from '../store/packs.js';
import { tempDir } from './helpers.js';
import { assertPacksRebuildLikeRows, commitLog, makeLog, packScenarios } from './support/pack-log.js';

const dir = tempDir();
let files = 0;
let path = null;

packScenarios({
  test,
  open: async () => {
    path = join(dir, `packs-${++files}.db`);
    const store = new SqliteStore(path);
    await store.open();
    return store;
  },
  packRanges: async (customer) => {
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare('SELECT first_seq, last_seq FROM packs WHERE customer = ? ORDER BY first_seq').raw(true).all(customer);
    } finally {
      db.close();
    }
  },
});

test('a log written before the packs migration loads from its rows, and gets packs for new ranges', async () => {
  const file = join(dir, 'old.db');
  let store = new SqliteStore(file);
  await store.open();
  const log = makeLog(2 * PACK_ROWS + 30, 3);
  await commitLog(store, 'old', log.slice(0, PACK_ROWS + 10));
  await store.close();
  // Back to the schema before the migration: no packs table (nor the later allocations
  // columns), user_version 2.
  const db = new Database(file);
  db.exec('DROP TABLE packs; ALTER TABLE log DROP COLUMN allocations; ALTER TABLE archive DROP COLUMN allocations');
  db.pragma('user_version = 2');
  db.close();
  store = new SqliteStore(file);
  await store.open();
  try {
    assert.equal((await assertPacksRebuildLikeRows(store, 'old')).length, 0);
    await commitLog(store, 'old', log.slice(PACK_ROWS + 10), { baseSeq: PACK_ROWS + 10 });
    const packs = await assertPacksRebuildLikeRows(store, 'old');
    assert.deepEqual(
      packs.map((p) => p.firstSeq),
      [PACK_ROWS + 1],
    );
  } finally {
    await store.close();
  }
});

test('a pack whose body is not its range is not used: load reads the rows', async () => {
  const file = join(dir, 'damaged.db');
  const store = new SqliteStore(file);
  await store.open();
  try {
    await commitLog(store, 'd', makeLog(3 * PACK_ROWS + 5, 4));
    const db = new Database(file);
    db.prepare('UPDATE packs SET body = substr(body, 1, 100) WHERE first_seq = ?').run(PACK_ROWS + 1);
    db.prepare('UPDATE packs SET last_seq = 1 WHERE first_seq = ?').run(2 * PACK_ROWS + 1);
    db.close();
    const packs = await assertPacksRebuildLikeRows(store, 'd');
    assert.deepEqual(
      packs.map((p) => p.firstSeq),
      [1],
    );
  } finally {
    await store.close();
  }
});

test('a pack of another size (LEDGER_PACK_ROWS changed) at a range start is replaced by the commit that completes the range', async () => {
  const file = join(dir, 'resized.db');
  const store = new SqliteStore(file);
  await store.open();
  try {
    const log = makeLog(2 * PACK_ROWS + 5, 7);
    await commitLog(store, 'r', log.slice(0, PACK_ROWS + 100));
    const db = new Database(file);
    db.prepare('INSERT INTO packs (customer, first_seq, last_seq, body) VALUES (?, ?, ?, ?)').run(
      'r',
      PACK_ROWS + 1,
      PACK_ROWS + 64,
      Buffer.alloc(8),
    );
    db.close();
    assert.equal((await assertPacksRebuildLikeRows(store, 'r')).length, 1, 'the other-sized pack is not used');
    await commitLog(store, 'r', log.slice(PACK_ROWS + 100), { baseSeq: PACK_ROWS + 100 });
    const packs = await assertPacksRebuildLikeRows(store, 'r');
    assert.deepEqual(
      packs.map((p) => [p.firstSeq, p.lastSeq]),
      [
        [1, PACK_ROWS],
        [PACK_ROWS + 1, 2 * PACK_ROWS],
      ],
    );
  } finally {
    await store.close();
  }
});
