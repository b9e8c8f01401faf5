// Runs the cleanup job (job.js) in this instance when the app is built with
// `cleanup: { grace, intervalMs }` (server.js: LEDGER_GRACE, LEDGER_CLEANUP_INTERVAL_MS);
// `fastify.cleanup` is the job (null when off), e.g. for `runOnce()` in tests.
import fp from 'fastify-plugin';
import { CleanupJob } from './job.js';

async function cleanup(fastify, { grace = null, intervalMs = 60_000 }) {
  if (grace === null) {
    fastify.decorate('cleanup', null);
    return;
  }
  const job = new CleanupJob({ service: fastify.ledgers, store: fastify.store, grace, intervalMs, log: fastify.log });
  fastify.decorate('cleanup', job);
  fastify.addHook('onReady', async () => job.start());
  // Before the ledgers plugin closes the service and the store (hooks run in reverse).
  fastify.addHook('onClose', async () => job.stop());
}

export default fp(cleanup, { name: 'cleanup', dependencies: ['ledgers'] });
