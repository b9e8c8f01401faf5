// Page side of the ledger message protocol (`gpu-credit-ledger/remote`): a proxy whose
// methods are the ledger's, each returning a promise of what the worker's ledger
// returned. The worker side is exposeLedger in worker.js. This module does not load
// the WebAssembly module: only the worker does.
import { LedgerError } from './errors.js';

let nextId = 0; // unique per page, so several clients may share one worker

/** Connects to a worker that called exposeLedger; returns the remote ledger. */
export function connectLedger(worker) {
  const waiting = new Map();
  worker.addEventListener('message', (event) => {
    const reply = event.data;
    const call = reply !== null && typeof reply === 'object' ? waiting.get(reply.id) : undefined;
    if (!call) return;
    waiting.delete(reply.id);
    if (reply.error) call.reject(rebuild(reply.error));
    else call.resolve(withErrorsRebuilt(reply));
  });
  // A worker whose script failed to load or threw would otherwise leave calls pending forever.
  worker.addEventListener('error', (event) => {
    const error = new Error(`gpu-credit-ledger worker failed: ${event?.message ?? 'error event'}`);
    for (const call of waiting.values()) call.reject(error);
    waiting.clear();
  });

  function call(method, args) {
    return new Promise((resolve, reject) => {
      if (method === 'onPendingAccepted') {
        reject(new TypeError('onPendingAccepted: a listener cannot cross to the worker; listen in the worker (exposeLedger)'));
        return;
      }
      const id = `gcl:${nextId++}`;
      waiting.set(id, { resolve, reject });
      try {
        worker.postMessage({ id, method, args });
      } catch (error) {
        // An argument the structured clone cannot copy (a function, a symbol): nothing was sent.
        waiting.delete(id);
        const why = error instanceof Error ? error.message : String(error);
        reject(new TypeError(`${method}: its arguments cannot be sent to the worker (${why})`));
      }
    });
  }

  return new Proxy(Object.create(null), {
    get(_, name) {
      // `then` stays undefined so that the proxy is not mistaken for a promise.
      if (typeof name !== 'string' || name === 'then') return undefined;
      return (...args) => call(name, args);
    },
  });
}

export { LedgerError };

// A reply's value with the errors the worker described inside it rebuilt (worker.js).
function withErrorsRebuilt({ value, errorsAt, errorsIn }) {
  if (Array.isArray(errorsAt)) for (const i of errorsAt) value[i] = rebuild(value[i]);
  if (errorsIn === 'errors' && value?.errors instanceof Map) {
    for (const [key, described] of value.errors) value.errors.set(key, rebuild(described));
  }
  return value;
}

function rebuild({ name, code, message }) {
  if (name === 'LedgerError') return new LedgerError(code, message);
  if (name === 'TypeError') return new TypeError(message);
  if (name === 'RangeError') return new RangeError(message);
  const error = new Error(message);
  error.name = name;
  return error;
}
