// Prometheus metrics (prom-client) at GET /metrics: requests by route and status, and the
// hooks the ledger service reports through (commit batches, cache, rebuilds). One
// registry per app, so that several apps in one process (tests) do not collide.
import fp from 'fastify-plugin';
import client from 'prom-client';
import { GPULedger } from 'gpu-credit-ledger';
import { monitoringErrors } from '../../schemas/common.js';
import { notShed } from './under-pressure.js';

async function metrics(fastify) {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({
    name: 'ledger_http_requests_total',
    help: 'HTTP requests answered, by route, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const batchSize = new client.Histogram({
    name: 'ledger_commit_batch_events',
    help: 'Log entries per group commit',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 50000],
    registers: [registry],
  });
  const commitSeconds = new client.Histogram({
    name: 'ledger_commit_seconds',
    help: 'Duration of a group commit',
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const commitFailures = new client.Counter({
    name: 'ledger_commit_failures_total',
    help: 'Group commits that failed (answered 503)',
    registers: [registry],
  });
  const cacheHits = new client.Counter({
    name: 'ledger_cache_hits_total',
    help: 'Requests whose customer ledger was cached',
    registers: [registry],
  });
  const cacheMisses = new client.Counter({
    name: 'ledger_cache_misses_total',
    help: 'Customer ledgers loaded from the store',
    registers: [registry],
  });
  const evictions = new client.Counter({
    name: 'ledger_cache_evictions_total',
    help: 'Customer ledgers evicted under the memory budget',
    registers: [registry],
  });
  const rebuildSeconds = new client.Histogram({
    name: 'ledger_rebuild_seconds',
    help: 'Time to load and replay a customer ledger from the store',
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
    registers: [registry],
  });
  const cached = new client.Gauge({
    name: 'ledger_ledgers_cached',
    help: 'Customer ledgers in memory',
    registers: [registry],
    collect() {
      this.set(fastify.ledgers?.cachedCount ?? 0);
    },
  });
  new client.Gauge({
    name: 'ledger_wasm_heap_bytes',
    help: 'Bytes in use on the WebAssembly heap all ledgers share',
    registers: [registry],
    collect() {
      this.set(GPULedger.wasmHeapBytes());
    },
  });
  void cached;

  fastify.decorate('metrics', {
    registry,
    committed(events, seconds) {
      batchSize.observe(events);
      commitSeconds.observe(seconds);
    },
    commitFailed: () => commitFailures.inc(),
    hit: () => cacheHits.inc(),
    rebuilt(seconds) {
      cacheMisses.inc();
      rebuildSeconds.observe(seconds);
    },
    evicted: () => evictions.inc(),
    // An answer the router gave before any hook ran (a path it cannot decode), counted as
    // the hook below counts the others.
    answeredUnrouted: (method, status) => requests.inc({ route: 'unknown', method, status }),
  });

  fastify.addHook('onResponse', async (request, reply) => {
    requests.inc({ route: request.routeOptions.url ?? 'unknown', method: request.method, status: reply.statusCode });
  });

  const schema = {
    operationId: 'metrics',
    tags: ['operations'],
    summary: 'Prometheus metrics, text exposition format (no key needed)',
    security: [],
    response: {
      200: { description: 'The metrics, Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } },
      ...monitoringErrors(),
    },
  };
  fastify.get('/metrics', { schema, config: { rateLimit: false, ...notShed } }, async (request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}

export default fp(metrics, { name: 'metrics' });
