// One error body for everything: {"error": {"code", "message"}}, including Fastify's own
// errors (validation, bad JSON, body too large, unknown route) and the plugins'.
import fp from 'fastify-plugin';
import { ServiceError, fromLibrary } from '../../errors.js';

/** ["events", "3", "amount"] → "body.events[3].amount": how every message names a field. */
export function fieldPath(context, parts) {
  let name = context ?? 'body';
  for (const part of parts) name += /^\d+$/.test(part) ? `[${part}]` : `.${part}`;
  return name;
}

// "body/events/3/amount" → "body.events[3].amount"
function fieldName(context, instancePath, extra) {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  return fieldPath(context, parts) + (extra === undefined ? '' : `.${extra}`);
}

function validationMessage(error) {
  const first = error.validation[0];
  const context = error.validationContext;
  switch (first.keyword) {
    case 'additionalProperties':
      return `${fieldName(context, first.instancePath, first.params.additionalProperty)} is not a known field`;
    case 'required':
      return `${fieldName(context, first.instancePath, first.params.missingProperty)} is required`;
    case 'discriminator':
      return `${fieldName(context, first.instancePath)}.type must be "grant" or "consumption"`;
    default:
      return `${fieldName(context, first.instancePath)} ${first.message}`;
  }
}

const FASTIFY_CODES = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'INVALID_ARGUMENT', 'body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'INVALID_ARGUMENT', 'body is empty but its content type is JSON'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'PAYLOAD_TOO_LARGE', 'body is larger than 1 MiB'],
  // A body not declared as JSON is bad JSON to this API (the contract's 400 INVALID_ARGUMENT).
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [400, 'INVALID_ARGUMENT', 'body must be JSON (content-type: application/json)'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'INVALID_ARGUMENT', 'content-length does not match the body'],
  FST_UNDER_PRESSURE: [503, 'UNAVAILABLE', 'the server is overloaded; retry later'],
};

export function toServiceError(raw) {
  if (raw.validation) return new ServiceError(400, 'INVALID_ARGUMENT', validationMessage(raw));
  const known = FASTIFY_CODES[raw.code];
  if (known !== undefined) return new ServiceError(known[0], known[1], known[2]);
  if (raw instanceof SyntaxError && raw.statusCode === 400) return new ServiceError(400, 'INVALID_ARGUMENT', 'body is not valid JSON');
  const error = fromLibrary(raw);
  if (error instanceof ServiceError) return error;
  if (raw.statusCode >= 400 && raw.statusCode < 500) return new ServiceError(raw.statusCode, 'INVALID_ARGUMENT', raw.message);
  return null;
}

async function errors(fastify) {
  fastify.setErrorHandler((raw, request, reply) => {
    const error = toServiceError(raw);
    if (error === null) {
      request.log.error({ err: raw }, 'unexpected error');
      return reply.code(500).send({ error: { code: 'INTERNAL', message: 'internal error' } });
    }
    // Shed load and failed commits are logged where they happen (once per commit, not once
    // per request): a flood of 503s must not add a flood of log lines to an overload.
    if (error.statusCode >= 500) request.log.debug({ err: raw }, error.message);
    if (error.headers) reply.headers(error.headers);
    return reply.code(error.statusCode).send({ error: { code: error.code, message: error.message } });
  });

  fastify.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` } });
  });
}

export default fp(errors, { name: 'errors' });
