// The per-customer ledger cache and group commit (ledger/service.js) as `fastify.ledgers`,
// over the store in `fastify.store`, and the answers of long reads as `fastify.readCache`
// (ledger/read-cache.js). On close: finish the commits in flight, then close the store.
import fp from 'fastify-plugin';
import { ReadCache } from '../../ledger/read-cache.js';
import { LedgerService } from '../../ledger/service.js';

async function ledgers(fastify, { store, budgetBytes, readCache }) {
  const service = new LedgerService({ store, budgetBytes, metrics: fastify.metrics, log: fastify.log });
  fastify.decorate('store', store);
  fastify.decorate('ledgers', service);
  fastify.decorate('readCache', new ReadCache(readCache));
  fastify.addHook('onClose', async () => {
    await service.close();
    await store.close();
  });
}

export default fp(ledgers, { name: 'ledgers', dependencies: ['metrics'] });
