/**
 * Entry for bundlers that cannot do top-level await: `await loadLedger()` resolves to the
 * same classes that `gpu-credit-ledger` exports.
 * @packageDocumentation
 */
export { loadLedger, LedgerError } from './index.js';
export type { Allocation, BalancePoint, GPULedger, LedgerErrorCode, LedgerSnapshot } from './index.js';
