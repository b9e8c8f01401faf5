// The OpenAPI document, generated from the route schemas (server/schemas/), at GET /openapi.json.
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import { monitoringErrors } from '../../schemas/common.js';
import { notShed } from './under-pressure.js';

// The headers answers carry, in the document only (Fastify serialises bodies, not headers).
const integer = (description) => ({ type: 'integer', description });
const LEDGER_VIEW = {
  'x-ledger-seq': integer('The last log seq this answer reflects (README, "Consistency")'),
  'x-ledger-cached-age-ms': integer(
    'Milliseconds since this instance last knew the ledger current; 0 when no other instance writes to the store (README, "Consistency")',
  ),
};
const RETRY_AFTER = { 'retry-after': integer('Seconds to wait before retrying') };
const RATE_LIMIT = {
  'x-ratelimit-limit': integer('Requests allowed per window for this key (when LEDGER_RATE_LIMIT is set)'),
  'x-ratelimit-remaining': integer('Requests left in the current window (when LEDGER_RATE_LIMIT is set)'),
  'x-ratelimit-reset': integer('Seconds until the window resets (when LEDGER_RATE_LIMIT is set)'),
};
const ERROR_HEADERS = {
  401: { 'www-authenticate': { type: 'string', enum: ['Bearer'], description: 'The scheme a key is sent with' } },
  429: RETRY_AFTER,
  503: RETRY_AFTER,
};

// Adds to each answer the headers it carries, and to one the schema does not describe the
// route's summary, rather than "Default Response". (A customer route's operationId is the
// package's name for the call; Fastify gives the HEAD route it adds the GET's, "-head".)
function describeAnswers({ schema, url, route }) {
  if (!schema?.response) return { schema, url };
  const customerRoute = url.startsWith('/v1/customers/');
  // A customer read (GET; HEAD answers as it, without a body) says what it reflects, on its
  // answer and on its 404.
  const read = customerRoute && (route.method === 'GET' || route.method === 'HEAD');
  const response = {};
  for (const [status, answer] of Object.entries(schema.response)) {
    const headers = {
      ...(read && (status === '200' || status === '404') ? LEDGER_VIEW : {}),
      ...(ERROR_HEADERS[status] ?? {}),
      // The rate limit counts a request once its key is known: not on one refused before.
      ...(customerRoute && !['401', '403', '408', '417', '431'].includes(status) ? RATE_LIMIT : {}),
    };
    const described = answer.description === undefined ? { ...answer, description: schema.summary } : answer;
    response[status] = Object.keys(headers).length === 0 ? described : { ...described, headers: { ...answer.headers, ...headers } };
  }
  return { schema: { ...schema, response }, url };
}

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
    transform: describeAnswers,
    exposeHeadRoutes: true, // Fastify answers HEAD on every GET route
  });
  fastify.get(
    '/openapi.json',
    {
      schema: {
        operationId: 'openapi',
        tags: ['operations'],
        summary: 'This OpenAPI document (no key needed)',
        security: [],
        response: { 200: { description: 'The OpenAPI 3 document', type: 'object', additionalProperties: true }, ...monitoringErrors() },
      },
      config: { rateLimit: false, ...notShed },
    },
    async () => fastify.swagger(),
  );
}

export default fp(openapi, { name: 'swagger' });
