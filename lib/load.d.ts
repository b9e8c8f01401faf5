/**
 * Entry for bundlers that cannot do top-level await: `await loadLedger()` resolves to the
 * same classes that `gpu-credit-ledger` exports.
 * @packageDocumentation
 */
export { loadLedger, LedgerError } from './index.js';
export type * from './index.js';
