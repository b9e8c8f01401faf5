// Calls from web pages on other origins (CORS): a preflight is answered without a key, and
// every answer to a page's call, an error's too, says which origin may read it, so that a
// page holding a reader key can show exact previews (GET .../ledger) and read refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildApp } from '../app.js';
import { SqliteStore } from '../store/sqlite.js';
import { KEYS, READER, tempDir } from './helpers.js';

async function appWith(corsOrigins) {
  const store = new SqliteStore(join(tempDir(), 'ledger.db'));
  await store.open();
  const options = { store, keys: KEYS, limits: { maxEventLoopDelay: 0 } };
  if (corsOrigins !== undefined) options.corsOrigins = corsOrigins;
  return buildApp(options);
}

const PAGE = 'https://billing.example';
const preflight = (app, origin, url = '/v1/customers/acme/ledger') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
  });

test('any origin by default: a preflight needs no key, and answers and errors name the origin', async () => {
  const app = await appWith(undefined);
  try {
    const answer = await preflight(app, PAGE);
    assert.equal(answer.statusCode, 204);
    assert.equal(answer.headers['access-control-allow-origin'], '*');
    assert.match(answer.headers['access-control-allow-headers'], /authorization/);
    assert.match(answer.headers['access-control-allow-methods'], /GET/);
    // An OPTIONS request that is not a preflight: 204 too, never a body outside the API's.
    assert.equal((await app.inject({ method: 'OPTIONS', url: '/v1/customers/acme/balance' })).statusCode, 204);
    const read = await app.inject({
      method: 'GET',
      url: '/v1/customers/acme/ledger',
      headers: { origin: PAGE, authorization: `Bearer ${READER}` },
    });
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers['access-control-allow-origin'], '*');
    assert.match(read.headers['access-control-expose-headers'], /x-ledger-seq/);
    for (const header of ['www-authenticate', 'x-ratelimit-remaining'])
      assert.ok(read.headers['access-control-expose-headers'].includes(header), header);
    const refused = await app.inject({ method: 'GET', url: '/v1/customers/acme/ledger', headers: { origin: PAGE } });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['access-control-allow-origin'], '*');
    assert.equal(refused.json().error.code, 'UNAUTHENTICATED');
    const forbidden = await app.inject({
      method: 'POST',
      url: '/v1/customers/acme/grants',
      headers: { origin: PAGE, authorization: `Bearer ${READER}` },
      payload: { grantId: 'g', amount: 1, startTime: 0, endTime: 1 },
    });
    assert.equal(forbidden.statusCode, 403);
    assert.equal(forbidden.headers['access-control-allow-origin'], '*');
  } finally {
    await app.close();
  }
});

test('listed origins only, or none', async () => {
  const listed = await appWith([PAGE]);
  try {
    assert.equal((await preflight(listed, PAGE)).headers['access-control-allow-origin'], PAGE);
    const other = await preflight(listed, 'https://elsewhere.example');
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    const read = await listed.inject({
      method: 'GET',
      url: '/v1/customers/acme/ledger',
      headers: { origin: PAGE, authorization: `Bearer ${READER}` },
    });
    assert.equal(read.headers['access-control-allow-origin'], PAGE);
    assert.match(read.headers.vary, /origin/i);
  } finally {
    await listed.close();
  }
  const off = await appWith('off');
  try {
    const answer = await preflight(off, PAGE);
    assert.equal(answer.statusCode, 404);
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
    const read = await off.inject({
      method: 'GET',
      url: '/v1/customers/acme/ledger',
      headers: { origin: PAGE, authorization: `Bearer ${READER}` },
    });
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers['access-control-allow-origin'], undefined);
  } finally {
    await off.close();
  }
});

// Answers given before any hook runs (Node's parser's, the router's): for each setting and
// request origin (none: undefined), the Access-Control-Allow-Origin and Vary they carry.
const BEFORE_HOOKS = [
  [undefined, PAGE, '*', undefined],
  [[PAGE], PAGE, PAGE, 'Origin'],
  [[PAGE], 'https://elsewhere.example', undefined, 'Origin'],
  [[PAGE], undefined, undefined, 'Origin'],
  ['off', PAGE, undefined, undefined],
];

// What Node's HTTP parser refuses before any route (here a 431, headers over 16 KiB) is
// answered on the socket itself: it carries the same cross-origin headers as other answers.
test("the parser's own refusals carry the cross-origin headers too", async () => {
  const { connect } = await import('node:net');
  const oversized = (port, origin) =>
    new Promise((resolve, reject) => {
      const request =
        `GET /v1/customers/acme/balance?at=1 HTTP/1.1\r\nHost: x\r\n${origin ? `Origin: ${origin}\r\n` : ''}` +
        `X-Big: ${'a'.repeat(17_000)}\r\n\r\n`;
      const socket = connect(port, '127.0.0.1', () => socket.end(request));
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('end', () => {
        const [head, body] = text.split('\r\n\r\n');
        const lines = head.split('\r\n');
        const headers = Object.fromEntries(
          lines.slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        resolve({ status: Number(lines[0].split(' ')[1]), headers, code: JSON.parse(body).error.code });
      });
      socket.on('error', reject);
    });
  for (const [origins, origin, allowed, vary] of BEFORE_HOOKS) {
    const app = await appWith(origins);
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const answer = await oversized(app.server.address().port, origin);
      const name = `${JSON.stringify(origins)} from ${origin}`;
      assert.equal(answer.status, 431, name);
      assert.equal(answer.code, 'HEADERS_TOO_LARGE', name);
      assert.equal(answer.headers['access-control-allow-origin'], allowed, name);
      assert.equal(answer.headers.vary, vary, name);
      if (allowed !== undefined) assert.match(answer.headers['access-control-expose-headers'], /retry-after/, name);
    } finally {
      await app.close();
    }
  }
});

test("the router's own refusals (a path it cannot decode, an over-long parameter) carry the headers and are counted", async () => {
  for (const [origins, origin, allowed, vary] of BEFORE_HOOKS) {
    const app = await appWith(origins);
    try {
      for (const url of [
        '/v1/customers/%ZZ/balance?at=1',
        '/v1/customers/acme/grants/%E0%A4%A',
        `/v1/customers/acme/grants/${'a'.repeat(4100)}`,
      ]) {
        const name = `${JSON.stringify(origins)} from ${origin}: ${url.slice(0, 40)}`;
        const answer = await app.inject({
          method: 'GET',
          url,
          headers: { authorization: `Bearer ${READER}`, ...(origin ? { origin } : {}) },
        });
        assert.equal(answer.statusCode, 400, name);
        assert.equal(answer.json().error.code, 'INVALID_ARGUMENT', name);
        assert.equal(answer.headers['access-control-allow-origin'], allowed, name);
        assert.equal(answer.headers.vary, vary, name);
        if (allowed !== undefined) assert.match(answer.headers['access-control-expose-headers'], /retry-after/, name);
        else assert.equal(answer.headers['access-control-expose-headers'], undefined, name);
      }
      const metrics = await app.inject({ method: 'GET', url: '/metrics' });
      assert.match(metrics.body, /ledger_http_requests_total\{route="unknown",method="GET",status="400"\} 3/);
    } finally {
      await app.close();
    }
  }
});
