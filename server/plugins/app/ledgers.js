// The per-customer ledger cache and group commit (ledger/service.js) as `fastify.ledgers`,
// over the store in `fastify.store`. On close: finish the commits in flight, then close the store.
import fp from 'fastify-plugin';
import { LedgerService } from '../../ledger/service.js';

async function ledgers(fastify, { store, budgetBytes }) {
  const service = new LedgerService({ store, budgetBytes, metrics: fastify.metrics, log: fastify.log });
  fastify.decorate('store', store);
  fastify.decorate('ledgers', service);
  fastify.addHook('onClose', async () => {
    await service.close();
    await store.close();
  });
}

export default fp(ledgers, { name: 'ledgers', dependencies: ['metrics'] });
