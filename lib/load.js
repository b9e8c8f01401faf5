// gpu-credit-ledger/load: the main module's loader, without the main entry's top-level
// await (lib/inline-wasm.js, bundled into dist/gpu_credit_ledger_wasm.mjs). LedgerError
// straight from its module, which the main module imports too: Node's loader then finds
// both at once instead of one after the other.
export { loadLedger } from '../dist/gpu_credit_ledger_wasm.mjs';
export { LedgerError } from './errors.js';
