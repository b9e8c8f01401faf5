// Calls from web pages on other origins (@fastify/cors): a page may call the API with a key
// of its own, such as a reader key for customer-facing previews (GET .../ledger, dry runs).
// Keys travel in the Authorization header, never in cookies, so a page cannot act with
// credentials it was not given: every origin is allowed unless `origins` lists the allowed
// ones (LEDGER_CORS_ORIGINS, comma-separated) or is 'off'. Registered before the other
// hooks, so that an error answer (401, 404, 429) carries the headers too and its body is
// readable by the page.
import fp from 'fastify-plugin';
import cors from '@fastify/cors';

/** The answer headers a page's script may read besides the safelisted ones. */
export const EXPOSED_HEADERS = [
  'retry-after',
  'x-ledger-seq',
  'x-ledger-cached-age-ms',
  'www-authenticate',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

/**
 * The cross-origin headers of an answer given before any hook runs (Node's parser's refusals,
 * the router's), for a request from `origin` (undefined: none), as the plugin below gives them.
 */
export function crossOriginFields(origins, origin) {
  if (origins === 'off') return {};
  const expose = EXPOSED_HEADERS.join(', ');
  if (origins === '*') return { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': expose };
  if (origin === undefined || !origins.includes(origin)) return { Vary: 'Origin' };
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': expose, Vary: 'Origin' };
}

async function crossOrigin(fastify, { origins = '*' }) {
  if (origins === 'off') return;
  await fastify.register(cors, {
    origin: origins,
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    // An OPTIONS request that is not a preflight is answered 204 as well, not with the
    // plugin's plain-text 400: every error body is the API's.
    strictPreflight: false,
  });
}

export default fp(crossOrigin, { name: 'cors' });
