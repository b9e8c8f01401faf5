// Worker side of the ledger message protocol (`gpu-credit-ledger/worker`); the page side
// is connectLedger in remote.js.
//
// Why it exists: a worker that sets `onmessage` only once the WebAssembly module is
// instantiated loses the messages posted before that (a page posts right after
// `new Worker()`). exposeLedger listens at once and makes each request wait for the
// module instead. No top-level await, so it bundles into Vite's default (iife) worker
// format too.
//
// Protocol: a request is `{ id, method, args }`; the reply is `{ id, value }` or
// `{ id, error: { name, code, message } }`. Errors inside a value (applyBatch's results,
// applyColumns' `errors` Map) travel in the same described form, and the reply says where:
// `errorsAt: [index, ...]` for an array's entries, `errorsIn: 'errors'` for the Map's
// values (the structured clone would keep neither an error's class nor its code).
// Messages of another shape are left alone, so a worker may speak its own protocol beside
// this one.

import { isMessageTarget, listen } from './message-target.js';

// Prototype members a request may not call: the constructor, and those that take
// functions (a function cannot cross a message boundary).
const NOT_REMOTE = new Set(['constructor', 'onPendingAccepted']);

/**
 * Serves one ledger to the page: call it at the top level of the worker, with the
 * `loadLedger` of `gpu-credit-ledger/load` or of `gpu-credit-ledger/wasm-file`.
 */
export function exposeLedger(loadLedger, scope = globalThis) {
  if (typeof loadLedger !== 'function') {
    throw new TypeError('exposeLedger: pass the loadLedger function of gpu-credit-ledger/load or gpu-credit-ledger/wasm-file');
  }
  if (!isMessageTarget(scope)) {
    throw new TypeError(
      "exposeLedger: scope must have postMessage and addEventListener or on (a worker's global scope, a MessagePort; in Node's worker_threads, pass parentPort)",
    );
  }
  const classes = Promise.resolve().then(() => loadLedger()); // loads at once; a throw becomes a rejection
  classes.catch(() => {}); // a failed load is reported to each request instead
  let ledger;

  async function answer(method, args) {
    const { GPULedger } = await classes; // requests queue here, in arrival order
    if (method === 'fromJSON') {
      const rebuilt = GPULedger.fromJSON(...args);
      ledger?.dispose();
      ledger = rebuilt;
      return undefined;
    }
    ledger ??= new GPULedger();
    const member = NOT_REMOTE.has(method) ? undefined : Object.getOwnPropertyDescriptor(GPULedger.prototype, method);
    if (member?.get) return ledger[method];
    if (typeof member?.value === 'function') return member.value.apply(ledger, args);
    throw new TypeError(`gpu-credit-ledger worker: no method ${JSON.stringify(method)}`);
  }

  listen(scope, 'message', (event) => {
    const request = event.data;
    if (!isRequest(request)) return;
    const reply = (message) => {
      try {
        scope.postMessage(message);
      } catch (error) {
        scope.postMessage({ id: request.id, error: describe(error) });
      }
    };
    answer(request.method, request.args ?? []).then(
      (value) => reply({ id: request.id, ...withErrorsDescribed(value) }),
      (error) => reply({ id: request.id, error: describe(error) }),
    );
  });
}

function isRequest(data) {
  return (
    data !== null &&
    typeof data === 'object' &&
    (typeof data.id === 'number' || typeof data.id === 'string') &&
    typeof data.method === 'string' &&
    (data.args === undefined || Array.isArray(data.args))
  );
}

// A method's value, with the errors inside it described (the protocol above).
function withErrorsDescribed(value) {
  if (Array.isArray(value) && value.some((entry) => entry instanceof Error)) {
    const errorsAt = [];
    const described = value.map((entry, i) => {
      if (!(entry instanceof Error)) return entry;
      errorsAt.push(i);
      return describe(entry);
    });
    return { value: described, errorsAt };
  }
  if (value !== null && typeof value === 'object' && value.errors instanceof Map && value.errors.size > 0) {
    const errors = new Map([...value.errors].map(([key, error]) => [key, describe(error)]));
    return { value: { ...value, errors }, errorsIn: 'errors' };
  }
  return { value };
}

function describe(error) {
  return {
    name: typeof error?.name === 'string' ? error.name : 'Error',
    code: typeof error?.code === 'string' ? error.code : undefined,
    message: String(error?.message ?? error),
  };
}
