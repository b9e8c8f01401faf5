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
