// The group commit's SQL, shared by the store's own connection (cleanup job) and the
// commit thread's: per group, move the head from the seq its entries were computed on
// (0 rows changed = another writer got there first), then append the entries.
import { StoreConflictError } from './interface.js';

/** Opens the pragmas every connection of the store uses (WAL, durable commits). */
export function configure(db) {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
}

/** A better-sqlite3 transaction function `commit(groups)` over `db`; throws StoreConflictError. */
export function makeCommit(db) {
  const head = db.prepare('SELECT last_seq FROM heads WHERE customer = ?').pluck(true);
  const insert = db.prepare('INSERT INTO log (customer, seq, kind, id, amount, t1, t2) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const moveHead = db.prepare(
    `INSERT INTO heads (customer, last_seq) VALUES (?, ?)
     ON CONFLICT (customer) DO UPDATE SET last_seq = excluded.last_seq WHERE heads.last_seq = ?`,
  );
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
      for (const [kind, id, amount, t1, t2] of entries) insert.run(customer, ++seq, kind, id, amount, t1, t2);
    }
    if (conflicts.length > 0) throw new StoreConflictError(conflicts);
  });
}
