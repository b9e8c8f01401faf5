// Restart: after a clean stop (SIGTERM, exit 0) and a restart on the same SQLite file,
// every customer answers as before: balances, allocations, queued consumptions still
// queued and let in when a grant arrives, voided ids still taken, retries still idempotent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { client, random, startProcess, tempDir } from './helpers.js';
import { Mirror, servedView } from './mirror.js';

const CUSTOMERS = ['r1', 'r2', 'r3', 'r4'];
const OPTIONS = { times: [0, 3, 8, 15, 30, 50], eventIds: [], from: 0, to: 60 };

test('a restarted server answers every customer as before', async () => {
  const dir = tempDir();
  const dbPath = join(dir, 'ledger.db');
  const mirror = new Mirror();
  let server = await startProcess({ dbPath, dir });
  let c = client(server.url);
  const rand = random(7);
  try {
    for (let i = 0; i < 160; i++) {
      const customer = rand.pick(CUSTOMERS);
      const base = `/v1/customers/${customer}`;
      if (rand() < 0.3) {
        const startTime = rand.int(0, 40);
        const event = { grantId: `g${rand.int(0, 30)}`, amount: rand.int(1, 20), startTime, endTime: startTime + rand.int(0, 15) };
        assert.deepEqual((await c.post(`${base}/grants`, event)).status, mirror.grant(customer, event).status);
      } else {
        const event = { eventId: `e${i}`, amount: rand.int(1, 25), timestamp: rand.int(0, 55), queue: rand() < 0.4 };
        OPTIONS.eventIds.push(event.eventId);
        assert.deepEqual((await c.post(`${base}/consumptions`, event)).body, mirror.consume(customer, event).body);
      }
    }
    // A void and an end change, logged like everything else.
    for (const customer of ['r1', 'r2']) {
      const doc = mirror.ledger(customer).toJSON();
      const spare = doc.grants.find((g) => mirror.ledger(customer).burnDown(g.grantId).draws.length === 0);
      if (spare)
        assert.deepEqual(
          (await c.post(`/v1/customers/${customer}/grants/${spare.grantId}/void`)).body,
          mirror.voidGrant(customer, spare.grantId).body,
        );
      const some = doc.grants.find((g) => g !== spare);
      assert.deepEqual(
        (await c('PATCH', `/v1/customers/${customer}/grants/${some.grantId}`, { body: { endTime: some.endTime + 5 } })).body,
        mirror.setGrantEnd(customer, some.grantId, some.endTime + 5).body,
      );
    }
    const queued = CUSTOMERS.reduce((n, customer) => n + mirror.ledger(customer).pending().length, 0);
    assert.ok(queued > 0, 'some consumptions are queued before the restart');

    const before = {};
    for (const customer of CUSTOMERS) {
      before[customer] = await servedView(c, customer, OPTIONS);
      assert.deepEqual(before[customer], mirror.view(customer, OPTIONS), `${customer} before the restart`);
    }

    assert.deepEqual(await server.stop(), { code: 0, signal: null }, 'SIGTERM: exit 0');
    server = await startProcess({ dbPath, dir });
    c = client(server.url);

    for (const customer of CUSTOMERS)
      assert.deepEqual(await servedView(c, customer, OPTIONS), before[customer], `${customer} after the restart`);

    // Queued consumptions are still retried when credit arrives.
    for (const customer of CUSTOMERS) {
      const event = { grantId: 'top-up', amount: 1000, startTime: 0, endTime: 60 };
      const served = await c.post(`/v1/customers/${customer}/grants`, event);
      const expected = mirror.grant(customer, event);
      assert.deepEqual(served.body, expected.body, `${customer}: the top-up lets the same queued consumptions in`);
      assert.deepEqual(await servedView(c, customer, OPTIONS), mirror.view(customer, OPTIONS), `${customer} after the top-up`);
    }
    assert.ok(
      CUSTOMERS.some((customer) => mirror.ledger(customer).pending().length < queued),
      'the top-ups let queued consumptions in',
    );
  } finally {
    await server.stop();
    mirror.dispose();
  }
});
