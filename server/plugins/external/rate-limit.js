// Per-key rate limit (@fastify/rate-limit): `max` requests per `timeWindow` ms for each
// API key (by client address for requests without a valid key). Off when max is 0.
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import { ServiceError } from '../../errors.js';

async function limit(fastify, { max = 0, timeWindow = 1000 }) {
  if (!max) return;
  await fastify.register(rateLimit, {
    global: true,
    max,
    timeWindow,
    // The auth hook (registered before) has identified the key; its hash, never the key.
    keyGenerator: (request) => request.apiKey?.id ?? request.ip,
    errorResponseBuilder: (request, context) =>
      new ServiceError(429, 'RATE_LIMITED', `rate limit of ${context.max} requests per ${timeWindow} ms exceeded for this key`, {
        'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
      }),
  });
}

export default fp(limit, { name: 'rate-limit', dependencies: ['auth'] });
