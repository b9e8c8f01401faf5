// The OpenAPI document, generated from the route schemas (server/schemas/), at GET /openapi.json.
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import { headersTooLarge } from '../../schemas/common.js';
import { notShed } from './under-pressure.js';

async function openapi(fastify) {
  await fastify.register(swagger, {
    openapi: {
      info: {
        title: 'gpu-credit-ledger service',
        description: 'Per-customer exact GPU credit ledgers over a durable event log.',
        version: '1.0.0',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  fastify.get(
    '/openapi.json',
    {
      schema: {
        tags: ['operations'],
        summary: 'This OpenAPI document (no key needed)',
        security: [],
        response: { 200: { description: 'The OpenAPI 3 document', type: 'object', additionalProperties: true }, 431: headersTooLarge },
      },
      config: { rateLimit: false, ...notShed },
    },
    async () => fastify.swagger(),
  );
}

export default fp(openapi, { name: 'swagger' });
