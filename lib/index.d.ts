/**
 * gpu-credit-ledger: an exact, time-windowed GPU credit ledger (C++17 core in WebAssembly).
 *
 * Grants are valid on an inclusive window; each consumption draws from the grants valid at
 * its timestamp, earliest-expiring first (ties by grant id in code point order). A
 * consumption is accepted only if every accepted consumption, old and new, stays funded.
 * The README summarises the contract ("Semantics in short"); the full contract is
 * docs/semantics.md (in the package and the source repository).
 *
 * @packageDocumentation
 */

// `Symbol.dispose` for projects whose lib lacks esnext.disposable (e.g. the default
// ES2022/ES2023 libs): the same declaration as that lib's, so harmless where it exists.
// `Symbol` and `Map` themselves for projects whose lib is ES5 (TypeScript's default
// target): declared as the ES2015 libs declare them, so that these types compile there
// too (a `Map` then has no members the project can see; the runtime's is a full one).
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
  var Symbol: SymbolConstructor;
  interface Map<K, V> {}
}

/** One draw of an accepted consumption: `amount` credits taken from grant `grantId`. */
export interface Allocation {
  grantId: string;
  amount: number;
}

/** A breakpoint of the balance step function: from `time` on, the balance is `balance`. */
export type BalancePoint = [time: number, balance: number];

/** Codes carried by {@link LedgerError}. */
export type LedgerErrorCode =
  'DUPLICATE_ID' | 'DISPOSED' | 'LIMIT_EXCEEDED' | 'OUT_OF_MEMORY' | 'INVALID_SNAPSHOT' | 'UNKNOWN_ID' | 'BEFORE_HORIZON';

/**
 * A ledger as data (`toJSON()` / `GPULedger.fromJSON()`), version 2: the finality
 * horizon (0 if never compacted), the grants in the order they were added and the accepted
 * consumptions in acceptance order. A grant whose `startTime` is before the horizon was
 * carried across it: its `amount` is what was left of it at the horizon (possibly 0).
 * Replaying it rebuilds an identical ledger: same balances, allocations, refusals and
 * future decisions.
 */
export interface LedgerSnapshot {
  format: 'gpu-credit-ledger';
  version: 2;
  horizon: number;
  grants: Array<{ grantId: string; amount: number; startTime: number; endTime: number }>;
  consumptions: Array<{ eventId: string; amount: number; timestamp: number }>;
}

/** Version 1, what earlier releases wrote: as version 2 without the horizon. `fromJSON` reads it. */
export interface LedgerSnapshotV1 {
  format: 'gpu-credit-ledger';
  version: 1;
  grants: LedgerSnapshot['grants'];
  consumptions: LedgerSnapshot['consumptions'];
}

/**
 * What {@link GPULedger.compact} made final and freed.
 * - `horizon`: the horizon in force after the call (the old one if the call did not move it).
 * - `droppedGrants`: grants that ended before it.
 * - `droppedConsumptions`: accepted consumptions before it; their ids are forgotten.
 * - `droppedPending`: queued consumptions before it, in retry order; they will never be accepted.
 */
export interface CompactResult {
  horizon: number;
  droppedGrants: number;
  droppedConsumptions: number;
  droppedPending: PendingConsumption[];
}

/**
 * Why {@link GPULedger.tryConsume} did not accept a consumption, judged by replaying the
 * ledger with the new consumption inserted at its place: after every accepted consumption
 * at or before its timestamp (it is the latest accepted, so it also comes after those at
 * the same timestamp).
 * - `'INSUFFICIENT_CREDIT'`: the new consumption is itself the first unfunded one in that
 *   replay, i.e. `amount > getBalance(timestamp)`. Nothing could fund it at that time.
 * - `'WOULD_UNFUND'`: it could be funded, but an accepted consumption later in replay order
 *   would lose its funding; `blockingEventId` names the earliest such one.
 */
export type RejectReason = 'INSUFFICIENT_CREDIT' | 'WOULD_UNFUND';

/** An event for {@link GPULedger.applyBatch}: the arguments of `addGrant` or `consume`. */
export type BatchEvent =
  | { kind: 'grant'; grantId: string; amount: number; startTime: number; endTime: number }
  | { kind: 'consume'; eventId: string; amount: number; timestamp: number };

/**
 * Events for {@link GPULedger.applyColumns}, one entry per event in each column but `ids`.
 * Event `i`'s id is `ids[idEnds[i - 1] … idEnds[i])` (event 0's starts at 0).
 */
export interface EventColumns {
  /** `0` for `addGrant`, `1` for `consume`. */
  kinds: Uint8Array;
  /** Every event's id (`grantId` or `eventId`) as UTF-8, one after another. */
  ids: Uint8Array;
  /** Where each event's id ends in `ids`. */
  idEnds: Uint32Array;
  amounts: Float64Array;
  /** A grant's `startTime`, a consumption's `timestamp`. */
  times: Float64Array;
  /** A grant's `endTime`; not read for a consumption. */
  endTimes: Float64Array;
}

/** What {@link GPULedger.applyColumns} did with each event. */
export interface ColumnResults {
  /** Per event: `1` grant added (or an identical retry) or consumption accepted, `0` consumption rejected, `2` failed. */
  results: Uint8Array;
  /** The error of each failed event, by its index. */
  errors: Map<number, Error>;
}

/** What {@link GPULedger.tryConsume} decided (or, with `dryRun`, would decide). */
export interface ConsumeResult {
  accepted: boolean;
  /** Its draws when accepted (as {@link GPULedger.allocations} would show them right after); `[]` when rejected. */
  allocations: Allocation[];
  /** `null` when accepted. */
  reason: RejectReason | null;
  /** The earliest accepted consumption (replay order) it would unfund; `null` unless `reason` is `'WOULD_UNFUND'`. */
  blockingEventId: string | null;
}

/** Options of {@link GPULedger.tryConsume}. Unknown keys throw `TypeError`, so a misspelt `dryRun` cannot charge. */
export interface TryConsumeOptions {
  /** Answer without changing anything. Default `false` (`undefined` counts as leaving it out). */
  dryRun?: boolean | undefined;
}

/** A grant valid at some time `t`, with what remains of it then ({@link GPULedger.grantsAt}). */
export interface GrantState {
  grantId: string;
  amount: number;
  startTime: number;
  endTime: number;
  /** `amount` minus the draws on it by consumptions at or before `t`. */
  remaining: number;
}

/** One draw on a grant ({@link BurnDown.draws}). */
export interface BurnDownDraw {
  timestamp: number;
  eventId: string;
  amount: number;
}

/** A breakpoint of a grant's remaining credit: from `time` on, `remaining` is left. */
export type RemainingPoint = [time: number, remaining: number];

/** One grant's history ({@link GPULedger.burnDown}). */
export interface BurnDown {
  grantId: string;
  amount: number;
  startTime: number;
  endTime: number;
  /** Every draw on the grant under the current replay, in replay order. */
  draws: BurnDownDraw[];
  /**
   * The remaining credit as a step function on `[startTime, endTime]`:
   * `[startTime, remaining then]`, then one point at each later draw time. It holds until
   * `endTime`; after that the grant has expired.
   */
  remaining: RemainingPoint[];
}

/** The outcome of {@link GPULedger.voidGrant}. */
export interface GrantChangeResult {
  /** Whether the change was made. When `false` nothing changed. */
  applied: boolean;
  /** When refused: the earliest accepted consumption (replay order) the change would leave unfunded. */
  blockingEventId: string | null;
}

/** The outcome of {@link GPULedger.setGrantEnd}. */
export interface GrantEndResult extends GrantChangeResult {
  /** Queued consumptions an extension let in, in the order accepted (also sent to {@link GPULedger.onPendingAccepted} listeners). */
  acceptedPending: string[];
}

/** A consumption waiting in the queue ({@link GPULedger.submit}). */
export interface PendingConsumption {
  eventId: string;
  amount: number;
  timestamp: number;
}

/** A queued consumption that a later change let in, with its draws right after that change. */
export interface AcceptedPending extends PendingConsumption {
  allocations: Allocation[];
}

/** An accepted consumption whose allocations a call changed, with its allocations now ({@link GPULedger.reallocated}). */
export interface Reallocation {
  eventId: string;
  amount: number;
  timestamp: number;
  allocations: Allocation[];
}

/**
 * Raised for a well-formed call the ledger refuses: an id reused with different
 * parameters (`DUPLICATE_ID`), a disposed ledger (`DISPOSED`), a ledger at its event
 * limit (`LIMIT_EXCEEDED`), a call that could need more memory than the WebAssembly heap
 * can grow to (`OUT_OF_MEMORY`), a snapshot `fromJSON` refuses (`INVALID_SNAPSHOT`), or a
 * grant id that `voidGrant` / `setGrantEnd` cannot find (`UNKNOWN_ID`), or a call that needs
 * history before the finality horizon (`BEFORE_HORIZON`, see {@link GPULedger.compact}).
 * The ledger is unchanged and usable after any error.
 */
export declare class LedgerError extends Error {
  constructor(code: LedgerErrorCode, message: string);
  readonly name: 'LedgerError';
  readonly code: LedgerErrorCode;
}

/**
 * A ledger of grants and accepted consumptions, backed by a WebAssembly object.
 *
 * Amounts are integers in [1, 2^53 - 1], times integers in [0, 2^53 - 1], ids non-empty
 * well-formed strings of at most 1024 UTF-8 bytes. Wrong types throw `TypeError`, bad
 * values `RangeError`; nothing that throws changes the ledger.
 *
 * Free it with {@link GPULedger.dispose} or `using ledger = new GPULedger()`; a
 * `FinalizationRegistry` frees forgotten ones eventually.
 */
export declare class GPULedger {
  constructor();

  /**
   * Adds `amount` credits valid on `startTime <= t <= endTime`. Never rejects anything:
   * more supply cannot unfund an accepted consumption. A grant that arrives out of order
   * can change which grants earlier consumptions draw from.
   * Retrying with the same id and parameters is a no-op.
   * @throws {LedgerError} `DUPLICATE_ID` when the id exists with other parameters.
   * @throws {RangeError} when `startTime > endTime`, or the total of all grants would pass 2^53 - 1.
   */
  addGrant(grantId: string, amount: number, startTime: number, endTime: number): void;

  /**
   * Draws `amount` credits at `timestamp`. Returns `true` (accepted) iff every accepted
   * consumption, old and new, stays funded under earliest-expiry replay; otherwise
   * returns `false` and leaves no trace (the id may be retried later).
   * Retrying an accepted id with the same parameters returns `true` and charges nothing.
   * @throws {LedgerError} `DUPLICATE_ID` when an accepted or queued consumption has this id with other parameters.
   */
  consume(eventId: string, amount: number, timestamp: number): boolean;

  /**
   * Credits left at `timestamp` in the grants valid then, after every accepted
   * consumption at or before `timestamp` (later ones have not happened yet).
   */
  getBalance(timestamp: number): number;

  /**
   * The draws of an accepted consumption, in draw order, under the current replay; `null`
   * for an unknown, rejected or queued id. A grant added later with an earlier end can change
   * them: they always describe the ledger as it is now.
   */
  allocations(eventId: string): Allocation[] | null;

  /**
   * The balance as an exact step function on `[from, to]`: `[from, getBalance(from)]`,
   * then `[t, getBalance(t)]` for every `t` in `(from, to]` where the balance changes.
   * Computed in one call into WebAssembly.
   * @throws {RangeError} when `from > to`.
   */
  balanceCurve(from: number, to: number): BalancePoint[];

  /**
   * Applies grants and consumptions in order, each exactly as `addGrant` or `consume`
   * would, in a few crossings into WebAssembly (ids and numbers travel in typed arrays):
   * the way to load many events. One result per event: `true` (grant added or consumption
   * accepted), `false` (consumption rejected), or the error its single call would have
   * thrown (`TypeError` for an entry that is not an event); an event with an error changes
   * nothing and the batch goes on. `onPendingAccepted` listeners are called once, after
   * the batch, with every queued consumption it let in (allocations as after the batch);
   * `reallocated()` is as after its last event that did not fail.
   * @throws {TypeError} when `events` is not an array.
   */
  applyBatch(events: readonly BatchEvent[]): (boolean | Error)[];

  /**
   * {@link GPULedger.applyBatch} for events given as columns ({@link EventColumns}), which
   * are copied into WebAssembly memory in whole: no object or string per event, the fastest
   * way to load many events (a service replaying its log). Each event is applied exactly
   * as its single call would be; `results` has one code per event (`1` grant added or
   * consumption accepted, `0` consumption rejected, `2` failed) and `errors` the error each
   * failed event's single call would have thrown, by index (`RangeError` for an id that is
   * not well-formed UTF-8, or a kind other than 0 and 1). A failed event changes nothing and
   * the rest goes on; listeners and `reallocated()` as for `applyBatch`.
   * @throws {TypeError} when `columns` is not an object or a column is not of its type.
   * @throws {RangeError} when a column's length is not the number of events, or `idEnds`
   * decreases or ends beyond `ids`.
   */
  applyColumns(columns: EventColumns): ColumnResults;

  /**
   * Makes room for `count` more grants and consumptions at once, when the heap allows it
   * (else nothing): a load that arrives in parts (a log replayed one `applyBatch` per
   * page) then grows the ledger's arrays and the WebAssembly memory once instead of step
   * by step. Changes no answer; the room counts in `wasmHeapBytes()`.
   * @throws {TypeError} when `count` is not a number.
   * @throws {RangeError} when `count` is not an integer in [0, 2^53 - 1].
   */
  reserveEvents(count: number): void;

  /**
   * The largest amount `consume(_, amount, timestamp)` would accept now (0 if none). It
   * can be lower than `getBalance(timestamp)`: credit a later accepted consumption relies
   * on is reserved (one grant of 4 on [0, 2] and a consumption of 1 at 1: the balance at 0
   * is 4, the headroom 3). Exact (Hall's condition over chains of times). At or after the
   * latest accepted consumption it is the balance there, answered in O(log n). At an
   * earlier time, the first call after a change builds an index in O((n + g) log(n + g))
   * for n consumptions and g grants; later calls are O(log(n + g)). A time asked again
   * while the ledger grows at its latest times is followed from then on: O(log n) per
   * write, O(1) per call (a few times at once).
   */
  headroom(timestamp: number): number;

  /**
   * {@link GPULedger.consume} with an explanation. Same validation, retry and
   * `DUPLICATE_ID` rules: a retry of an accepted identical id returns `accepted: true`
   * with its current allocations and charges nothing. With `{ dryRun: true }` the ledger
   * is left exactly as it was and the answer is the one a real call would give now.
   * A rejection with `'WOULD_UNFUND'` re-draws the consumptions up to the blocker; retrying
   * it costs O(log n) until a consumption before the blocker's time is accepted or a grant
   * starting by then is added (in-order consumptions and grants for the future are neither).
   * @throws {LedgerError} `DUPLICATE_ID` when an accepted or queued consumption has this id with other parameters.
   * @throws {TypeError} for options that are not an object, unknown option keys, or a `dryRun` that is neither a boolean nor undefined.
   */
  tryConsume(eventId: string, amount: number, timestamp: number, options?: TryConsumeOptions): ConsumeResult;

  /**
   * The grants valid at `timestamp`, in draw order (earliest end first, ties by id in code
   * point order), with what remains of each after the consumptions at or before
   * `timestamp`. The `remaining` values add up to `getBalance(timestamp)`; a new
   * consumption at `timestamp` would draw from them in this order.
   */
  grantsAt(timestamp: number): GrantState[];

  /** One grant's draws and its remaining credit over its window; `null` for an unknown grant id. */
  burnDown(grantId: string): BurnDown | null;

  /**
   * The earliest time `t >= from` at which `getBalance(t) < threshold`, or `null` if the
   * balance never drops below it from `from` on (after the last grant end it is constant).
   * @param threshold an integer in [1, 2^53 - 1].
   */
  nextBelow(threshold: number, from: number): number | null;

  /**
   * Removes a grant, atomically: refused (`applied: false`, nothing changed) when an
   * accepted consumption would be left unfunded, and `blockingEventId` names the earliest
   * such one in replay order. After a void the id is gone and may be added again, with any
   * parameters. Rebuilds the allocation state: O((n + g) log(n + g)).
   * @throws {LedgerError} `UNKNOWN_ID` when no grant has this id.
   */
  voidGrant(grantId: string): GrantChangeResult;

  /**
   * Moves a grant's end: earlier (early expiry) or later (extension), atomically, with the
   * same refusal rule as {@link GPULedger.voidGrant} (an extension is never refused). An
   * extension then retries the queued consumptions; those it lets in are listed in
   * `acceptedPending`. The same end is a no-op that reports `applied: true`.
   * Rebuilds the allocation state: O((n + g) log(n + g)).
   * @throws {LedgerError} `UNKNOWN_ID` when no grant has this id.
   * @throws {RangeError} when `endTime` is before the grant's `startTime`.
   */
  setGrantEnd(grantId: string, endTime: number): GrantEndResult;

  /**
   * Like {@link GPULedger.consume}, but a consumption that cannot be funded now is queued
   * (`'queued'`) instead of rejected. Queued consumptions are retried in (timestamp,
   * arrival) order after every change that adds credit (`addGrant`, an extending
   * `setGrantEnd`) and accepted as soon as the rules allow; listeners registered with
   * {@link GPULedger.onPendingAccepted} hear about it. Queued and accepted consumptions
   * share one id namespace: `submit`, `consume` and `tryConsume` throw `DUPLICATE_ID` for
   * a queued id with other parameters; resubmitting a queued id identically returns
   * `'queued'`; `consume` / `tryConsume` with a queued id and identical parameters try it
   * now (it stays queued if rejected). Queued consumptions are not part of `toJSON()`.
   * @throws {LedgerError} `DUPLICATE_ID`, or `LIMIT_EXCEEDED` when the queue cannot grow.
   */
  submit(eventId: string, amount: number, timestamp: number): 'accepted' | 'queued';

  /** The queued consumptions, in retry order: (timestamp, arrival). */
  pending(): PendingConsumption[];

  /** Drops a queued consumption; `false` if the id is not queued (accepted ones cannot be cancelled). */
  cancelPending(eventId: string): boolean;

  /**
   * Calls `listener` after every call that let queued consumptions in (`addGrant`,
   * `setGrantEnd`), with those consumptions in the order accepted. Returns a function that
   * unsubscribes this registration. A listener that throws does not affect the ledger or
   * the other listeners; its error is rethrown asynchronously.
   */
  onPendingAccepted(listener: (accepted: AcceptedPending[]) => void): () => void;

  /**
   * The accepted consumptions whose allocations the last call changed, in replay order
   * `(timestamp, acceptance order)`, with their allocations now: a late grant or a
   * backdated consumption re-routes earlier draws, `voidGrant` / `setGrantEnd` move draws
   * off a grant. The last call is the most recent `addGrant`, `consume`, `tryConsume` (not
   * a dry run), `submit`, `voidGrant`, `setGrantEnd`, `cancelPending` or `compact` that
   * returned normally (`compact` moves nothing: `[]`); `applyBatch` and `applyColumns` count
   * as their events, one call each, so afterwards it describes the batch's last event that
   * did not fail. A call that throws leaves the answer as it was. Consumptions that call
   * accepted itself are not listed (they had no allocations before it); a ledger from
   * `fromJSON` starts with `[]`. Costs what the engine re-drew in that call.
   */
  reallocated(): Reallocation[];

  /**
   * Makes everything strictly before `horizon` final and frees its memory. Afterwards the
   * ledger answers every call it accepts exactly like a fresh ledger built from: each
   * grant with `endTime >= horizon`, starting at `max(startTime, horizon)` with what the
   * consumptions before `horizon` left in it (kept even at 0 while its window is open, so
   * its id stays taken); then the accepted consumptions at or after `horizon`, in replay
   * order. Every call that needs the past throws `LedgerError` `BEFORE_HORIZON` and
   * changes nothing: a grant starting before it; `consume` / `tryConsume` / `submit` before
   * it (a dropped event's retry too: its id is forgotten); `getBalance`, `headroom`,
   * `grantsAt` before it; `balanceCurve` / `nextBelow` from before it; `voidGrant` of a
   * grant that started before it; `setGrantEnd` to an end before it, or of a grant that
   * started before it when another such grant lies between its old and new place in
   * `(endTime, grantId)` order. The horizon only moves forward: a value at or below the
   * current one changes nothing. `RangeError` for a time outside `[0, 2^53 - 1]`.
   * Rebuilds the kept state: O((n + g) log(n + g)) in what it keeps.
   */
  compact(horizon: number): CompactResult;

  /** Everything strictly before it is final ({@link GPULedger.compact}); 0 initially. */
  readonly horizon: number;

  /** The snapshot document of this ledger (also what `JSON.stringify(ledger)` writes). */
  toJSON(): LedgerSnapshot;

  /**
   * Rebuilds a ledger from a snapshot object or its JSON text. A document that is
   * malformed, of another version, has bad fields or duplicate ids, or describes a history
   * the rules would not have accepted is refused with `LedgerError` `INVALID_SNAPSHOT`
   * (the message names the entry at fault); nothing is built then.
   */
  static fromJSON(snapshot: LedgerSnapshot | LedgerSnapshotV1 | string): GPULedger;

  /** Bytes in use on the WebAssembly heap that all ledgers share. Walks the heap: for diagnostics and leak tests. */
  static wasmHeapBytes(): number;

  /** The most the WebAssembly heap may grow to (2 GiB); calls that could need more throw `OUT_OF_MEMORY`. */
  static readonly maxHeapBytes: number;

  /** Number of grants. */
  readonly grantCount: number;
  /** Number of accepted consumptions. */
  readonly consumptionCount: number;
  /** Whether {@link GPULedger.dispose} was called. */
  readonly disposed: boolean;

  /** Frees the WebAssembly object. Calling it twice is harmless; any other call afterwards throws `LedgerError` `DISPOSED`. */
  dispose(): void;
  /** Same as {@link GPULedger.dispose}, for `using`. */
  [Symbol.dispose](): void;
}

/**
 * Instantiates the WebAssembly module once and resolves to the classes. The main entry
 * does this with top-level await; use `gpu-credit-ledger/load` where that is not possible.
 */
export declare function loadLedger(): Promise<{ GPULedger: typeof GPULedger; LedgerError: typeof LedgerError }>;
