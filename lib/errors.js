/**
 * An error the ledger raises for a well-formed call it cannot carry out.
 * `code` is one of: 'DUPLICATE_ID', 'DISPOSED', 'LIMIT_EXCEEDED', 'OUT_OF_MEMORY',
 * 'INVALID_SNAPSHOT', 'UNKNOWN_ID' (see index.d.ts).
 */
export class LedgerError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'LedgerError';
    this.code = code;
  }
}
