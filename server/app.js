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
import health from './routes/health.js';
import customers from './routes/v1/customers/index.js';

export const BODY_LIMIT = 1024 * 1024;

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
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, discriminator: true } },
  });

  // POST .../void takes no body: accept an empty one even when it is labelled JSON.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) =>
    text === '' ? done(null, undefined) : parseJson(request, text, done),
  );

  await app.register(metrics);
  await app.register(swagger);
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
