// The PostgreSQL store (LEDGER_STORE=postgres://...): the same log, heads, snapshots and
// archive as the SQLite store, shared by any number of service instances.
//
// One writer per customer across instances, without advisory locks (not portable to
// distributed engines): a commit locks each customer's head row with SELECT ... FOR
// UPDATE, in customer order (so two instances committing overlapping customers cannot
// deadlock); a head that moved past the seq the entries were computed on means another
// instance wrote first, and the whole transaction rolls back with StoreConflictError.
// Every statement names exactly one customer_id, so with Citus (customer_id as the
// distribution column) each one is routed to a single shard unchanged. The hot statements
// are named: each connection parses and plans them once.
import pg from 'pg';
import { CommitInDoubtError, findConsumptionEntry, StoreConflictError } from './interface.js';
import { migrate } from './postgres-migrations.js';
import { completedRanges, decodePack, encodePack, PACK_ROWS } from './packs.js';
import { decodeAllocations } from './allocations.js';

// BIGINT columns come back as strings by default; every value here is a safe integer.
const INT8 = 20;
const types = {
  getTypeParser(oid, format) {
    return oid === INT8 ? Number : pg.types.getTypeParser(oid, format);
  },
};

const ENTRY = 'seq, kind, id, amount, t1, t2';
const SQL = {
  createHead: 'INSERT INTO heads (customer_id, last_seq) VALUES ($1, 0) ON CONFLICT (customer_id) DO NOTHING',
  lockHead: 'SELECT last_seq FROM heads WHERE customer_id = $1 FOR UPDATE',
  // The entries and the head move in one statement (the row is already locked).
  append: `
    WITH appended AS (
      INSERT INTO log (customer_id, seq, kind, id, amount, t1, t2, allocations)
      SELECT $1, $2::bigint + e.n, e.kind, e.id, e.amount, e.t1, e.t2, e.allocations
      FROM unnest($3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[]) WITH ORDINALITY
        AS e(kind, id, amount, t1, t2, allocations, n)
    )
    UPDATE heads SET last_seq = $2::bigint + cardinality($3::text[]) WHERE customer_id = $1`,
  snapshot: 'SELECT seq, horizon, document FROM snapshots WHERE customer_id = $1 ORDER BY seq DESC LIMIT 1',
  logAfter: `SELECT ${ENTRY} FROM log WHERE customer_id = $1 AND seq > $2 ORDER BY seq`,
  // load(): the packs after the snapshot, then the rows before and after the packs it uses.
  packsAfter: 'SELECT first_seq, last_seq, body FROM packs WHERE customer_id = $1 AND first_seq > $2 ORDER BY first_seq',
  logAround: `SELECT ${ENTRY} FROM log WHERE customer_id = $1 AND seq > $2 AND (seq < $3 OR seq > $4) ORDER BY seq`,
  // A commit's packs: the rows of the range from before the commit, and the insert.
  packRange: `SELECT ${ENTRY} FROM log WHERE customer_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq`,
  insertPack: `INSERT INTO packs (customer_id, first_seq, last_seq, body) VALUES ($1, $2, $3, $4)
               ON CONFLICT (customer_id, first_seq) DO UPDATE SET last_seq = excluded.last_seq, body = excluded.body`,
  // A pack whose range starts at or before a compaction's seq lost rows to the archive.
  dropPacks: 'DELETE FROM packs WHERE customer_id = $1 AND first_seq <= $2',
  // A tail read also sees rows the cleanup job (maybe on another instance) archived after
  // this instance's seq; one statement is one consistent view, so no row falls between.
  tail: `SELECT ${ENTRY} FROM archive WHERE customer_id = $1 AND seq > $2
         UNION ALL SELECT ${ENTRY} FROM log WHERE customer_id = $1 AND seq > $2 ORDER BY seq`,
  entryAt: `SELECT kind, id, amount, t1, t2 FROM log WHERE customer_id = $1 AND seq = $2
            UNION ALL SELECT kind, id, amount, t1, t2 FROM archive WHERE customer_id = $1 AND seq = $2`,
  // In seq order: an id may be queued (`submit`) again after a cancel; the latest counts.
  findEntries: `SELECT id, amount, t1, t2, allocations, seq FROM log WHERE customer_id = $1 AND kind = $2 AND id = ANY($3::text[])
                UNION ALL SELECT id, amount, t1, t2, allocations, seq FROM archive WHERE customer_id = $1 AND kind = $2 AND id = ANY($3::text[])
                ORDER BY seq`,
  saveSnapshot: 'INSERT INTO snapshots (customer_id, seq, horizon, document) VALUES ($1, $2, $3, $4)',
  archive: `INSERT INTO archive (customer_id, ${ENTRY}, allocations)
            SELECT customer_id, ${ENTRY}, allocations FROM log WHERE customer_id = $1 AND seq <= $2`,
  unlog: 'DELETE FROM log WHERE customer_id = $1 AND seq <= $2',
  // Older snapshots are derived data (the archive keeps the history): only the latest is read.
  dropOldSnapshots: 'DELETE FROM snapshots WHERE customer_id = $1 AND seq < $2',
};

// PostgreSQL text cannot hold U+0000, which the package allows in ids: ids are stored
// escaped (backslash → two backslashes, U+0000 → backslash zero), an injective mapping,
// so uniqueness is kept, and every other id is stored as it is. Without this, one such id
// would fail the whole group commit it joined, for every customer in it.
export function encodeId(id) {
  return id.includes('\\') || id.includes('\0') ? id.replace(/\\/g, '\\\\').replace(/\0/g, '\\0') : id;
}

export function decodeId(text) {
  return text.includes('\\') ? text.replace(/\\(\\|0)/g, (_, c) => (c === '0' ? '\0' : '\\')) : text;
}

function decodeRows(rows) {
  for (const row of rows) if (row[2].includes('\\')) row[2] = decodeId(row[2]);
  return rows;
}

/** A log value as an SQL literal: a safe integer (checked upstream) or NULL, typed bigint. */
function int(value) {
  if (value === null || value === undefined) return 'NULL::bigint';
  if (!Number.isSafeInteger(value)) throw new TypeError(`a log value must be a safe integer, got ${value}`);
  return `${value}::bigint`;
}

// The client's own timeout (query_timeout): the query may still run on the server.
const timedOut = (error) => error?.message === 'Query read timeout';

/**
 * COMMIT. An error PostgreSQL answered (it has a SQLSTATE code) means the transaction was
 * rolled back; any other failure (the connection broke) leaves its outcome unknown.
 */
async function commitOrDoubt(client) {
  try {
    await client.query('COMMIT');
  } catch (error) {
    throw error?.code === undefined ? new CommitInDoubtError(error) : error;
  }
}

function columns(entries) {
  const n = entries.length;
  const cols = [new Array(n), new Array(n), new Array(n), new Array(n), new Array(n), new Array(n)];
  for (let i = 0; i < n; i++) {
    const e = entries[i];
    for (let c = 0; c < 5; c++) cols[c][i] = e[c];
    cols[1][i] = encodeId(e[1]);
    cols[5][i] = e[5] ?? null;
  }
  return cols;
}

/**
 * In a commit's transaction, after its entries are appended: the packs of the ranges the
 * group completes (packs.js). The range's rows from before the group are read back (the
 * head is locked: they cannot change), the rest are the group's entries. A range whose
 * earlier rows the cleanup job archived gets no pack: load never uses a pack that
 * straddles a snapshot. One round trip or two per 4,096 entries of a customer.
 */
async function writePacks(client, { customer, baseSeq, entries }) {
  for (const last of completedRanges(baseSeq, baseSeq + entries.length)) {
    const first = last - PACK_ROWS + 1;
    let rows = [];
    if (first <= baseSeq) {
      const read = await client.query({ name: 'packRange', text: SQL.packRange, values: [customer, first, baseSeq], rowMode: 'array' });
      rows = decodeRows(read.rows);
    }
    if (rows.length !== Math.max(0, baseSeq - first + 1)) continue;
    for (let seq = Math.max(first, baseSeq + 1); seq <= last; seq++) rows.push([seq, ...entries[seq - baseSeq - 1]]);
    await client.query({ name: 'insertPack', text: SQL.insertPack, values: [customer, first, last, encodePack(rows)] });
  }
}

export class PostgresStore {
  /** Instances share the database: cached ledgers may lag behind other instances' writes. */
  shared = true;
  #pool;
  #longQueryMs;

  /**
   * poolSize: connections, i.e. how many commits (group batches) may run in parallel.
   * timeoutMs bounds every wait on the database, so that a request gets 503 rather than
   * waiting for ever: a connection (connecting or from the pool), a row lock another
   * instance holds (one frozen mid-commit, or cut off), a query a database that stopped
   * answering never answers (twice that: the server's own errors come first). A transaction
   * left idle four times that long (its instance frozen) is ended by the server, which
   * frees its locks. The cleanup job's statements, which may move a long log to the
   * archive, get ten times as long.
   */
  constructor(url, { poolSize = 8, timeoutMs = 5000 } = {}) {
    this.#longQueryMs = 10 * timeoutMs;
    this.#pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      types,
      connectionTimeoutMillis: timeoutMs,
      lock_timeout: timeoutMs,
      query_timeout: 2 * timeoutMs,
      idle_in_transaction_session_timeout: 4 * timeoutMs,
    });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.#pool.on('error', () => {});
  }

  async open() {
    const client = await this.#pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
  }

  async #transaction(isolation, fn) {
    const { client, done } = await this.#checkout();
    let broken; // a failure without a server's error code (a timeout, a lost connection)
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
      const out = await fn(client);
      await commitOrDoubt(client);
      return out;
    } catch (error) {
      if (error?.code === undefined) broken = error instanceof CommitInDoubtError ? error.cause : error;
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      done(broken); // a connection in an unknown state is closed, not pooled again
    }
  }

  // A pooled connection for one transaction. A connection lost while checked out emits
  // 'error' (which would otherwise end the process) and is destroyed, not pooled again.
  async #checkout() {
    const client = await this.#pool.connect();
    let lost = null;
    const onError = (error) => {
      lost = error;
    };
    client.on('error', onError);
    return {
      client,
      done: (broken) => {
        client.off('error', onError);
        client.release(lost ?? broken ?? undefined);
      },
    };
  }

  async load(customer) {
    // Snapshot and log after it from one view: the cleanup job may archive concurrently.
    return this.#transaction('REPEATABLE READ READ ONLY', async (client) => {
      const { rows } = await client.query(SQL.snapshot, [customer]);
      const snapshot = rows.length === 0 ? null : { seq: rows[0].seq, horizon: rows[0].horizon, document: JSON.parse(rows[0].document) };
      const after = snapshot === null ? 0 : snapshot.seq;
      // The packs from the first aligned start after the snapshot, while each is the next
      // one expected and whole (a pack never straddles the snapshot); rows before and after
      // them. On a gap or a pack that does not decode, the rows from there on.
      const stored = await client.query({ text: SQL.packsAfter, values: [customer, after], rowMode: 'array' });
      const packs = [];
      let expected = Math.ceil(after / PACK_ROWS) * PACK_ROWS + 1;
      for (const [first, last, body] of stored.rows) {
        const pack = first === expected && last === first + PACK_ROWS - 1 ? decodePack(first, last, body) : null;
        if (pack === null) break;
        packs.push(pack);
        expected = last + 1;
      }
      const [from, to] = packs.length === 0 ? [Number.MAX_SAFE_INTEGER, 0] : [packs[0].firstSeq, packs[packs.length - 1].lastSeq];
      const around = await client.query({ text: SQL.logAround, values: [customer, after, from, to], rowMode: 'array' });
      const logRows = decodeRows(around.rows);
      let head = 0; // rows before the packs
      while (head < logRows.length && logRows[head][0] < from) head++;
      const entries = packs.length === 0 ? logRows : [...logRows.slice(0, head), ...packs, ...logRows.slice(head)];
      const lastItem = entries[entries.length - 1];
      const lastSeq = lastItem === undefined ? after : Array.isArray(lastItem) ? lastItem[0] : lastItem.lastSeq;
      return { snapshot, entries, lastSeq };
    });
  }

  async readAfter(customer, seq) {
    const { rows } = await this.#pool.query({ name: 'tail', text: SQL.tail, values: [customer, seq], rowMode: 'array' });
    return decodeRows(rows);
  }

  async commit(groups) {
    // Customer order: two transactions lock shared heads in the same order, never a cycle.
    const sorted = groups.slice().sort((a, b) => (a.customer < b.customer ? -1 : a.customer > b.customer ? 1 : 0));
    try {
      if (sorted.length === 1) {
        // One customer (maybe a large batch): bound parameters, the entries as arrays.
        await this.#transaction('READ COMMITTED', async (client) => {
          const { customer, baseSeq, entries } = sorted[0];
          await this.#lockAt(client, customer, baseSeq);
          await client.query({ name: 'append', text: SQL.append, values: [customer, baseSeq, ...columns(entries)] });
          await writePacks(client, sorted[0]);
        });
        return;
      }
      await this.#commitMany(sorted);
    } catch (error) {
      if (!(error instanceof CommitInDoubtError)) throw error;
      if (!(await this.#landed(sorted, error))) throw error.cause;
    }
  }

  /**
   * A COMMIT whose answer was lost (the connection broke): look on another connection
   * whether its entries are in the log. Each group's last entry sits at seq baseSeq + n
   * with its kind and id if and only if the transaction committed (ids are unique per
   * kind and customer; the cleanup job may have moved the row to the archive since).
   * true: committed; false: not; throws the CommitInDoubtError when it cannot tell.
   */
  async #landed(groups, doubt) {
    let found = 0;
    try {
      for (const { customer, baseSeq, entries } of groups) {
        // The whole entry: another instance's change of the same grant (an end entry with
        // another end) or the same id queued again may sit at that seq instead.
        const [kind, id, amount = null, t1 = null, t2 = null] = entries[entries.length - 1];
        const { rows } = await this.#pool.query(SQL.entryAt, [customer, baseSeq + entries.length]);
        const row = rows.length === 1 ? rows[0] : null;
        if (row !== null && row.kind === kind && row.id === encodeId(id) && row.amount === amount && row.t1 === t1 && row.t2 === t2) {
          found++;
        }
      }
    } catch {
      throw doubt;
    }
    if (found === groups.length) return true;
    // A COMMIT that timed out may still reach a database that was only slow, after this
    // look: not found is no answer then.
    if (found === 0 && !timedOut(doubt.cause)) return false;
    throw doubt; // one transaction cannot have committed in part; say what is known
  }

  /**
   * Several customers in two round trips instead of two per customer (under CPU
   * contention every round trip waits for the scheduler, and a commit of dozens of
   * customers took seconds): BEGIN and, per customer, lock the head FOR UPDATE, append
   * only if the head is still at baseSeq, move the head, all sent as one multi-statement
   * query (each statement still names one customer); then COMMIT if every head was where
   * its entries were computed, else ROLLBACK and StoreConflictError. The simple query
   * protocol takes no parameters: values are inlined as escaped literals.
   */
  async #commitMany(sorted) {
    const { client, done } = await this.#checkout();
    try {
      const parts = ['BEGIN'];
      const locks = []; // where each customer's SELECT ... FOR UPDATE is in the results
      for (const { customer, baseSeq, entries } of sorted) {
        const c = client.escapeLiteral(customer);
        if (baseSeq === 0) parts.push(`INSERT INTO heads (customer_id, last_seq) VALUES (${c}, 0) ON CONFLICT (customer_id) DO NOTHING`);
        locks.push(parts.length);
        parts.push(`SELECT last_seq FROM heads WHERE customer_id = ${c} FOR UPDATE`);
        const rows = entries.map(
          ([kind, id, amount, t1, t2, allocations = null], i) =>
            `(${baseSeq + i + 1}, ${client.escapeLiteral(kind)}, ${client.escapeLiteral(encodeId(id))}, ${int(amount)}, ${int(t1)}, ${int(t2)}, ` +
            `${allocations === null ? 'NULL::text' : client.escapeLiteral(allocations)})`,
        );
        parts.push(
          'INSERT INTO log (customer_id, seq, kind, id, amount, t1, t2, allocations) ' +
            `SELECT ${c}, v.seq, v.kind, v.id, v.amount, v.t1, v.t2, v.allocations ` +
            `FROM (VALUES ${rows.join(', ')}) AS v(seq, kind, id, amount, t1, t2, allocations) ` +
            `WHERE (SELECT last_seq FROM heads WHERE customer_id = ${c}) = ${baseSeq}`,
        );
        parts.push(`UPDATE heads SET last_seq = ${baseSeq + entries.length} WHERE customer_id = ${c} AND last_seq = ${baseSeq}`);
      }
      const results = await client.query(parts.join(';\n'));
      const conflicts = [];
      sorted.forEach(({ customer, baseSeq }, i) => {
        const rows = results[locks[i]].rows;
        if ((rows.length === 0 ? 0 : rows[0].last_seq) !== baseSeq) conflicts.push(customer);
      });
      if (conflicts.length > 0) throw new StoreConflictError(conflicts);
      for (const group of sorted) await writePacks(client, group);
      await commitOrDoubt(client);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      done();
    }
  }

  /** Locks the customer's head; throws StoreConflictError unless it is still at `baseSeq`. */
  async #lockAt(client, customer, baseSeq) {
    if (baseSeq === 0) await client.query({ name: 'createHead', text: SQL.createHead, values: [customer] }); // race-safe: ON CONFLICT
    const { rows } = await client.query({ name: 'lockHead', text: SQL.lockHead, values: [customer] });
    const last = rows.length === 0 ? 0 : rows[0].last_seq;
    if (last !== baseSeq) throw new StoreConflictError([customer]);
  }

  async findConsumption(customer, eventId) {
    return findConsumptionEntry(this, customer, eventId);
  }

  /** The parameters of the `kind` entry with this id, in the log or the archive (retries after compaction). */
  async findEntries(customer, kind, ids) {
    const { rows } = await this.#pool.query({ name: 'findEntries', text: SQL.findEntries, values: [customer, kind, ids.map(encodeId)] });
    const found = new Map();
    for (const { id, amount, t1, t2, allocations } of rows) {
      found.set(decodeId(id), { amount, t1, t2, allocations: decodeAllocations(allocations) }); // the latest seq last
    }
    return found;
  }

  async findEntry(customer, kind, id) {
    return (await this.findEntries(customer, kind, [id])).get(id) ?? null;
  }

  /**
   * The cleanup job's write, in one transaction: appends `entries` (the `compact` entry)
   * at baseSeq+1…, stores `document` as the customer's snapshot at the new last seq (older
   * ones are dropped), and moves every log row up to it to the archive. Returns that seq.
   */
  async compact(customer, baseSeq, entries, horizon, document) {
    const seq = baseSeq + entries.length;
    await this.#transaction('READ COMMITTED', async (client) => {
      await this.#lockAt(client, customer, baseSeq);
      const long = (text, values) => client.query({ text, values, query_timeout: this.#longQueryMs });
      await long(SQL.append, [customer, baseSeq, ...columns(entries)]);
      await long(SQL.saveSnapshot, [customer, seq, horizon, JSON.stringify(document)]);
      await long(SQL.archive, [customer, seq]);
      await long(SQL.unlog, [customer, seq]);
      await long(SQL.dropPacks, [customer, seq]);
      await long(SQL.dropOldSnapshots, [customer, seq]);
    });
    return seq;
  }

  async ping() {
    const { client, done } = await this.#checkout();
    try {
      await client.query('SELECT 1');
    } finally {
      done();
    }
  }

  async close() {
    await this.#pool.end();
  }
}
