/**
 * Worker side of the ledger message protocol; the page side is `gpu-credit-ledger/remote`.
 * ```js
 * // ledger.worker.js
 * import { loadLedger } from 'gpu-credit-ledger/load';
 * import { exposeLedger } from 'gpu-credit-ledger/worker';
 * exposeLedger(loadLedger);
 * ```
 * @packageDocumentation
 */
import type { GPULedger, LedgerError } from './index.js';

/** What a worker's global scope offers (structurally: no DOM or WebWorker lib needed). */
export interface MessageScope {
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

/** Node's `parentPort` of `worker_threads` as an EventEmitter (structurally: no `@types/node` needed). */
export interface NodeMessageScope {
  on(type: 'message', listener: (value: any) => void): unknown;
  postMessage(message: unknown): void;
}

/**
 * Serves one ledger to the page, from now on: it listens at once, so no message posted
 * right after `new Worker()` is lost; each request waits for the module, and requests are
 * answered in the order they arrived. Call it at the top level of the worker, with the
 * `loadLedger` of `gpu-credit-ledger/load` or `gpu-credit-ledger/wasm-file`.
 * @param scope where to listen and reply; default `globalThis` (the worker).
 */
export declare function exposeLedger(
  loadLedger: () => Promise<{ GPULedger: typeof GPULedger; LedgerError: typeof LedgerError }>,
  scope?: MessageScope | NodeMessageScope,
): void;
