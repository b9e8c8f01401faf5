/**
 * The CommonJS entry (`require('gpu-credit-ledger')` and `require('gpu-credit-ledger/load')`).
 * The package is ES modules whose main entry uses top-level await, which `require()`
 * cannot load, so CommonJS gets the loader alone:
 *
 * ```js
 * const { loadLedger } = require('gpu-credit-ledger');
 * const { GPULedger, LedgerError } = await loadLedger();
 * ```
 * @packageDocumentation
 */
import type { GPULedger, LedgerError } from './index.js' with { 'resolution-mode': 'import' };

export type * from './index.js' with { 'resolution-mode': 'import' };

/** Instantiates the WebAssembly module once and resolves to the classes. */
export declare function loadLedger(): Promise<{ GPULedger: typeof GPULedger; LedgerError: typeof LedgerError }>;
