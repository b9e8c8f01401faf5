// The embedded store: one SQLite file through better-sqlite3. Reads run on the main
// thread's connection (they resolve at once); group commits run on a commit thread with
// its own connection. WAL with synchronous=FULL: a commit is on disk before it resolves,
// so an acknowledged write survives a crash of the process or the machine.
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { CommitInDoubtError, findConsumptionEntry, StoreConflictError } from './interface.js';
import { configure, makeCommit } from './sqlite-commit.js';
import { decodePack, PACK_ROWS } from './packs.js';
import { decodeAllocations } from './allocations.js';

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
  // Archived ids are looked up (retries, and ids a compacted ledger no longer holds) by
  // (customer, id) per kind, as in the log and as on PostgreSQL: without these a lookup
  // read the customer's whole archive. UNIQUE where the ids are unique: without table
  // statistics SQLite prefers the primary key's (customer) prefix to a non-unique index.
  `
  CREATE UNIQUE INDEX archive_grant_id ON archive (customer, id) WHERE kind = 'grant';
  CREATE UNIQUE INDEX archive_consume_id ON archive (customer, id) WHERE kind = 'consume';
  CREATE INDEX archive_submit_id ON archive (customer, id) WHERE kind = 'submit';
  `,
  // Packs (packs.js): the log entries first_seq … last_seq of one customer, one columnar
  // body per full, aligned range of PACK_ROWS seqs, written with the commit that completes
  // the range; a rebuild reads them instead of the rows. Logs written before this
  // migration have no packs (load reads their rows). A rowid table: a body of 4,096
  // entries is 120 KB plus its ids.
  `
  CREATE TABLE packs (
    customer TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    body BLOB NOT NULL,
    UNIQUE (customer, first_seq)
  );
  `,
  // An accepted consumption's allocations as its first answer gave them (JSON), for its
  // identical retries (interface.js, *Retries*). Entries logged before have none.
  `
  ALTER TABLE log ADD COLUMN allocations TEXT;
  ALTER TABLE archive ADD COLUMN allocations TEXT;
  `,
];

/**
 * The lookup of an id's latest entry of `kind` in a customer's log and archive (retries, and
 * ids a compacted ledger no longer holds). Each arm names the kind's partial index on
 * (customer, id): without table statistics SQLite preferred the primary key's (customer)
 * prefix for `submit`, whose index is not unique, and read the customer's whole log and
 * archive per lookup (writes to a compacted customer slowed down as its archive grew).
 */
export function findEntrySql(kind) {
  return `SELECT amount, t1, t2, allocations, seq FROM log INDEXED BY log_${kind}_id WHERE customer = ? AND kind = '${kind}' AND id = ?
    UNION ALL SELECT amount, t1, t2, allocations, seq FROM archive INDEXED BY archive_${kind}_id WHERE customer = ? AND kind = '${kind}' AND id = ?
    ORDER BY seq DESC LIMIT 1`;
}

export class SqliteStore {
  #path;
  #db = null;
  #sql = null;
  #thread = null;
  #commits = new Map(); // commit id → { resolve, reject, groups }, in flight on the commit thread
  #lastCommitId = 0;
  #closing = false;

  constructor(path) {
    this.#path = path;
  }

  async open() {
    const db = new Database(this.#path);
    configure(db);
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
      // load()'s pages: a rebuild reads the log up to PACK_ROWS entries at a time, or a pack.
      page: entries('SELECT seq, kind, id, amount, t1, t2 FROM log WHERE customer = ? AND seq > ? ORDER BY seq LIMIT ?'),
      pack: db.prepare('SELECT last_seq, body FROM packs WHERE customer = ? AND first_seq = ?').raw(true),
      // A pack whose range starts at or before a compaction's seq lost rows to the archive.
      dropPacks: db.prepare('DELETE FROM packs WHERE customer = ? AND first_seq <= ?'),
      // Retries of events a compacted ledger no longer holds (the cleanup job archived them).
      // One statement per kind, the kind written out, so that both arms use the kind's
      // partial index on (customer, id). The latest entry: an id may be queued (`submit`)
      // again after a cancel, and the latest submission is the one that counts.
      findEntry: Object.fromEntries(['grant', 'consume', 'submit'].map((kind) => [kind, db.prepare(findEntrySql(kind))])),
      saveSnapshot: db.prepare('INSERT INTO snapshots (customer, seq, horizon, document) VALUES (?, ?, ?, ?)'),
      archive: db.prepare(
        `INSERT INTO archive (customer, seq, kind, id, amount, t1, t2, allocations)
         SELECT customer, seq, kind, id, amount, t1, t2, allocations FROM log WHERE customer = ? AND seq <= ?`,
      ),
      unlog: db.prepare('DELETE FROM log WHERE customer = ? AND seq <= ?'),
      // Older snapshots are derived data (the archive keeps the history): only the latest is read.
      dropOldSnapshots: db.prepare('DELETE FROM snapshots WHERE customer = ? AND seq < ?'),
    };
    // This connection's commit serves the cleanup job; the group commit goes through the
    // commit thread (sqlite-commit-thread.js), which has its own connection.
    this.#sql.commit = makeCommit(db);
    await this.#startThread();
  }

  /** See interface.js: the cleanup job's append + snapshot + archive, in one transaction. */
  async compact(customer, baseSeq, entries, horizon, document) {
    const seq = baseSeq + entries.length;
    const text = JSON.stringify(document);
    this.#db
      .transaction(() => {
        this.#sql.commit.default([{ customer, baseSeq, entries }]); // nested: a savepoint
        this.#sql.saveSnapshot.run(customer, seq, horizon, text);
        this.#sql.archive.run(customer, seq);
        this.#sql.unlog.run(customer, seq);
        this.#sql.dropPacks.run(customer, seq);
        this.#sql.dropOldSnapshots.run(customer, seq);
      })
      .immediate();
    return seq;
  }

  async findEntries(customer, kind, ids) {
    // One indexed lookup each: on SQLite a lookup is a function call, not a round trip.
    const found = new Map();
    for (const id of ids) {
      const entry = this.#sql.findEntry[kind].get(customer, id, customer, id);
      if (entry !== undefined)
        found.set(id, { amount: entry.amount, t1: entry.t1, t2: entry.t2, allocations: decodeAllocations(entry.allocations) });
    }
    return found;
  }

  async findEntry(customer, kind, id) {
    return (await this.findEntries(customer, kind, [id])).get(id) ?? null;
  }

  async load(customer) {
    const row = this.#sql.snapshot.get(customer);
    const snapshot = row === undefined ? null : { seq: row.seq, horizon: row.horizon, document: JSON.parse(row.document) };
    const after = snapshot === null ? 0 : snapshot.seq;
    const lastSeq = this.#sql.head.get(customer) ?? after;
    // Read in pages, not materialised: a million-entry log read into one array costs
    // more than replaying it, and each page's rows die young (the replay takes them in
    // runs of the same size), where rows kept across a long run survive into V8's old
    // generation and cost full collections. .all() per page also beats .iterate() per
    // row. The generator reads only when iterated, and the caller iterates at once
    // (CustomerLedger.rebuild), before any other store call.
    // Pages follow the pack ranges: rows up to the next aligned start, then, from an
    // aligned start, the range's pack if there is one (first_seq is the one expected,
    // last_seq and body hold the whole range), else its rows. A pack never straddles the
    // snapshot: packs are looked up only at aligned starts after it.
    const { page, pack: packAt } = this.#sql;
    const entries = (function* pages() {
      for (let seq = after; ;) {
        if (seq % PACK_ROWS === 0) {
          const row = packAt.get(customer, seq + 1);
          const pack = row === undefined || row[0] !== seq + PACK_ROWS ? null : decodePack(seq + 1, row[0], row[1]);
          if (pack !== null) {
            yield pack;
            seq = pack.lastSeq;
            continue;
          }
        }
        const limit = PACK_ROWS - (seq % PACK_ROWS);
        const rows = page.all(customer, seq, limit);
        yield* rows;
        if (rows.length < limit) return;
        seq = rows[rows.length - 1][0];
      }
    })();
    return { snapshot, entries, lastSeq };
  }

  async readAfter(customer, seq) {
    return this.#sql.after.all(customer, seq);
  }

  /** Appends on the commit thread; resolves once the transaction is on disk. */
  commit(groups) {
    if (this.#thread === null) return Promise.reject(new Error('the SQLite commit thread is not running'));
    return new Promise((resolve, reject) => {
      const id = ++this.#lastCommitId;
      this.#commits.set(id, { resolve, reject, groups });
      this.#thread.postMessage({ id, groups });
    });
  }

  #startThread() {
    const thread = new Worker(new URL('./sqlite-commit-thread.js', import.meta.url), { workerData: { path: this.#path } });
    this.#thread = thread;
    thread.on('message', (message) => {
      if (message.ready) return;
      const commit = this.#commits.get(message.id);
      this.#commits.delete(message.id);
      if (message.error === undefined) commit.resolve();
      else if (message.error.conflicts) commit.reject(new StoreConflictError(message.error.conflicts));
      else commit.reject(new Error(message.error.message));
    });
    // A dead thread's commits are settled from the store (see #threadDied) and the thread
    // is replaced, so that the service keeps serving.
    thread.on('error', (error) => this.#threadDied(thread, error));
    thread.on('exit', (code) => this.#threadDied(thread, new Error(`the SQLite commit thread exited with code ${code}`)));
    return new Promise((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
    });
  }

  /** The commit thread (the service's tests end it to check the recovery). */
  get commitThread() {
    return this.#thread;
  }

  #threadDied(thread, error) {
    if (this.#thread !== thread) return;
    this.#thread = null;
    const held = [...this.#commits.values()];
    this.#commits.clear();
    // The thread may have died after a transaction committed and before it said so. Its
    // connection is gone (SQLite rolled back whatever it had not committed), so the heads
    // tell: a commit whose every head moved to the end of its entries is on disk and is
    // acknowledged; one whose heads did not move failed. Commits run one at a time per
    // customer (the service waits for one before sending the next), so nothing else moves
    // these heads meanwhile.
    for (const commit of held) {
      let outcome;
      try {
        outcome = this.#committedOutcome(commit.groups);
      } catch (readError) {
        outcome = new CommitInDoubtError(readError);
      }
      if (outcome === true) commit.resolve();
      else commit.reject(outcome === false ? error : outcome);
    }
    if (!this.#closing) this.#startThread().catch(() => {});
  }

  // true: every group is on disk; false: none is; a CommitInDoubtError if the store cannot tell.
  #committedOutcome(groups) {
    let moved = 0;
    for (const { customer, baseSeq, entries } of groups) {
      const head = this.#sql.head.get(customer) ?? 0;
      if (head === baseSeq + entries.length && entries.length > 0) moved++;
      else if (head !== baseSeq) return new CommitInDoubtError(new Error(`the head of ${JSON.stringify(customer)} is at ${head}`));
    }
    if (moved === 0) return false;
    if (moved === groups.length) return true;
    return new CommitInDoubtError(new Error('a commit that died with its thread is on disk for some customers only'));
  }

  async findConsumption(customer, eventId) {
    return findConsumptionEntry(this, customer, eventId);
  }

  async ping() {
    if (this.#db === null) throw new Error('the store is closed');
    this.#sql.head.get('');
  }

  async close() {
    this.#closing = true;
    const thread = this.#thread;
    this.#thread = null;
    if (thread !== null) await thread.terminate();
    if (this.#db === null) return;
    this.#db.close();
    this.#db = null;
  }
}
