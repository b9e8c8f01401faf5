// The REST contract over real HTTP against a server process on 127.0.0.1: a seeded
// random script of grants, consumptions (dry runs, queued, retries, clashing ids),
// batches, voids and end changes over three customers. Every answer is compared with
// what the package answers for the same calls (test/mirror.js), and every read view too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { GPULedger } from 'gpu-credit-ledger';
import { ADMIN, call, client, random, startProcess, tempDir } from './helpers.js';
import { Mirror, servedView, shape } from './mirror.js';
import { storeUnderTest } from './support/postgres.js';

const CUSTOMERS = ['acme', 'b.co:eu-1', 'C_3'];
const TIMES = [0, 1, 5, 10, 17, 25, 40, 60, 90];
let server;
let c;
const mirror = new Mirror();

before(async () => {
  const dir = tempDir();
  // LEDGER_TEST_STORE=postgres (postgres-contract.test.js): the same contract on PostgreSQL.
  // Every long read's answer kept, however short (ledger/read-cache.js): each read view below,
  // compared with the package's after every step, may come from the cache.
  server = await startProcess({ dbPath: await storeUnderTest(join(dir, 'ledger.db')), dir, env: { LEDGER_READ_CACHE_MIN_BYTES: '0' } });
  c = client(server.url, ADMIN);
});

after(async () => {
  const info = await server?.stop();
  assert.deepEqual(info, { code: 0, signal: null }, 'SIGTERM stops the server cleanly');
  mirror.dispose();
});

function grantEvent(rand, ids) {
  const startTime = rand.int(0, 60);
  return { grantId: rand.pick(ids), amount: rand.int(1, 40), startTime, endTime: startTime + rand.int(0, 30) };
}

function consumptionEvent(rand, ids) {
  const event = { eventId: rand.pick(ids), amount: rand.int(1, 30), timestamp: rand.int(0, 90) };
  const kind = rand();
  if (kind < 0.15) event.dryRun = true;
  else if (kind < 0.35) event.queue = true;
  return event;
}

test('every answer equals the package answer for the same calls', async () => {
  const rand = random(20261130);
  const grantIds = Array.from({ length: 20 }, (_, i) => `g${i}`);
  const eventIds = Array.from({ length: 150 }, (_, i) => `e-${i}`);
  const sent = []; // [customer, 'grants' | 'consumptions', body]: resent as retries
  eventIds.push('ünïcödé ✓', 'a/b?c#d');
  const counts = {};
  for (let step = 0; step < 420; step++) {
    const customer = rand.pick(CUSTOMERS);
    const base = `/v1/customers/${customer}`;
    const kind = rand();
    let served;
    let expected;
    let what;
    if (kind < 0.1 && sent.length > 0) {
      // A client retrying a request it already sent, identically.
      const [retryCustomer, route, event] = rand.pick(sent);
      what = [`retry ${route}`, event];
      served = await c.post(`/v1/customers/${retryCustomer}/${route}`, event);
      expected = route === 'grants' ? mirror.grant(retryCustomer, event) : mirror.consume(retryCustomer, event);
    } else if (kind < 0.3) {
      const event = grantEvent(rand, grantIds);
      sent.push([customer, 'grants', event]);
      if (rand() < 0.1) [event.startTime, event.endTime] = [event.endTime + 1, event.startTime]; // start > end: 400
      what = ['grant', event];
      served = await c.post(`${base}/grants`, event);
      expected = mirror.grant(customer, event);
    } else if (kind < 0.7) {
      const event = consumptionEvent(rand, eventIds);
      sent.push([customer, 'consumptions', event]);
      what = ['consumption', event];
      served = await c.post(`${base}/consumptions`, event);
      expected = mirror.consume(customer, event);
    } else if (kind < 0.82) {
      const events = Array.from({ length: rand.int(1, 12) }, () =>
        rand() < 0.3 ? { type: 'grant', ...grantEvent(rand, grantIds) } : { type: 'consumption', ...consumptionEvent(rand, eventIds) },
      );
      what = ['events', events];
      served = await c.post(`${base}/events`, { events });
      expected = mirror.events(customer, events);
    } else if (kind < 0.88) {
      const grantId = rand.pick(grantIds);
      what = ['void', grantId];
      served = await c.post(`${base}/grants/${grantId}/void`);
      expected = mirror.voidGrant(customer, grantId);
    } else if (kind < 0.94) {
      const grantId = rand.pick(grantIds);
      const endTime = rand.int(0, 100);
      what = ['end', grantId, endTime];
      served = await c('PATCH', `${base}/grants/${grantId}`, { body: { endTime } });
      mirror.ledger(customer);
      expected = mirror.setGrantEnd(customer, grantId, endTime);
    } else {
      const eventId = rand.pick(eventIds);
      what = ['lookup', eventId];
      served = await c.get(`${base}/consumptions/${encodeURIComponent(eventId)}`);
      const view = mirror.view(customer, { times: [], eventIds: [eventId], from: 0, to: 0 });
      const found = view.consumptions[0];
      expected = found === 404 ? { status: 404, code: 'NOT_FOUND' } : { status: 200, body: found };
    }
    counts[`${what[0]} ${expected.status}`] = (counts[`${what[0]} ${expected.status}`] ?? 0) + 1;
    assert.deepEqual(shape(served), expected, `step ${step}: ${JSON.stringify(what)} for ${customer}`);
    if (step % 60 === 59) {
      for (const customer of CUSTOMERS) {
        const options = { times: TIMES, eventIds, from: 0, to: 100 };
        assert.deepEqual(await servedView(c, customer, options), mirror.view(customer, options), `view of ${customer} after step ${step}`);
      }
    }
  }
  // The script reached every kind of answer it is meant to check.
  for (const key of [
    'grant 201',
    'retry grants 200',
    'retry consumptions 200',
    'grant 409',
    'grant 400',
    'consumption 200',
    'consumption 409',
    'events 200',
    'void 200',
    'void 404',
    'end 200',
    'lookup 200',
    'lookup 404',
  ]) {
    assert.ok(counts[key] > 0, `the script produced no "${key}" (${JSON.stringify(counts)})`);
  }
  const totals = mirror.view('acme', { times: [], eventIds: [], from: 0, to: 0 });
  assert.ok(totals.ledger.consumptions.length > 10 && totals.pending.pending.length > 0, 'acme has accepted and queued consumptions');
});

test('an unknown customer is an empty ledger, not a 404', async () => {
  const base = '/v1/customers/nobody-yet';
  assert.deepEqual((await c.get(`${base}/balance?at=5`)).body, { customerId: 'nobody-yet', at: 5, balance: 0 });
  const empty = new GPULedger();
  assert.deepEqual((await c.get(`${base}/ledger`)).body, empty.toJSON(), "an empty ledger's document");
  empty.dispose();
  assert.equal((await c.get(`${base}/grants/none`)).status, 404);
  assert.equal((await c.get(`${base}/consumptions/none`)).status, 404);
});

test('health, metrics and the OpenAPI document need no key', async () => {
  const anonymous = client(server.url, null);
  assert.deepEqual((await anonymous.get('/healthz')).body, { status: 'ok' });
  const metrics = await anonymous.get('/metrics');
  assert.equal(metrics.status, 200);
  for (const name of [
    'ledger_http_requests_total',
    'ledger_commit_batch_events',
    'ledger_commit_seconds',
    'ledger_ledgers_cached',
    'ledger_cache_hits_total',
    'ledger_cache_misses_total',
    'ledger_cache_evictions_total',
    'ledger_rebuild_seconds',
  ]) {
    assert.match(metrics.body, new RegExp(`^${name}`, 'm'), name);
  }
  const doc = (await anonymous.get('/openapi.json')).body;
  assert.equal(doc.openapi.slice(0, 2), '3.');
  for (const path of [
    '/v1/customers/{customerId}/grants',
    '/v1/customers/{customerId}/consumptions',
    '/v1/customers/{customerId}/events',
    '/v1/customers/{customerId}/balance',
    '/v1/customers/{customerId}/grants/{grantId}/void',
    '/healthz',
    '/metrics',
    '/openapi.json',
  ]) {
    assert.ok(doc.paths[path], `OpenAPI has ${path}`);
  }
  assert.deepEqual(doc.paths['/v1/customers/{customerId}/grants'].post.requestBody.content['application/json'].schema.required, [
    'grantId',
    'amount',
    'startTime',
    'endTime',
  ]);
});

test('the OpenAPI document lists the statuses every route can give and the headers the answers carry', async () => {
  const doc = (await client(server.url, null).get('/openapi.json')).body;
  const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => [path, method, op]));
  assert.ok(operations.length > 17);
  for (const [path, method, op] of operations) {
    // Before any route (the parser), a fault, and the service stopping: any request.
    for (const status of ['400', '408', '417', '431', '500', '503']) assert.ok(op.responses[status], `${method} ${path} lists ${status}`);
    if (method === 'get') assert.ok(doc.paths[path].head, `HEAD ${path} (Fastify answers HEAD on a GET route)`);
    for (const [status, answer] of Object.entries(op.responses))
      assert.notEqual(answer.description, 'Default Response', `${method} ${path} ${status}`);
  }
  const ids = operations.map(([, , op]) => op.operationId);
  assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
  assert.equal(
    doc.paths['/v1/customers/{customerId}/events'].post.operationId,
    'applyBatch',
    "a customer route's id is the package's name",
  );
  // What the service sends, declared where it sends it.
  const declared = (path, method, status, header) => doc.paths[path][method].responses[status]?.headers?.[header] !== undefined;
  const read = await c.get('/v1/customers/oas/balance?at=1');
  const missing = await c.get('/v1/customers/oas/grants/none');
  const head = await c('HEAD', '/v1/customers/oas/balance?at=1');
  assert.deepEqual([read.status, missing.status, head.status], [200, 404, 200]);
  for (const header of ['x-ledger-seq', 'x-ledger-cached-age-ms']) {
    assert.ok(read.headers.has(header) && declared('/v1/customers/{customerId}/balance', 'get', '200', header), header);
    assert.ok(head.headers.has(header) && declared('/v1/customers/{customerId}/balance', 'head', '200', header), header);
    assert.ok(missing.headers.has(header) && declared('/v1/customers/{customerId}/grants/{grantId}', 'get', '404', header), header);
  }
  const unauthenticated = await call(server.url, 'GET', '/v1/customers/oas/balance?at=1', { key: null });
  assert.equal(unauthenticated.status, 401);
  assert.equal(unauthenticated.headers.get('www-authenticate'), 'Bearer');
  assert.ok(declared('/v1/customers/{customerId}/balance', 'get', '401', 'www-authenticate'));
  // The rate limit runs once the key is known: a 401 never carries its headers.
  assert.equal(unauthenticated.headers.has('x-ratelimit-limit'), false);
  assert.equal(declared('/v1/customers/{customerId}/balance', 'get', '401', 'x-ratelimit-limit'), false);
  for (const [path, method, op] of operations) {
    if (!path.startsWith('/v1/customers/')) continue;
    for (const status of ['429', '503']) assert.ok(op.responses[status].headers['retry-after'], `${method} ${path} ${status} Retry-After`);
  }
});
