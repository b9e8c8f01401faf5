// Page side of the ledger message protocol (`gpu-credit-ledger/remote`): a proxy whose
// methods are the ledger's, each returning a promise of what the worker's ledger
// returned. The worker side is exposeLedger in worker.js. This module does not load
// the WebAssembly module: only the worker does.
import { LedgerError } from './errors.js';
import { isEmitter, isMessageTarget, listen } from './message-target.js';

let nextClient = 0;

// How long a worker that reported an error has to answer a probe before its calls fail.
const PROBE_MS = 10_000;

/** Connects to a worker that called exposeLedger; returns the remote ledger. */
export function connectLedger(worker) {
  if (!isMessageTarget(worker)) {
    throw new TypeError(
      'connectLedger: worker must be a Worker, a MessagePort or a worker_threads Worker (postMessage, and addEventListener or on)',
    );
  }
  // Request ids unique to this client, so that several clients may share one worker and
  // each takes only its own replies: a number per client of this module, and a random part
  // for clients of another copy of it (another bundle on the same page).
  const prefix = `gcl:${Math.random().toString(36).slice(2, 10)}:${nextClient++}:`;
  let nextId = 0;
  const waiting = new Map();
  /** @type {Error | null} */
  let failed = null;
  listen(worker, 'message', (event) => {
    const reply = event.data;
    const call = reply !== null && typeof reply === 'object' ? waiting.get(reply.id) : undefined;
    if (!call) return;
    waiting.delete(reply.id);
    if (reply.error) call.reject(rebuild(reply.error));
    else call.resolve(withErrorsRebuilt(reply));
  });
  // A worker's `error` event is an uncaught error of the worker's code, after which a
  // browser's worker runs on (and exposeLedger answers every request it took, each as its
  // ledger call ended), or a worker that never ran (its script failed to load or to
  // parse), which will answer nothing. The event does not tell which: a probe request
  // does. Its reply comes after those of every call sent before it; with none within
  // PROBE_MS, every call, waiting or later, is rejected with that failure.
  let probing = false;
  const fail = (why, cause = undefined) => {
    // The first cause stays.
    failed ??= new Error(`gpu-credit-ledger worker ${why}; no call reaches its ledger`, cause && { cause });
    for (const call of waiting.values()) call.reject(failed);
    waiting.clear();
  };
  // A worker the page terminates (or a port it closes) answers nothing more, and neither
  // tells its listeners: the client wraps the method, so that the calls waiting and every
  // later one reject instead of waiting for ever. An own property over the prototype's;
  // each client on one worker wraps the one before it.
  for (const name of ['terminate', 'close']) {
    const end = worker[name];
    if (typeof end !== 'function') continue;
    try {
      worker[name] = function (...args) {
        const result = Reflect.apply(end, this, args);
        if (failed === null) fail(name === 'terminate' ? 'terminated' : 'port closed');
        return result;
      };
    } catch {
      // A frozen worker object: its calls wait as before.
    }
  }
  // A worker_threads Worker ends its thread on an uncaught error ('error', with the Error)
  // and says so ('exit'); listening to 'error' keeps Node from printing it, so the calls'
  // rejection carries it (message and cause).
  if (isEmitter(worker)) {
    let uncaught;
    listen(worker, 'error', (error) => {
      uncaught ??= error;
    });
    listen(worker, 'exit', (code) => {
      const what = typeof uncaught?.message === 'string' ? `, after an uncaught error: ${uncaught.message}` : '';
      fail(`exited (code ${code})${what}`, uncaught);
    });
    return remoteLedger(call);
  }
  listen(worker, 'error', (event) => {
    if (failed !== null || probing) return;
    probing = true;
    const what = typeof event?.message === 'string' && event.message !== '' ? event.message : 'an error event';
    const id = `${prefix}probe${nextId++}`;
    const timer = setTimeout(() => fail(`failed: ${what}, and no answer within ${PROBE_MS / 1000} s`), PROBE_MS);
    /** @type {any} */ (timer).unref?.(); // Node: a probe alone keeps no process alive
    const answered = () => {
      clearTimeout(timer);
      probing = false;
    };
    waiting.set(id, { resolve: answered, reject: answered }); // any reply: the worker runs
    try {
      worker.postMessage({ id, method: 'gcl:probe', args: [] });
    } catch {
      answered();
      fail(`failed: ${what}`);
    }
  });

  function call(method, args) {
    return new Promise((resolve, reject) => {
      if (method === 'onPendingAccepted') {
        reject(
          new TypeError(
            "onPendingAccepted: a listener cannot cross to the worker; a call's let-in consumptions leave pending() (setGrantEnd lists them in acceptedPending)",
          ),
        );
        return;
      }
      if (failed !== null) {
        reject(failed);
        return;
      }
      const id = prefix + nextId++;
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

  return remoteLedger(call);
}

// The remote ledger: each method is call(name, args).
function remoteLedger(call) {
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
