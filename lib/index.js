import { loadLedger, LedgerError } from '../dist/gpu_credit_ledger_wasm.mjs';

const api = await loadLedger();

export const { GPULedger } = api;
export { LedgerError, loadLedger };
