// The cleanup job's clock is the customer's latest accepted consumption: a consumption
// queued for a far time (never funded, perhaps cancelled later) and a grant for the far
// future leave the horizon where the accepted ones put it, and ordinary writes go on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appWithCleanup } from './helpers.js';

const BASE = '/v1/customers/clock';
const FAR = 10 ** 12;

test('a far queued consumption or a far grant does not move the horizon; ordinary writes go on', async () => {
  const { app, inject } = await appWithCleanup(10);
  const status = async (method, route, body) => (await inject(method, `${BASE}/${route}`, body)).statusCode;
  try {
    assert.equal(await status('POST', 'grants', { grantId: 'g1', amount: 100, startTime: 0, endTime: 10 * FAR }), 201);
    const c1 = await inject('POST', `${BASE}/consumptions`, { eventId: 'c1', amount: 10, timestamp: 100 });
    assert.equal(c1.json().accepted, true);
    const far = await inject('POST', `${BASE}/consumptions`, { eventId: 'far', amount: 1000, timestamp: FAR, queue: true });
    assert.equal(far.json().queued, true);
    assert.equal(await status('POST', 'grants', { grantId: 'next-year', amount: 5, startTime: FAR, endTime: 2 * FAR }), 201);

    const [pass] = await app.cleanup.runOnce();
    assert.equal(pass.horizon, 90, 'the latest accepted consumption (100) less the grace (10)');
    assert.equal((await inject('GET', `${BASE}/ledger`)).json().horizon, 90);
    assert.equal((await inject('GET', `${BASE}/balance?at=100`)).json().balance, 90);
    const c2 = await inject('POST', `${BASE}/consumptions`, { eventId: 'c2', amount: 1, timestamp: 200 });
    assert.equal(c2.statusCode, 200, c2.body);
    assert.equal(c2.json().accepted, true);
    assert.deepEqual(
      (await inject('GET', `${BASE}/pending`)).json().pending.map((p) => p.eventId),
      ['far'],
      'the queued consumption is still queued',
    );

    // Cancelled, it leaves nothing behind either.
    assert.equal(await status('DELETE', 'pending/far'), 200);
    const [next] = await app.cleanup.runOnce();
    assert.equal(next.horizon, 190);
    assert.equal(await status('POST', 'consumptions', { eventId: 'c3', amount: 1, timestamp: 300 }), 200);
  } finally {
    await app.close();
  }
});
