/**
 * The store behind the service: an append-only event log per customer, the only source
 * of truth. The in-memory ledgers are a cache rebuilt from it. Every method is async so
 * that a networked database (PostgreSQL) implements the same contract as SQLite.
 *
 * ## The log
 * One row per change that was acknowledged, keyed by (customer, seq), seq = 1, 2, 3, …
 * without gaps per customer. An entry is the tuple `[seq, kind, id, amount, t1, t2]`
 * (tuples, not objects: a rebuild reads millions of them):
 *
 * | kind      | id       | amount | t1        | t2      | replayed as                       |
 * |-----------|----------|--------|-----------|---------|-----------------------------------|
 * | `grant`   | grantId  | amount | startTime | endTime | `addGrant(id, amount, t1, t2)`    |
 * | `consume` | eventId  | amount | timestamp | null    | `consume(id, amount, t1)` → true  |
 * | `submit`  | eventId  | amount | timestamp | null    | `submit(id, amount, t1)` (queued) |
 * | `void`    | grantId  | amount | startTime | endTime | `voidGrant(id)` (applied)         |
 * | `end`     | grantId  | null   | null      | endTime | `setGrantEnd(id, t2)` (applied)   |
 * | `cancel`  | eventId  | null   | null      | null    | `cancelPending(id)`               |
 * | `compact` | ''       | null   | horizon   | null    | `compact(t1)` (the cleanup job)   |
 *
 * A `void` entry carries the grant's parameters when it was voided, so that a retry of
 * the add is recognised after the grant is gone. A `grant` or `end` entry that let queued
 * consumptions in is followed, in the same commit, by a `consume` entry for each (without
 * allocations): replayed, each is an identical retry of a consumption its change already
 * let in; after a compaction, it is what says the consumption was accepted.
 *
 * ## Retries
 * A `consume` entry also stores, in a column of its own (`allocations`, allocations.js's
 * text; not part of the tuples a rebuild reads), the allocations the consumption's first answer
 * gave: an identical retry repeats that answer, even after a backdated change moved its
 * draws (LedgerService; the ledger itself reports the draws as they are now). A commit
 * group's `consume` entries carry them as a sixth element; `findEntries` returns them
 * (parsed; null for entries logged before the column existed). Replaying a customer's entries in seq
 * order through those calls rebuilds its ledger exactly (the package is deterministic).
 * Uniqueness the store enforces: (customer, id) among `grant` entries and among
 * `consume` entries (the service never re-adds a voided grant id, and an accepted
 * consumption can never be removed).
 *
 * ## Heads and optimistic group commit
 * A head row (customer, last_seq) per customer. {@link Store#commit} appends the entries
 * of many customers in ONE transaction; each group names the seq its entries were
 * computed on (`baseSeq`, the last seq the writer's cached ledger had applied). The store
 * locks each head (PostgreSQL: `SELECT last_seq FROM heads WHERE customer = $1 FOR
 * UPDATE`; SQLite: the single write transaction), and if a head moved past `baseSeq`
 * (another instance wrote) it rolls everything back and throws {@link StoreConflictError}
 * naming those customers: the writer then reloads their tails with `readAfter`, applies
 * them, and re-applies the requests. This is one writer per customer across instances
 * without advisory locks. With SQLite the process is the only writer and there is never a
 * conflict, but the code path is the same.
 *
 * ## Compaction (cleanup job)
 * `snapshots (customer, seq, horizon, document)` and `archive` (same columns as the log)
 * are created by the migrations for the cleanup job: it may write a snapshot of a
 * customer at some seq and move the entries up to that seq to the archive. `load` then
 * returns the latest snapshot and only the entries after it. A snapshot `document` is
 * `{ ledger, pending, voidedGrants, cancelled, carriedGrants }`: the package's `toJSON()`
 * document, the queued consumptions (`pending()` order, re-submitted on load), `[grantId,
 * amount, startTime, endTime]` of voided grants (their ids stay taken), the event ids
 * whose latest change is a cancel (a retried cancel answers as the first), and
 * `[grantId, amount, startTime]` of the grants compactions carried across the horizon, as
 * added (reads answer with them). Snapshots written by earlier versions may lack the last
 * two: `cancelled` is then taken as empty, and CustomerLedger.load recovers the carried
 * grants from their logged adds (`findEntries`, which reads the archive too).
 *
 * ## Packs (derived data, like the snapshots)
 * Beside the rows, a store keeps a *pack* for every full, aligned range of PACK_ROWS
 * (4096) seqs of a customer (1…4096, 4097…8192, …): one row `(customer, first_seq,
 * last_seq, body)` whose body holds exactly those entries in columns (store/packs.js:
 * kinds as bytes, amount/t1/t2 as float64 with NaN for null, the ids as one UTF-8 string
 * and their lengths). The rows stay the only truth: a pack is written in the transaction
 * of the commit that completes its range (so it exists exactly when its rows are
 * committed); a range whose earlier rows were archived gets none; `compact` deletes the
 * packs whose range starts at or before its seq. Logs written before the packs existed
 * have none, and are read as rows.
 *
 * `load` returns them in `entries`, in their place: `entries` yields, in seq order,
 * LogEntry tuples (arrays) and {@link Pack} objects (not arrays), each pack standing for
 * the entries firstSeq…lastSeq. After the snapshot, load yields the rows up to the next
 * aligned start, then from each aligned start the range's pack if there is a valid one
 * (first_seq the one expected, last_seq and body the whole range), else its rows; so a
 * pack never straddles the snapshot's seq. CustomerLedger.applyEntries takes both (a pack
 * through applyPack); `readAfter` returns only tuples.
 *
 * @typedef {import('./packs.js').Pack} Pack
 * @typedef {[seq: number, kind: 'grant'|'consume'|'submit'|'void'|'end'|'cancel', id: string, amount: number|null, t1: number|null, t2: number|null]} LogEntry
 * @typedef {{ seq: number, horizon: number, document: { ledger: object, pending: Array<{eventId: string, amount: number, timestamp: number}>, voidedGrants: Array<[string, number, number, number]>, cancelled?: string[], carriedGrants?: Array<[string, number, number]> } }} Snapshot
 * @typedef {{ customer: string, baseSeq: number, entries: Array<[kind: string, id: string, amount: number|null, t1: number|null, t2: number|null, allocations?: string]> }} CommitGroup
 *
 * @interface Store
 *   open(): Promise<void>             runs the migrations (idempotent) and readies statements
 *   load(customer): Promise<{ snapshot: Snapshot|null, entries: Iterable<LogEntry|Pack>, lastSeq: number }>
 *                                     everything needed to rebuild one customer (an unknown customer: null, empty, 0);
 *                                     `entries` may be a stream: iterate it at once, before the next store call;
 *                                     it holds tuples and packs (see Packs above)
 *   readAfter(customer, seq): Promise<LogEntry[]>
 *                                     the log tail after `seq`, in seq order, in one indexed query (strong reads, conflicts)
 *   commit(groups: CommitGroup[]): Promise<void>
 *                                     appends every group's entries at baseSeq+1… and moves the heads, all in one
 *                                     transaction, or nothing (throws; StoreConflictError when a head moved).
 *                                     A commit whose outcome was lost with its connection is resolved from the
 *                                     log (resolves if it landed); CommitInDoubtError when even that cannot tell
 *   findConsumption(customer, eventId): Promise<{ amount: number, timestamp: number }|null>
 *                                     the parameters of the latest `consume` or `submit` entry with this id
 *                                     (GET .../consumptions/{eventId}; the ledger knows only its allocations)
 *   findEntries(customer, kind, ids): Promise<Map<id, { amount, t1, t2, allocations }>>
 *                                     findEntry for many ids of one kind at once (one query on a networked store):
 *                                     the ids found, with their entries
 *   findEntry(customer, kind, id): Promise<{ amount, t1, t2, allocations }|null>
 *                                     the `grant` / `consume` / `submit` entry with this id, in the log or the
 *                                     archive (a retry of an event the compacted ledger no longer holds)
 *   compact(customer, baseSeq, entries, horizon, document): Promise<number>
 *                                     the cleanup job's write, one transaction: append `entries` (the `compact`
 *                                     entry) at baseSeq+1… (StoreConflictError if the head moved), store
 *                                     `document` as the snapshot at the new last seq (dropping older ones), move
 *                                     every log row up to it to the archive, delete the packs whose range starts at
 *                                     or before it; resolves to that seq
 *   ping(): Promise<void>              resolves when the store answers a query (GET /healthz), rejects when
 *                                     it cannot
 *   close(): Promise<void>
 */

/** A head moved past the seq a commit group was computed on: another writer got there first. */
export class StoreConflictError extends Error {
  constructor(customers) {
    super(`the log of ${customers.map((c) => JSON.stringify(c)).join(', ')} moved under this writer`);
    this.name = 'StoreConflictError';
    this.customers = customers;
  }
}

/**
 * The store lost its connection (or its commit thread) while committing, and cannot tell
 * whether the commit reached the disk: the requests' outcome is unknown. `cause` is what
 * broke.
 */
export class CommitInDoubtError extends Error {
  constructor(cause) {
    super(`the outcome of a commit is unknown: ${cause?.message ?? cause}`, { cause });
    this.name = 'CommitInDoubtError';
  }
}

/** Every entry kind, in one place (store schemas and replay use these names). */
export const KINDS = Object.freeze(['grant', 'consume', 'submit', 'void', 'end', 'cancel', 'compact']);

/**
 * Store#findConsumption for both stores, from their findEntry: the accepted entry, else
 * the latest submission (an id may be queued again after a cancel).
 */
export async function findConsumptionEntry(store, customer, eventId) {
  const entry = (await store.findEntry(customer, 'consume', eventId)) ?? (await store.findEntry(customer, 'submit', eventId));
  return entry === null ? null : { amount: entry.amount, timestamp: entry.t1 };
}
