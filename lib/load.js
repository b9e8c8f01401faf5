// gpu-credit-ledger/load: the main module's loader, without the main entry's top-level
// await (lib/inline-wasm.js, bundled into dist/gpu_credit_ledger_wasm.mjs).
export { loadLedger, LedgerError } from '../dist/gpu_credit_ledger_wasm.mjs';
