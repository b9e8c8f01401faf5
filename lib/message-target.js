// Where the worker protocol (worker.js, remote.js) listens: a browser's Worker, worker
// scope or MessagePort (an EventTarget: the listener gets an event with `data`), or an
// EventEmitter of Node's worker_threads (a Worker, or a port given as { on, postMessage }:
// the listener gets the message itself, an error its Error), given the same shape here.

/** Adds `listener` for `type` ('message', 'error' or, Node's, 'exit') to `target`. */
export function listen(target, type, listener) {
  if (typeof target.addEventListener === 'function') target.addEventListener(type, listener);
  else target.on(type, type === 'message' ? (data) => listener({ data }) : listener);
}
