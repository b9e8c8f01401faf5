// The ledger cache under a tiny memory budget: customers are evicted least-recently-used,
// rebuilt from the log on their next request, and answer exactly as before.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, random, startApp } from './helpers.js';
import { Mirror, servedView } from './mirror.js';

const CUSTOMERS = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
let service;
let c;
const mirror = new Mirror();

before(async () => {
  // One byte: after every load, every other idle ledger is over budget.
  service = await startApp({ limits: { cacheBytes: 1 } });
  c = client(service.url);
});

after(async () => {
  await service?.close();
  mirror.dispose();
});

function metric(text, name) {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? NaN : Number(line.split(' ')[1]);
}

test('evicted customers are reloaded from the log and answer identically', async () => {
  const rand = random(99);
  const eventIds = [];
  for (let i = 0; i < 150; i++) {
    const customer = rand.pick(CUSTOMERS);
    const base = `/v1/customers/${customer}`;
    if (rand() < 0.3) {
      const startTime = rand.int(0, 30);
      const event = { grantId: `g${i}`, amount: rand.int(5, 30), startTime, endTime: startTime + rand.int(0, 20) };
      assert.deepEqual((await c.post(`${base}/grants`, event)).body, mirror.grant(customer, event).body, `step ${i}`);
    } else {
      const event = { eventId: `e${i}`, amount: rand.int(1, 20), timestamp: rand.int(0, 50), queue: rand() < 0.2 };
      eventIds.push(event.eventId);
      assert.deepEqual((await c.post(`${base}/consumptions`, event)).body, mirror.consume(customer, event).body, `step ${i}`);
    }
  }
  const options = { times: [0, 5, 12, 25, 40], eventIds, from: 0, to: 60 };
  for (const customer of CUSTOMERS) assert.deepEqual(await servedView(c, customer, options), mirror.view(customer, options), customer);

  const metrics = (await c.get('/metrics')).body;
  assert.ok(metric(metrics, 'ledger_cache_evictions_total') > 50, 'customers were evicted');
  assert.ok(metric(metrics, 'ledger_cache_misses_total') > 50, 'and reloaded');
  assert.ok(metric(metrics, 'ledger_ledgers_cached') <= 2, 'few ledgers stay cached');
  assert.ok(metric(metrics, 'ledger_rebuild_seconds_count') === metric(metrics, 'ledger_cache_misses_total'));
});
