// The group commit's SQL, shared by the store's own connection (cleanup job) and the
// commit thread's: per group, move the head from the seq its entries were computed on
// (0 rows changed = another writer got there first), then append the entries, and write
// the pack of every range of PACK_ROWS seqs the group completes (packs.js).
import { StoreConflictError } from './interface.js';
import { completedRanges, encodePack, PACK_ROWS } from './packs.js';

/** Opens the pragmas every connection of the store uses (WAL, durable commits). */
export function configure(db) {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
}

/** A better-sqlite3 transaction function `commit(groups)` over `db`; throws StoreConflictError. */
export function makeCommit(db) {
  const head = db.prepare('SELECT last_seq FROM heads WHERE customer = ?').pluck(true);
  const insert = db.prepare('INSERT INTO log (customer, seq, kind, id, amount, t1, t2, allocations) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const moveHead = db.prepare(
    `INSERT INTO heads (customer, last_seq) VALUES (?, ?)
     ON CONFLICT (customer) DO UPDATE SET last_seq = excluded.last_seq WHERE heads.last_seq = ?`,
  );
  const range = db
    .prepare('SELECT seq, kind, id, amount, t1, t2 FROM log WHERE customer = ? AND seq BETWEEN ? AND ? ORDER BY seq')
    .raw(true);
  const insertPack = db.prepare(
    `INSERT INTO packs (customer, first_seq, last_seq, body) VALUES (?, ?, ?, ?)
     ON CONFLICT (customer, first_seq) DO UPDATE SET last_seq = excluded.last_seq, body = excluded.body`,
  );
  // The packs of the ranges this group completes, in its transaction: the range's rows
  // from before the group are read back, the rest are the group's entries (as just
  // inserted). A range whose earlier rows the cleanup job archived gets no pack: load
  // never uses a pack that straddles a snapshot.
  const writePacks = (customer, baseSeq, entries) => {
    for (const last of completedRanges(baseSeq, baseSeq + entries.length)) {
      const first = last - PACK_ROWS + 1;
      const rows = first <= baseSeq ? range.all(customer, first, baseSeq) : [];
      if (rows.length !== Math.max(0, baseSeq - first + 1)) continue;
      for (let seq = Math.max(first, baseSeq + 1); seq <= last; seq++) rows.push([seq, ...entries[seq - baseSeq - 1]]);
      insertPack.run(customer, first, last, encodePack(rows));
    }
  };
  return db.transaction((groups) => {
    const conflicts = [];
    for (const { customer, baseSeq, entries } of groups) {
      const last = baseSeq + entries.length;
      let moved;
      if (baseSeq === 0) {
        // A customer without a head: the insert creates it; an existing head is a conflict.
        moved = head.get(customer) === undefined && moveHead.run(customer, last, 0).changes === 1;
      } else {
        moved = moveHead.run(customer, last, baseSeq).changes === 1;
      }
      if (!moved) {
        conflicts.push(customer);
        continue;
      }
      let seq = baseSeq;
      for (const [kind, id, amount, t1, t2, allocations = null] of entries) {
        insert.run(customer, ++seq, kind, id, amount, t1, t2, allocations);
      }
      writePacks(customer, baseSeq, entries);
    }
    if (conflicts.length > 0) throw new StoreConflictError(conflicts);
  });
}
