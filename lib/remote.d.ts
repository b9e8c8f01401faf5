/**
 * Page side of the ledger message protocol: talks to a worker that called
 * `exposeLedger` (`gpu-credit-ledger/worker`). Loads no WebAssembly itself.
 * @packageDocumentation
 */
import type { GPULedger, LedgerSnapshot, LedgerSnapshotV1 } from './index.js';

/** The same class as `gpu-credit-ledger`'s: rejections of remote calls are instances of it. */
export { LedgerError } from './index.js';

// Not distributive ([T]): a `boolean` property is one method returning Promise<boolean>.
type Method<T> = [T] extends [(...args: infer A) => infer R] ? (...args: A) => Promise<R> : () => Promise<T>;

/**
 * The worker's ledger: every {@link GPULedger} method (and property, as a method without
 * arguments) returns a promise of its result; errors arrive as rejections with the same
 * class (`LedgerError`, `TypeError`, `RangeError`) and code, and so do the errors inside a
 * result (`applyBatch`'s entries, `applyColumns`' `errors`). `onPendingAccepted` cannot cross a
 * message boundary and is left out (called anyway, it rejects with `TypeError`, as does a
 * call whose arguments cannot be sent). `fromJSON(snapshot)` replaces the worker's ledger.
 */
export type RemoteLedger = {
  [K in keyof GPULedger as K extends string ? (K extends 'onPendingAccepted' ? never : K) : never]: Method<GPULedger[K]>;
} & {
  fromJSON(snapshot: LedgerSnapshot | LedgerSnapshotV1 | string): Promise<void>;
};

/** A `Worker` or a `MessagePort` (structurally: no DOM lib needed). */
export interface LedgerWorker {
  postMessage(message: unknown): void;
  addEventListener(type: 'message' | 'error', listener: (event: any) => void): void;
  /** A `Worker`'s: once called, every waiting and later call rejects (`connectLedger` wraps it). */
  terminate?(): void;
  /** A `MessagePort`'s: the same as `terminate`. */
  close?(): void;
}

/**
 * A `Worker` of Node's `worker_threads` (structurally: no `@types/node` needed). When its
 * thread exits, every waiting and later call rejects.
 */
export interface NodeLedgerWorker {
  postMessage(message: unknown): void;
  on(type: 'message' | 'error' | 'exit', listener: (value: any) => void): unknown;
  /** Once called, every waiting and later call rejects (`connectLedger` wraps it). */
  terminate?(): unknown;
}

/** Connects to the worker; calls may start at once, before the worker has loaded anything. */
export declare function connectLedger(worker: LedgerWorker | NodeLedgerWorker): RemoteLedger;
