/**
 * gpu-credit-ledger: an exact, time-windowed GPU credit ledger (C++17 core in WebAssembly).
 *
 * Grants are valid on an inclusive window; each consumption draws from the grants valid at
 * its timestamp, earliest-expiring first (ties by grant id in code point order). A
 * consumption is accepted only if every accepted consumption, old and new, stays funded.
 * The full contract is in the README ("Semantics").
 *
 * @packageDocumentation
 */

/** One draw of an accepted consumption: `amount` credits taken from grant `grantId`. */
export interface Allocation {
  grantId: string;
  amount: number;
}

/** A breakpoint of the balance step function: from `time` on, the balance is `balance`. */
export type BalancePoint = [time: number, balance: number];

/** Codes carried by {@link LedgerError}. */
export type LedgerErrorCode =
  | 'DUPLICATE_ID'
  | 'DISPOSED'
  | 'LIMIT_EXCEEDED'
  | 'OUT_OF_MEMORY'
  | 'INVALID_SNAPSHOT';

/**
 * A ledger as data (`toJSON()` / `GPULedger.fromJSON()`), version 1: the grants in the order
 * they were added and the accepted consumptions in acceptance order. Replaying it
 * rebuilds an identical ledger: same balances, allocations and future decisions.
 */
export interface LedgerSnapshot {
  format: 'gpu-credit-ledger';
  version: 1;
  grants: Array<{ grantId: string; amount: number; startTime: number; endTime: number }>;
  consumptions: Array<{ eventId: string; amount: number; timestamp: number }>;
}

/**
 * Raised for a well-formed call the ledger refuses: an id reused with different
 * parameters (`DUPLICATE_ID`), a disposed ledger (`DISPOSED`), a ledger at its event
 * limit (`LIMIT_EXCEEDED`), a call that could need more memory than the WebAssembly heap
 * can grow to (`OUT_OF_MEMORY`), or a snapshot `fromJSON` refuses (`INVALID_SNAPSHOT`).
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
   * @throws {LedgerError} `DUPLICATE_ID` when an accepted consumption has this id with other parameters.
   */
  consume(eventId: string, amount: number, timestamp: number): boolean;

  /**
   * Credits left at `timestamp` in the grants valid then, after every accepted
   * consumption at or before `timestamp` (later ones have not happened yet).
   */
  getBalance(timestamp: number): number;

  /**
   * The draws of an accepted consumption, in draw order, under the current replay; `null`
   * for an unknown (or rejected) id. A grant added later with an earlier end can change
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

  /** The snapshot document of this ledger (also what `JSON.stringify(ledger)` writes). */
  toJSON(): LedgerSnapshot;

  /**
   * Rebuilds a ledger from a snapshot object or its JSON text. A document that is
   * malformed, of another version, has bad fields or duplicate ids, or describes a history
   * the rules would not have accepted is refused with `LedgerError` `INVALID_SNAPSHOT`
   * (the message names the entry at fault); nothing is built then.
   */
  static fromJSON(snapshot: LedgerSnapshot | string): GPULedger;

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
