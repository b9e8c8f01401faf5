// Shared by this folder's tests: keys, an in-process app on 127.0.0.1, a server process,
// a fetch wrapper, and temporary folders. Everything stops by itself.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../app.js';
import { SqliteStore } from '../store/sqlite.js';
import { makeRng } from './support/seed.js';

export const serverDir = join(dirname(fileURLToPath(import.meta.url)), '..');

export const KEYS = [
  { key: 'admin-key-0123456789abcdef', role: 'admin' },
  { key: 'writer-key-0123456789abcdef', role: 'writer' },
  { key: 'reader-key-0123456789abcdef', role: 'reader' },
  { key: 'acme-writer-0123456789abcdef', role: 'writer', customers: ['acme'] },
];
export const ADMIN = KEYS[0].key;
export const WRITER = KEYS[1].key;
export const READER = KEYS[2].key;
export const ACME_WRITER = KEYS[3].key;

/** A fresh temporary folder, removed when the test process exits. */
export function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-service-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** buildApp over a SQLite file (or the given store), listening on 127.0.0.1 on a free port. */
export async function startApp({ store, dir = tempDir(), limits = {}, keys = KEYS } = {}) {
  const theStore = store ?? new SqliteStore(join(dir, 'ledger.db'));
  await theStore.open();
  // Load shedding off unless a test asks for it: this machine is shared and a stalled
  // event loop would turn a contract check into a 503.
  const app = await buildApp({ store: theStore, keys, limits: { maxEventLoopDelay: 0, ...limits } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${app.server.address().port}`;
  return { app, url, store: theStore, dir, close: () => app.close() };
}

/**
 * `node server/server.js` with a key file; resolves once it prints "listening on".
 * Load shedding is off unless `env` turns it on (see startApp).
 */
// An in-process app over a SQLite file (a fresh one, or the one in `dir`) whose cleanup
// job runs when asked (runOnce), with this grace; `inject` sends as the admin.
export async function appWithCleanup(grace, dir = tempDir(), limits = {}) {
  const store = new SqliteStore(join(dir, 'ledger.db'));
  await store.open();
  const app = await buildApp({ store, keys: KEYS, limits: { maxEventLoopDelay: 0, ...limits }, cleanup: { grace, intervalMs: 3_600_000 } });
  const inject = (method, url, payload) => app.inject({ method, url, payload, headers: { authorization: `Bearer ${ADMIN}` } });
  return { app, inject };
}

export function startProcess({ dbPath, env = {}, keys = KEYS, dir = tempDir() }) {
  const keysPath = join(dir, 'keys.json');
  writeFileSync(keysPath, JSON.stringify(keys));
  const child = spawn(process.execPath, [join(serverDir, 'server.js')], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      LEDGER_STORE: dbPath,
      LEDGER_KEYS: keysPath,
      LOG_LEVEL: 'warn',
      LEDGER_MAX_EVENT_LOOP_DELAY_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killer = () => child.kill('SIGKILL');
  process.on('exit', killer);
  let output = '';
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  exited.then(() => process.off('exit', killer));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no "listening on" within 30 s:\n${output}`));
    }, 30_000);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          child,
          exited,
          output: () => output,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    exited.then((info) => reject(new Error(`server exited ${JSON.stringify(info)}:\n${output}`)));
  });
}

/**
 * One HTTP request. `body` is sent as JSON; `raw` as is (with `type`, default JSON).
 * Resolves to { status, headers, body } with the body parsed when it is JSON.
 */
export async function call(url, method, path, { key = ADMIN, body, raw, type = 'application/json', headers = {} } = {}) {
  const init = { method, headers: { ...headers } };
  if (key !== null) init.headers.authorization = `Bearer ${key}`;
  if (body !== undefined || raw !== undefined) {
    init.headers['content-type'] = type;
    init.body = raw ?? JSON.stringify(body);
  }
  const response = await fetch(url + path, init);
  const text = await response.text();
  const parsed = (response.headers.get('content-type') ?? '').includes('json') && text !== '' ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, body: parsed };
}

/** A client bound to a base URL and key. */
export function client(url, key = ADMIN) {
  const c = (method, path, options = {}) => call(url, method, path, { key, ...options });
  c.get = (path, options) => c('GET', path, options);
  c.post = (path, body, options = {}) => c('POST', path, { body, ...options });
  return c;
}

/** The support PRNG (mulberry32) as a callable, so every run drives the same requests. */
export function random(seed) {
  const rng = makeRng(seed);
  const next = () => rng.next();
  next.int = rng.int;
  next.pick = rng.pick;
  return next;
}
