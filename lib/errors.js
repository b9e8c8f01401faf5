// LedgerError, one class for every entry of the package. The main module
// (dist/gpu_credit_ledger_wasm.mjs) carries its own copy of this file, bundled, so that
// importing the package loads one module file fewer; the other entries (wasm-file, worker,
// remote) import this file. Whichever copy runs first in a JavaScript realm registers its
// class under a global symbol, and every later copy exports that same class: `instanceof`
// and `===` hold across entries, and across two copies of the package in one application.
// Where the global object cannot take the property (a frozen one), each copy keeps its own.
const SHARED = Symbol.for('gpu-credit-ledger.LedgerError');

/**
 * An error the ledger raises for a well-formed call it cannot carry out; `code` says
 * which (LedgerErrorCode in index.d.ts).
 */
class LedgerError extends Error {
  /** @type {'LedgerError'} */
  name = 'LedgerError';

  /**
   * @param {import('./index.js').LedgerErrorCode} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** @returns {typeof LedgerError} */
function sharedClass() {
  const registered = /** @type {Record<symbol, unknown>} */ (globalThis)[SHARED];
  if (typeof registered === 'function') return /** @type {typeof LedgerError} */ (registered);
  try {
    Object.defineProperty(globalThis, SHARED, { value: LedgerError, configurable: true });
  } catch {
    // A frozen global object: this copy's own class.
  }
  return LedgerError;
}

const Shared = sharedClass();
export { Shared as LedgerError };
