// The embedded store: one SQLite file through better-sqlite3 (synchronous calls; the
// async methods resolve at once). WAL with synchronous=FULL: a commit is on disk before
// it returns, so an acknowledged write survives a crash of the process or the machine.
import Database from 'better-sqlite3';
import { StoreConflictError } from './interface.js';

// Each migration runs once, in order; PRAGMA user_version records how far a file got.
const MIGRATIONS = [
  `
  CREATE TABLE log (
    customer TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    amount INTEGER,
    t1 INTEGER,
    t2 INTEGER,
    PRIMARY KEY (customer, seq)
  ) WITHOUT ROWID;
  -- Ids are the idempotency keys: an add can never be logged twice.
  CREATE UNIQUE INDEX log_grant_id ON log (customer, id) WHERE kind = 'grant';
  CREATE UNIQUE INDEX log_consume_id ON log (customer, id) WHERE kind = 'consume';
  -- GET .../consumptions/{id} of a consumption that was queued first.
  CREATE INDEX log_submit_id ON log (customer, id) WHERE kind = 'submit';
  CREATE TABLE heads (
    customer TEXT PRIMARY KEY,
    last_seq INTEGER NOT NULL
  ) WITHOUT ROWID;
  -- For the cleanup job: a customer's ledger as of seq, and the entries it replaced.
  CREATE TABLE snapshots (
    customer TEXT NOT NULL,
    seq INTEGER NOT NULL,
    horizon INTEGER NOT NULL,
    document TEXT NOT NULL,
    PRIMARY KEY (customer, seq)
  ) WITHOUT ROWID;
  CREATE TABLE archive (
    customer TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    amount INTEGER,
    t1 INTEGER,
    t2 INTEGER,
    PRIMARY KEY (customer, seq)
  ) WITHOUT ROWID;
  `,
];

export class SqliteStore {
  #path;
  #db = null;
  #sql = null;

  constructor(path) {
    this.#path = path;
  }

  async open() {
    const db = new Database(this.#path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    const migrate = db.transaction(() => {
      const version = db.pragma('user_version', { simple: true });
      for (let v = version; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]);
      if (version < MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
    });
    migrate.immediate();
    this.#db = db;
    const entries = (sql) => db.prepare(sql).raw(true);
    this.#sql = {
      head: db.prepare('SELECT last_seq FROM heads WHERE customer = ?').pluck(true),
      snapshot: db.prepare('SELECT seq, horizon, document FROM snapshots WHERE customer = ? ORDER BY seq DESC LIMIT 1'),
      after: entries('SELECT seq, kind, id, amount, t1, t2 FROM log WHERE customer = ? AND seq > ? ORDER BY seq'),
      insert: db.prepare('INSERT INTO log (customer, seq, kind, id, amount, t1, t2) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      // Moves a head only from the seq the writer computed on: 0 rows changed = conflict.
      moveHead: db.prepare(
        `INSERT INTO heads (customer, last_seq) VALUES (?, ?)
         ON CONFLICT (customer) DO UPDATE SET last_seq = excluded.last_seq WHERE heads.last_seq = ?`,
      ),
      // Log or archive: after a cleanup pass, consumptions at or after the horizon may be archived.
      consumed: db.prepare(
        `SELECT amount, t1 AS timestamp FROM log WHERE customer = @customer AND id = @id AND kind = 'consume'
         UNION ALL SELECT amount, t1 AS timestamp FROM archive WHERE customer = @customer AND id = @id AND kind = 'consume'`,
      ),
      // Retries of events a compacted ledger no longer holds (the cleanup job archived them).
      findEntry: db.prepare(
        `SELECT amount, t1, t2 FROM log WHERE customer = ? AND kind = ? AND id = ?
         UNION ALL SELECT amount, t1, t2 FROM archive WHERE customer = ? AND kind = ? AND id = ? LIMIT 1`,
      ),
      saveSnapshot: db.prepare('INSERT INTO snapshots (customer, seq, horizon, document) VALUES (?, ?, ?, ?)'),
      archive: db.prepare('INSERT INTO archive SELECT customer, seq, kind, id, amount, t1, t2 FROM log WHERE customer = ? AND seq <= ?'),
      unlog: db.prepare('DELETE FROM log WHERE customer = ? AND seq <= ?'),
      submitted: db.prepare(
        `SELECT amount, t1 AS timestamp, seq FROM log WHERE customer = @customer AND id = @id AND kind = 'submit'
         UNION ALL SELECT amount, t1 AS timestamp, seq FROM archive WHERE customer = @customer AND id = @id AND kind = 'submit'
         ORDER BY seq DESC LIMIT 1`,
      ),
    };
    this.#sql.commit = db.transaction((groups) => {
      const conflicts = [];
      for (const { customer, baseSeq, entries: list } of groups) {
        const last = baseSeq + list.length;
        // For a customer without a head, baseSeq must be 0: the insert creates it.
        const moved = baseSeq === 0 ? this.#createHead(customer, last) : this.#sql.moveHead.run(customer, last, baseSeq).changes === 1;
        if (!moved) {
          conflicts.push(customer);
          continue;
        }
        let seq = baseSeq;
        for (const [kind, id, amount, t1, t2] of list) this.#sql.insert.run(customer, ++seq, kind, id, amount, t1, t2);
      }
      if (conflicts.length > 0) throw new StoreConflictError(conflicts);
    });
  }

  /** See interface.js: the cleanup job's append + snapshot + archive, in one transaction. */
  async compact(customer, baseSeq, entries, horizon, document) {
    const seq = baseSeq + entries.length;
    const text = JSON.stringify(document);
    this.#db.transaction(() => {
      this.#sql.commit.default([{ customer, baseSeq, entries }]); // nested: a savepoint
      this.#sql.saveSnapshot.run(customer, seq, horizon, text);
      this.#sql.archive.run(customer, seq);
      this.#sql.unlog.run(customer, seq);
    }).immediate();
    return seq;
  }

  async findEntry(customer, kind, id) {
    return this.#sql.findEntry.get(customer, kind, id, customer, kind, id) ?? null;
  }

  #createHead(customer, last) {
    if (this.#sql.head.get(customer) !== undefined) return false;
    this.#sql.moveHead.run(customer, last, 0);
    return true;
  }

  async load(customer) {
    const row = this.#sql.snapshot.get(customer);
    const snapshot = row === undefined ? null : { seq: row.seq, horizon: row.horizon, document: JSON.parse(row.document) };
    const after = snapshot === null ? 0 : snapshot.seq;
    const lastSeq = this.#sql.head.get(customer) ?? after;
    // Streamed, not materialised: a million-entry log read into one array costs more
    // than replaying it. The generator opens the statement only when iterated, and the
    // caller iterates at once (CustomerLedger.rebuild), before any other store call.
    const statement = this.#sql.after;
    const entries = (function* stream() {
      yield* statement.iterate(customer, after);
    })();
    return { snapshot, entries, lastSeq };
  }

  async readAfter(customer, seq) {
    return this.#sql.after.all(customer, seq);
  }

  async commit(groups) {
    this.#sql.commit.immediate(groups);
  }

  async findConsumption(customer, eventId) {
    const key = { customer, id: eventId };
    const found = this.#sql.consumed.get(key) ?? this.#sql.submitted.get(key);
    return found === undefined ? null : { amount: found.amount, timestamp: found.timestamp };
  }

  async close() {
    if (this.#db === null) return;
    this.#db.close();
    this.#db = null;
  }
}
