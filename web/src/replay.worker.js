// Replays a preset's calls off the page's thread: the random preset is 11,000 calls,
// about a second of work that would freeze the page. The worker runs them through the
// same LedgerSession the page uses and sends back the ledger's snapshot (toJSON) and the
// session's records; the page rebuilds the ledger with GPULedger.fromJSON, which replays
// the same accepted consumptions in the same order, so the result is exact.
//
// Message in: { id, preset }. Message out: { id, snapshot, records } or { id, error }.
import { presetOps } from './scenario.js';
import { LedgerSession } from './session.js';

// Listening starts now and the module loads meanwhile: a request posted right after
// `new Worker()` waits for it here instead of being lost.
const ready = import('gpu-credit-ledger');

self.onmessage = async (event) => {
  const { id, preset } = event.data;
  let session = null;
  try {
    const { GPULedger } = await ready;
    session = new LedgerSession(GPULedger);
    session.runAll(presetOps(preset), { record: false });
    self.postMessage({ id, snapshot: session.ledger.toJSON(), records: session.toRecords() });
  } catch (error) {
    self.postMessage({ id, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } });
  } finally {
    session?.dispose();
  }
};
