// API keys: `Authorization: Bearer <key>`. Keys are kept only as SHA-256 digests and a
// presented key is hashed and compared with every stored digest by timingSafeEqual, so
// neither the comparison nor a hash-table lookup leaks how much of a key was right.
//
// Roles (route config `access`): 'read' routes for every role; 'consume' routes for
// writers and admins, and for readers when the body is a dry run (a batch: of dry-run
// consumptions only); 'write' (grants, their voids and end changes, queue cancels) for
// writers and admins. A key with `customers` is limited to those customers.
import { createHash, timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import { ServiceError } from '../../errors.js';
import { customerId } from '../../schemas/common.js';

const ROLES = new Set(['admin', 'writer', 'reader']);
const FIELDS = new Set(['key', 'role', 'customers']);
const CUSTOMER_ID = new RegExp(customerId.pattern);
const digest = (key) => createHash('sha256').update(key, 'utf8').digest();

/**
 * Checks a key file's content: [{key, role, customers?}]. Throws with what is wrong, never
 * quoting a key: a field of another name, a customer id that no path can carry, a key that
 * a Bearer header cannot carry (a space or a control character in it), or one listed twice
 * (which of its roles would hold?), is refused too.
 */
export function parseKeys(list) {
  if (!Array.isArray(list) || list.length === 0) throw new Error('the key file must hold a non-empty JSON array');
  const seen = new Map(); // digest (hex) -> index
  return list.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`keys[${i}] must be an object`);
    // A misspelt field ("customer") must not leave a key unscoped: every field is a known one.
    const unknown = Object.keys(entry).find((field) => !FIELDS.has(field));
    if (unknown !== undefined) {
      throw new Error(`keys[${i}] has an unknown field ${JSON.stringify(unknown)}: the fields are key, role and customers`);
    }
    const { key, role, customers } = entry;
    if (typeof key !== 'string' || key.length === 0) throw new Error(`keys[${i}].key must be a non-empty string`);
    if (!/^[\x21-\x7e]+$/.test(key)) {
      throw new Error(`keys[${i}].key must be printable ASCII without spaces, as an "Authorization: Bearer" header carries it`);
    }
    if (!ROLES.has(role)) throw new Error(`keys[${i}].role must be "admin", "writer" or "reader"`);
    if (customers !== undefined && !(Array.isArray(customers) && customers.every((c) => typeof c === 'string' && CUSTOMER_ID.test(c)))) {
      throw new Error(`keys[${i}].customers must be an array of customer ids (${customerId.description})`);
    }
    const hash = digest(key);
    const hex = hash.toString('hex');
    if (seen.has(hex)) throw new Error(`keys[${i}].key is keys[${seen.get(hex)}].key again: each key must be listed once`);
    seen.set(hex, i);
    return { id: hex.slice(0, 16), hash, role, customers: customers === undefined ? null : new Set(customers) };
  });
}

const unauthenticated = () =>
  new ServiceError(401, 'UNAUTHENTICATED', 'a valid "Authorization: Bearer <key>" header is required', { 'www-authenticate': 'Bearer' });
const forbidden = (message) => new ServiceError(403, 'FORBIDDEN', message);

async function auth(fastify, { keys }) {
  const entries = parseKeys(keys);

  function identify(header) {
    const match = typeof header === 'string' ? /^bearer +(\S+) *$/i.exec(header) : null; // the scheme is case-insensitive
    if (match === null) return null;
    const presented = digest(match[1]);
    let found = null;
    for (const entry of entries) if (timingSafeEqual(entry.hash, presented) && found === null) found = entry;
    return found;
  }

  fastify.decorateRequest('apiKey', null);

  fastify.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config?.access;
    if (access === undefined) return; // public: health, metrics, OpenAPI, 404
    const key = identify(request.headers.authorization);
    if (key === null) throw unauthenticated();
    request.apiKey = key;
    const customer = request.params?.customerId;
    if (key.customers !== null && !key.customers.has(customer)) throw forbidden('this key may not act for this customer');
    if (access === 'write' && key.role === 'reader') throw forbidden('a reader key may only read and make dry runs');
  });

  // 'consume': a reader may only make dry runs; the body is parsed and valid by now.
  fastify.addHook('preHandler', async (request) => {
    if (request.routeOptions.config?.access !== 'consume' || request.apiKey?.role !== 'reader') return;
    const { events } = request.body;
    const dryRuns = Array.isArray(events)
      ? events.every((event) => event.type === 'consumption' && event.dryRun === true)
      : request.body.dryRun === true;
    if (!dryRuns) throw forbidden('a reader key may only make dry-run consumptions');
  });
}

export default fp(auth, { name: 'auth' });
