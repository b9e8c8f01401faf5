// Starts the service from the environment (see the README's Service section):
// HOST, PORT, LEDGER_STORE, LEDGER_KEYS and the tuning knobs. SIGTERM / SIGINT: stop
// accepting, finish the commits in flight, close the store, exit 0.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { READ_CACHE_BYTES, READ_CACHE_MIN_BYTES, REQUEST_TIMEOUT_MS, SEND_TIMEOUT_MS, buildApp } from './app.js';
import { storeFromSetting } from './store/open.js';

const env = process.env;

function integer(name, fallback) {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(text)}`);
  return value;
}

function number(name, fallback) {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got ${JSON.stringify(text)}`);
  return value;
}

let host = env.HOST || '127.0.0.1';
const port = integer('PORT', 8080);
let keys;
let generatedKey = null;
if (env.LEDGER_KEYS) {
  const text = readFileSync(env.LEDGER_KEYS, 'utf8');
  try {
    keys = JSON.parse(text);
  } catch {
    // The parser's message quotes the text around the error, keys included: never print it.
    throw new Error(`LEDGER_KEYS: ${env.LEDGER_KEYS} is not valid JSON`);
  }
} else {
  // No key file: an admin key for this run only, and nobody but this machine may connect.
  generatedKey = randomBytes(24).toString('base64url');
  keys = [{ key: generatedKey, role: 'admin' }];
  host = '127.0.0.1';
}

const limits = {
  cacheBytes: integer('LEDGER_CACHE_BYTES', 512 * 1024 * 1024),
  rateLimitMax: integer('LEDGER_RATE_LIMIT', 0),
  rateLimitWindowMs: positive('LEDGER_RATE_WINDOW_MS', 1000),
  maxEventLoopDelay: integer('LEDGER_MAX_EVENT_LOOP_DELAY_MS', 1000),
  maxEventLoopUtilization: number('LEDGER_MAX_EVENT_LOOP_UTILIZATION', 0),
  pressureSampleInterval: integer('LEDGER_PRESSURE_SAMPLE_MS', 500),
  requestTimeoutMs: positive('LEDGER_REQUEST_TIMEOUT_MS', REQUEST_TIMEOUT_MS),
  sendTimeoutMs: positive('LEDGER_SEND_TIMEOUT_MS', SEND_TIMEOUT_MS),
  readCacheBytes: integer('LEDGER_READ_CACHE_BYTES', READ_CACHE_BYTES),
  readCacheMinBytes: integer('LEDGER_READ_CACHE_MIN_BYTES', READ_CACHE_MIN_BYTES),
};
// The cleanup job runs when LEDGER_GRACE is set: history older than the customer's latest
// consumption time minus LEDGER_GRACE (ledger time units) becomes final (README, "Cleanup").
const grace = env.LEDGER_GRACE === undefined || env.LEDGER_GRACE === '' ? null : integer('LEDGER_GRACE', 0);
const cleanupIntervalMs = positive('LEDGER_CLEANUP_INTERVAL_MS', 60_000);
// The web origins whose pages may call the API (CORS): any by default; a comma-separated
// list of origins; or "off".
const corsSetting = (env.LEDGER_CORS_ORIGINS ?? '').trim();
const corsOrigins =
  corsSetting === '' || corsSetting === '*'
    ? '*'
    : corsSetting === 'off'
      ? 'off'
      : corsSetting
          .split(',')
          .map((origin) => origin.trim())
          .filter(Boolean)
          .map(checkedOrigin);

// An origin as a browser's Origin header writes it (scheme://host[:port], no path), or the
// server does not start: one written otherwise would never match, and refuse silently.
function checkedOrigin(origin) {
  let serialized = null;
  try {
    serialized = new URL(origin).origin;
  } catch {
    // not a URL
  }
  if (serialized !== origin) {
    const hint = serialized !== null && serialized !== 'null' ? ` (did you mean ${JSON.stringify(serialized)}?)` : '';
    throw new Error(`LEDGER_CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin such as https://app.example.com${hint}`);
  }
  return origin;
}

// The PostgreSQL store's connections per instance, and its bound on every wait for the
// database (ms; README, "Deployment").
function positive(name, fallback) {
  const value = integer(name, fallback);
  if (value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(env[name])}`);
  return value;
}
const store = storeFromSetting(env.LEDGER_STORE || './ledger.db', {
  poolSize: positive('LEDGER_PG_POOL', 8),
  timeoutMs: positive('LEDGER_PG_TIMEOUT_MS', 5000),
});
await store.open();
const app = await buildApp({
  store,
  keys,
  limits,
  logger: { level: env.LOG_LEVEL || 'info' },
  requestLog: env.LEDGER_REQUEST_LOG === '1',
  cleanup: { grace, intervalMs: cleanupIntervalMs },
  corsOrigins,
});

let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'stopping');
  try {
    await app.close();
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'stopping failed');
    process.exit(1);
  }
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

// Booting (schema compilation, WebAssembly instantiation) blocks the event loop; let the
// load-shedding sampler see a normal loop before the first request, or it would be shed.
await app.ready();
await new Promise((resolve) => setTimeout(resolve, 2 * limits.pressureSampleInterval + 10));
await app.listen({ host, port });
const { port: actualPort } = app.server.address();
app.log.info({ grace }, 'ledger service started');
if (generatedKey !== null) console.log(`admin key: ${generatedKey}`);
console.log(`listening on http://${host}:${actualPort}`);
