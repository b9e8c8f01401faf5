// The main module: lib/inline-wasm.js and what it imports, bundled (scripts/inline-wasm.mjs).
import { instantiateInlined } from '../dist/gpu_credit_ledger_wasm.mjs';

let api;

/**
 * Instantiates the WASM module (once) and resolves to the public classes. For bundlers
 * that cannot do top-level await; `import { GPULedger } from 'gpu-credit-ledger'` does
 * this for you.
 */
export async function loadLedger() {
  api ??= instantiateInlined();
  return api;
}

export { LedgerError } from './errors.js';
