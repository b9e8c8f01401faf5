// Building blocks shared by every route schema. Query strings arrive as strings and
// types are not coerced, so integers in them are validated by pattern and converted by
// the route (toSafeInteger), which refuses values above 2^53 - 1.
export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

// "." and ".." are a URL's dot segments: clients and proxies rewrite such a path.
export const customerId = {
  type: 'string',
  pattern: '^(?!\\.\\.?$)[A-Za-z0-9._:-]{1,128}$',
  description: '1-128 characters of [A-Za-z0-9._:-], other than "." and ".."',
};
// The package judges an id (1 to 1024 UTF-8 bytes, well-formed): one rule, the same answer
// for every way an id breaks it, in a batch an error for that event alone.
export const ledgerId = { type: 'string', description: '1 to 1024 UTF-8 bytes of well-formed Unicode' };
export const amount = { type: 'integer', minimum: 1, maximum: MAX_SAFE };
export const time = { type: 'integer', minimum: 0, maximum: MAX_SAFE };
export const queryTime = { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$', description: 'an integer in [0, 2^53 - 1]' };

/** A grant's fields as answers show them (grantsAt, burn-down, add answers, the ledger document). */
export const grantFields = {
  grantId: { type: 'string' },
  amount: { type: 'integer' },
  startTime: { type: 'integer' },
  endTime: { type: 'integer' },
};
export const grantFieldNames = Object.keys(grantFields);

export const allocations = {
  type: 'array',
  items: { type: 'object', properties: { grantId: { type: 'string' }, amount: { type: 'integer' } }, required: ['grantId', 'amount'] },
};

export const errorBody = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
};

/** Params of every customer route, plus the named id params. */
export function params(...ids) {
  const properties = { customerId };
  for (const id of ids) properties[id] = ledgerId;
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** `?consistency=`: strong (default: catch up with the shared log first) or cached (answer from this instance's cache). */
export const consistency = {
  type: 'string',
  enum: ['strong', 'cached'],
  description: 'strong (default) or cached; see the README, "Consistency"',
};

/** The querystring of a read without other parameters: the optional consistency, nothing else. */
export const consistencyQuery = { type: 'object', properties: { consistency }, additionalProperties: false };

/** The querystring of a write: none (an unknown field is a 400, in the query as in the body). */
export const noQuery = { type: 'object', properties: {}, additionalProperties: false };

/** A querystring of time parameters, all required (and the optional consistency). */
export function timeQuery(...names) {
  const properties = {};
  for (const name of names) properties[name] = queryTime;
  properties.consistency = consistency;
  return { type: 'object', properties, required: names, additionalProperties: false };
}

// What each error status means, for the OpenAPI document (README, "Errors").
// A 503 of any route: a request past MAX_PIPELINED (app.js).
const PAST_PIPELINE_LIMIT = 'the request was pipelined behind 16 unanswered on its connection (not acted on; the connection closes)';
const ERROR_TEXTS = {
  400: 'INVALID_ARGUMENT: bad JSON, a wrong type, an out-of-range value, an unknown field or a bad id (the message names the field); or a request that is not valid HTTP/1.1',
  401: 'UNAUTHENTICATED: no valid "Authorization: Bearer <key>" header',
  403: "FORBIDDEN: the key's role or customer list does not allow this",
  404: 'NOT_FOUND',
  408: "REQUEST_TIMEOUT: the request's head or body did not arrive within LEDGER_REQUEST_TIMEOUT_MS; answered by Node's HTTP parser before any route",
  409: 'DUPLICATE_ID (the id is taken with other parameters) or BEFORE_HORIZON (needs history a compaction made final)',
  413: 'PAYLOAD_TOO_LARGE: a body over 1 MiB',
  417: 'EXPECTATION_FAILED: an Expect header other than 100-continue, answered before any route',
  422: "LIMIT_EXCEEDED: the ledger's event limit",
  429: 'RATE_LIMITED: too many requests for this key; Retry-After says when to retry',
  431: "HEADERS_TOO_LARGE: a request line and headers over 16 KiB (a path parameter is at most 4,096 characters), refused by Node's HTTP parser before any route",
  500: 'INTERNAL: a fault of the service itself, which it logs',
  503: `UNAVAILABLE: the store failed, the service is stopping or overloaded, or ${PAST_PIPELINE_LIMIT}; Retry-After says when to retry`,
};
// The 400 of a monitoring route: a request the service refuses before any route.
const MONITORING_400 =
  'INVALID_ARGUMENT: the request is not valid HTTP/1.1 (no Host or two, an unsupported content or transfer coding, a raw "#" in the path), refused before any route';

function errorAnswers(statuses, texts = {}) {
  const out = {};
  for (const status of statuses) out[status] = { ...errorBody, description: texts[status] ?? ERROR_TEXTS[status] };
  return out;
}

/** The error answers a customer route may give, for the OpenAPI document. */
export function errors(...statuses) {
  return errorAnswers([400, 401, 403, 408, 417, 429, 431, 500, 503, ...statuses]);
}

/**
 * The error answers of the monitoring routes (no key, no rate limit): those given before
 * any route, a fault, and 503 while the service stops (and, for /healthz, when the store
 * does not answer).
 */
export function monitoringErrors(routeCause) {
  const causes = `${routeCause === undefined ? '' : `${routeCause}, `}the service is stopping, or ${PAST_PIPELINE_LIMIT}`;
  return errorAnswers([400, 408, 417, 431, 500, 503], {
    400: MONITORING_400,
    503: `UNAVAILABLE: ${causes}; Retry-After says when to retry`,
  });
}
