// Load shedding (@fastify/under-pressure): while the event loop lags more than
// maxEventLoopDelay ms (or uses more than maxEventLoopUtilization), requests get 503
// UNAVAILABLE with Retry-After instead of queueing behind the backlog. 0 turns a limit off.
// The sampler reads the loop's delay histogram every sampleInterval ms and treats an
// interval without a single sample as an infinite delay, so the interval must be well
// above the 10 ms sampling resolution and above the longest normal task (a big batch).
import fp from 'fastify-plugin';
import underPressure from '@fastify/under-pressure';

// A route's config that keeps it answering while others are shed: the monitoring routes
// (health, metrics, the OpenAPI document), which a proxy or a scraper needs most then.
export const notShed = { pressureHandler: () => undefined };

async function shedding(fastify, { maxEventLoopDelay = 1000, maxEventLoopUtilization = 0, sampleInterval = 500, retryAfter = 1 }) {
  if (!maxEventLoopDelay && !maxEventLoopUtilization) return;
  await fastify.register(underPressure, {
    maxEventLoopDelay,
    maxEventLoopUtilization,
    sampleInterval,
    retryAfter,
    message: 'the server is overloaded; retry later',
  });
}

export default fp(shedding, { name: 'under-pressure' });
