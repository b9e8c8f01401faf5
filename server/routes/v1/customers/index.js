// Every route under /v1/customers/:customerId, one file per resource.
import grants from './grants.js';
import consumptions from './consumptions.js';
import events from './events.js';
import balance from './balance.js';
import ledger from './ledger.js';

export default async function customers(fastify) {
  for (const routes of [grants, consumptions, events, balance, ledger]) {
    await fastify.register(routes, { prefix: '/v1/customers/:customerId' });
  }
}
