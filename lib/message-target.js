// Where the worker protocol (worker.js, remote.js) listens: a browser's Worker, worker
// scope or MessagePort (an EventTarget: the listener gets an event with `data`), or an
// EventEmitter of Node's worker_threads (a Worker, or a port given as { on, postMessage }:
// the listener gets the message itself, an error its Error), given the same shape here.

/** Whether `target` can carry the protocol: postMessage, and addEventListener or on. */
export function isMessageTarget(target) {
  return (
    target !== null &&
    (typeof target === 'object' || typeof target === 'function') &&
    typeof target.postMessage === 'function' &&
    (typeof target.addEventListener === 'function' || typeof target.on === 'function')
  );
}

/** Whether `target` is an EventEmitter (Node's worker_threads) rather than an EventTarget. */
export const isEmitter = (target) => typeof target.addEventListener !== 'function';

/**
 * Adds `listener` for `type` ('message', 'error' or, Node's, 'exit') to `target`. A browser's
 * MessagePort delivers nothing to addEventListener's listeners until it is started (setting
 * `onmessage` starts it; this does not): a port, a port sent to a worker or a SharedWorker's,
 * is started here.
 */
export function listen(target, type, listener) {
  if (!isEmitter(target)) {
    target.addEventListener(type, listener);
    if (type === 'message' && typeof target.start === 'function') target.start();
  } else target.on(type, type === 'message' ? (data) => listener({ data }) : listener);
}
