import { loadLedger } from '../dist/gpu_credit_ledger_wasm.mjs';

const api = await loadLedger();

export const { GPULedger } = api;
export { LedgerError } from './errors.js';
export { loadLedger };
