import { instantiateInlined } from './inline-wasm.js';

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
