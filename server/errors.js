// The one error type the HTTP layer answers with, and the mapping of the package's
// errors onto it. Every error body is {"error": {"code", "message"}}.
import { LedgerError } from 'gpu-credit-ledger';

export class ServiceError extends Error {
  constructor(statusCode, code, message, headers = undefined) {
    super(message);
    this.name = 'ServiceError';
    this.statusCode = statusCode;
    this.code = code;
    this.headers = headers;
  }
}

export const unavailable = (message) => new ServiceError(503, 'UNAVAILABLE', message, { 'retry-after': '1' });
export const notFound = (message) => new ServiceError(404, 'NOT_FOUND', message);
export const invalidArgument = (message) => new ServiceError(400, 'INVALID_ARGUMENT', message);

// LedgerError codes → HTTP. OUT_OF_MEMORY is transient (evicting other customers frees
// the shared heap), LIMIT_EXCEEDED is permanent for that customer.
const LEDGER_STATUS = {
  DUPLICATE_ID: [409, 'DUPLICATE_ID'],
  UNKNOWN_ID: [404, 'NOT_FOUND'],
  OUT_OF_MEMORY: [503, 'UNAVAILABLE'],
  LIMIT_EXCEEDED: [422, 'LIMIT_EXCEEDED'],
  BEFORE_HORIZON: [409, 'BEFORE_HORIZON'],
};

/**
 * Converts what a call into the package threw. TypeError and RangeError are the
 * package's argument errors (their messages name the argument); anything else is a bug.
 */
export function fromLibrary(error) {
  if (error instanceof ServiceError) return error;
  if (error instanceof LedgerError) {
    const [status, code] = LEDGER_STATUS[error.code] ?? [500, 'INTERNAL'];
    const converted = new ServiceError(status, code, error.message, status === 503 ? { 'retry-after': '1' } : undefined);
    converted.ledgerCode = error.code; // e.g. OUT_OF_MEMORY: the service evicts and retries
    return converted;
  }
  // The package's argument errors start with the method's name ("addGrant: amount must
  // be ..."); any other TypeError is a bug and must surface as a 500, not as bad input.
  if ((error instanceof TypeError || error instanceof RangeError) && /^[A-Za-z]+: /.test(error.message)) {
    return new ServiceError(400, 'INVALID_ARGUMENT', error.message);
  }
  return error;
}
