// GET /healthz: the process is up and its store answers (a query, at most PING_MS): 200
// { status: 'ok' }, else 503 UNAVAILABLE with Retry-After, so that a proxy checking it
// takes an instance whose database is unreachable out of rotation.
import { unavailable } from '../errors.js';
import { monitoringErrors } from '../schemas/common.js';
import { notShed } from '../plugins/external/under-pressure.js';

const PING_MS = 2000;

export default async function health(fastify) {
  fastify.get(
    '/healthz',
    {
      schema: {
        operationId: 'health',
        tags: ['operations'],
        summary: 'Health: 200 when the store answers a query within 2 s, else 503 UNAVAILABLE with Retry-After (no key needed)',
        security: [],
        response: {
          200: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
          ...monitoringErrors('the store did not answer within 2 s'),
        },
      },
      config: { rateLimit: false, ...notShed }, // shed load does not make the store unhealthy
    },
    async () => {
      let timer;
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${PING_MS} ms`)), PING_MS);
      });
      try {
        await Promise.race([fastify.store.ping(), late]);
      } catch (error) {
        throw unavailable(`the store does not answer (${error.message}); retry`);
      } finally {
        clearTimeout(timer);
      }
      return { status: 'ok' };
    },
  );
}
