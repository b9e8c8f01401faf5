// Status codes from the core → the errors the package throws (README, "Errors").
import { LedgerError } from './errors.js';

/**
 * Returns statusError(method, status, what): the error for a status the core returned
 * after the wrapper's own validation passed. `what` names the entry, e.g. `grant "g1"`;
 * `maxText` is how messages write the largest amount (maxSafeText in validate.js).
 */
export function makeStatusErrors(Status, maxText) {
  return function statusError(method, status, what) {
    switch (status) {
      case Status.DUPLICATE_ID:
        return new LedgerError('DUPLICATE_ID', `${method}: ${what} already exists with different parameters`);
      case Status.UNKNOWN_ID:
        return new LedgerError('UNKNOWN_ID', `${method}: no ${what}`);
      case Status.TOTAL_OVERFLOW:
        return new RangeError(`${method}: amount would bring the total of all grants above ${maxText}`);
      case Status.LIMIT_EXCEEDED:
        return new LedgerError('LIMIT_EXCEEDED', `${method}: the ledger holds the maximum number of events`);
      case Status.BEFORE_HORIZON:
        return new LedgerError(
          'BEFORE_HORIZON',
          `${method}: ${what ?? 'this call'} needs history before the finality horizon, which is final (compact)`,
        );
      case Status.OUT_OF_MEMORY:
        return new LedgerError('OUT_OF_MEMORY', `${method}: the WebAssembly heap cannot grow enough for this call`);
      default:
        // Unreachable after validation; kept so that a gap between the two layers is loud.
        return new RangeError(`${method}: rejected by the core with status ${status}`);
    }
  };
}
