import createLedgerModule from '../dist/gpu_credit_ledger_wasm.mjs';
import { makeApi } from './ledger.js';

let api;

/**
 * Instantiates the WASM module (once) and resolves to the public classes. For bundlers
 * that cannot do top-level await; `import { GPULedger } from 'gpu-credit-ledger'` does
 * this for you.
 */
export async function loadLedger() {
  api ??= createLedgerModule().then(makeApi);
  return api;
}

export { LedgerError } from './errors.js';
