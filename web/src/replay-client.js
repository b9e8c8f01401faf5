// The page side of replay.worker.js: one worker for the page, started on first use.
import { GPULedger } from 'gpu-credit-ledger';
import { LedgerSession } from './session.js';

let worker = null;
let nextId = 0;
const waiting = new Map();

function start() {
  worker = new Worker(new URL('./replay.worker.js', import.meta.url), { type: 'module' });
  worker.addEventListener('message', ({ data }) => {
    const call = waiting.get(data.id);
    waiting.delete(data.id);
    if (!call) return;
    if (data.error) call.reject(Object.assign(new Error(data.error.message), { name: data.error.name }));
    else call.resolve(data);
  });
  // A worker that failed to load would leave every request waiting.
  worker.addEventListener('error', (event) => {
    for (const call of waiting.values()) call.reject(new Error(`the replay worker failed: ${event.message ?? 'error'}`));
    waiting.clear();
    worker = null;
  });
}

/** Replays a preset in the worker; resolves to a LedgerSession on this page's ledger, the same as a replay here. */
export function replayInWorker(preset) {
  if (!worker) start();
  const id = nextId++;
  const reply = new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
  worker.postMessage({ id, preset });
  return reply.then(({ snapshot, records }) => LedgerSession.fromRecords(GPULedger, GPULedger.fromJSON(snapshot), records));
}
