/**
 * An error the ledger raises for a well-formed call it cannot carry out; `code` says
 * which (LedgerErrorCode in index.d.ts).
 */
export class LedgerError extends Error {
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
