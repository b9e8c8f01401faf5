// Overload and abuse: the per-key rate limit answers 429 RATE_LIMITED with Retry-After
// and leaves other keys alone; load shedding answers 503 UNAVAILABLE with Retry-After
// while the event loop is saturated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, READER, call, startApp } from './helpers.js';

test('the rate limit is per key: 429 with Retry-After, other keys unaffected', async () => {
  const service = await startApp({ limits: { rateLimitMax: 3, rateLimitWindowMs: 60_000 } });
  try {
    const path = '/v1/customers/acme/balance?at=1';
    for (let i = 0; i < 3; i++) assert.equal((await call(service.url, 'GET', path, { key: READER })).status, 200);
    const limited = await call(service.url, 'GET', path, { key: READER });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1, 'Retry-After in seconds');
    // The message names the window, not the time left in it.
    assert.equal(limited.body.error.message, 'rate limit of 3 requests per 60000 ms exceeded for this key');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await call(service.url, 'GET', path, { key: READER })).body.error.message, limited.body.error.message);
    // Nothing a limited request asked for happened.
    const write = await call(service.url, 'POST', '/v1/customers/acme/consumptions', {
      key: READER,
      body: { eventId: 'x', amount: 1, timestamp: 1, dryRun: true },
    });
    assert.equal(write.status, 429);
    assert.equal((await call(service.url, 'GET', path, { key: ADMIN })).status, 200, 'another key is not limited');
    assert.equal((await call(service.url, 'GET', '/healthz', { key: null })).status, 200, 'health is not limited');
  } finally {
    await service.close();
  }
});

/** Polls until a request is served (200), up to 2 s. */
async function servedWithin(url, path) {
  for (let i = 0; i < 40; i++) {
    if ((await call(url, 'GET', path)).status === 200) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

test('load shedding: 503 UNAVAILABLE with Retry-After while the event loop lags', async () => {
  const service = await startApp({ limits: { maxEventLoopDelay: 50, pressureSampleInterval: 50 } });
  try {
    const path = '/v1/customers/acme/balance?at=1';
    assert.ok(await servedWithin(service.url, path), 'served once the boot lag has passed');
    // Block this process's event loop (the server's too) and ask while the lag is fresh.
    const answered = [];
    for (let attempt = 0; attempt < 20 && !answered.some((a) => a.status === 503); attempt++) {
      const pending = call(service.url, 'GET', path);
      const until = Date.now() + 300;
      while (Date.now() < until);
      answered.push(await pending);
    }
    const shed = answered.find((a) => a.status === 503);
    assert.ok(shed, `some request was shed: ${answered.map((a) => a.status)}`);
    assert.equal(shed.body.error.code, 'UNAVAILABLE');
    assert.ok(Number(shed.headers.get('retry-after')) >= 1);
    assert.ok(await servedWithin(service.url, path), 'served again once the loop is calm');
  } finally {
    await service.close();
  }
});

test('load shedding spares the monitoring routes, and every shed answer has the API error body', async () => {
  // A utilisation limit no running process stays under: every sample sheds.
  const service = await startApp({ limits: { maxEventLoopDelay: 0, maxEventLoopUtilization: 1e-9, pressureSampleInterval: 20 } });
  try {
    const path = '/v1/customers/acme/balance?at=1';
    let shed = null;
    for (let i = 0; i < 100 && shed === null; i++) {
      const answer = await call(service.url, 'GET', path);
      if (answer.status === 503) shed = answer;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(shed, 'the customer route was shed');
    assert.deepEqual(Object.keys(shed.body), ['error']);
    assert.equal(shed.body.error.code, 'UNAVAILABLE');
    for (const monitoring of ['/healthz', '/metrics', '/openapi.json']) {
      const answer = await call(service.url, 'GET', monitoring, { key: null });
      assert.equal(answer.status, 200, `${monitoring} answered while shedding: ${JSON.stringify(answer.body).slice(0, 200)}`);
    }
    assert.equal((await call(service.url, 'GET', path)).status, 503, 'still shedding');
  } finally {
    await service.close();
  }
});
