// Builds the service: a Fastify instance with the external plugins (metrics, OpenAPI,
// rate limit, load shedding), the app's own (errors, auth, ledgers), and the routes.
// server.js reads the environment and starts it; tests call buildApp directly.
import Fastify, { LogController } from 'fastify';
import metrics from './plugins/external/metrics.js';
import swagger from './plugins/external/swagger.js';
import rateLimit from './plugins/external/rate-limit.js';
import underPressure from './plugins/external/under-pressure.js';
import errors from './plugins/app/errors.js';
import auth from './plugins/app/auth.js';
import ledgers from './plugins/app/ledgers.js';
import cleanup from './cleanup/plugin.js';
import { invalidArgument, unavailable } from './errors.js';
import health from './routes/health.js';
import customers from './routes/v1/customers/index.js';

export const BODY_LIMIT = 1024 * 1024;

function isJson(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * options.store: an opened store (store/interface.js).
 * options.keys: the key file's content, [{key, role, customers?}].
 * options.limits: { cacheBytes, rateLimitMax, rateLimitWindowMs, maxEventLoopDelay,
 *   maxEventLoopUtilization, pressureSampleInterval } (see the README's Service section).
 * options.logger: Fastify's logger option (pino); default off.
 * options.requestLog: log every request (default off: the error handler logs failures).
 * options.cleanup: { grace, intervalMs } runs the cleanup job (cleanup/job.js); default off.
 */
export async function buildApp({ store, keys, limits = {}, logger = false, requestLog = false, cleanup: cleanupOptions = {} }) {
  const app = Fastify({
    logger: logger && { ...(logger === true ? {} : logger), redact: ['req.headers.authorization'] },
    logController: new LogController({ disableRequestLogging: !requestLog }),
    bodyLimit: BODY_LIMIT,
    // Grant and event ids reach 1024 UTF-8 bytes, percent-encoded up to three times that.
    routerOptions: { maxParamLength: 4096 },
    // Requests that arrive while the app closes get the API's 503 (the hook below), not
    // Fastify's own body.
    return503OnClosing: false,
    // The router's own refusals, before any route runs, in the API's error body: a path that
    // is not valid percent-encoding, or a path segment over maxParamLength.
    frameworkErrors: (error, request, reply) => {
      if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        const message =
          error.code === 'FST_ERR_BAD_URL'
            ? 'the path is not valid percent-encoding'
            : 'a path parameter (customerId, grantId or eventId) is longer than 4096 characters';
        return reply.code(400).send({ error: { code: 'INVALID_ARGUMENT', message } });
      }
      request.log.error({ err: error }, 'unexpected router error');
      return reply.code(500).send({ error: { code: 'INTERNAL', message: 'internal error' } });
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, discriminator: true } },
  });

  // Stopping (SIGTERM, SIGINT): a request that arrives on an open connection after close()
  // began is answered 503 UNAVAILABLE with Retry-After, and runs nothing.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw unavailable('the service is stopping; retry');
  });

  // Every body is JSON: without Fastify's text/plain parser, a text body gets the same
  // answer as any other that is not JSON (plugins/app/errors.js).
  app.removeContentTypeParser('text/plain');
  // POST .../void takes no body: accept an empty one even when it is labelled JSON.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    if (text === '') return done(null, undefined);
    return parseJson(request, text, (error, body) => {
      // Valid JSON that the parser refuses has a "__proto__" or "constructor.prototype" key.
      if (error !== null && isJson(text))
        return done(invalidArgument('body must not have a "__proto__" or "constructor" field'), undefined);
      return done(error, body);
    });
  });

  // The OpenAPI document takes in the routes registered after it, /metrics included.
  await app.register(swagger);
  await app.register(metrics);
  await app.register(errors);
  await app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelay ?? 1000,
    maxEventLoopUtilization: limits.maxEventLoopUtilization ?? 0,
    sampleInterval: limits.pressureSampleInterval ?? 500,
  });
  await app.register(auth, { keys });
  await app.register(rateLimit, { max: limits.rateLimitMax ?? 0, timeWindow: limits.rateLimitWindowMs ?? 1000 });
  await app.register(ledgers, { store, budgetBytes: limits.cacheBytes ?? 512 * 1024 * 1024 });
  await app.register(cleanup, cleanupOptions);
  await app.register(health);
  await app.register(customers);
  return app;
}
