// The cleanup job under the scale-out workload: three instances on one database, each
// running the job every 150 ms with a small grace, while concurrent writers send every
// customer's consumptions (times moving forward, some backdated, some resent) to random
// instances. Compactions race with writes and with each other across instances. At the
// end: the log (archive + log) has no gap and no consumption twice, every acknowledged
// one is in it with its parameters, every instance and a freshly started one hold the
// same ledger, and that ledger answers like the uncompacted replay at and after its horizon.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, killAllServers } from './support/server-process.js';
import { makeClient } from './support/http-client.js';
import { makeTempDir, writeKeyFile } from './support/tmp.js';
import { seedFromEnv, makeRng } from './support/seed.js';
import { readPgLogs, startPostgres } from './support/postgres.js';
import { replayUncompacted } from './support/cleanup-scenario.js';

const CUSTOMERS = ['u-0', 'u-1', 'u-2', 'u-3'];
const WRITERS = 8;
const REQUESTS_PER_WRITER = 50;
const GRACE = 50;
const ENV = { LOG_LEVEL: 'warn', LEDGER_MAX_EVENT_LOOP_DELAY_MS: '0', LEDGER_GRACE: String(GRACE), LEDGER_CLEANUP_INTERVAL_MS: '150' };

const tmp = makeTempDir('ledger-pg-cleanup-scaleout');
let pg;
let keys;
let keysPath;
const urls = [];

before(async () => {
  pg = await startPostgres();
  ({ path: keysPath, keys } = writeKeyFile(tmp.path));
  for (let i = 0; i < 3; i++) urls.push((await startServer({ store: pg.url, keys: keysPath, env: ENV })).url);
});

after(async () => {
  await killAllServers();
  pg?.stop();
  tmp.remove();
});

test(
  'compactions on every instance during random-routed writes: nothing lost, nothing twice, one ledger everywhere',
  { timeout: 150_000 },
  async () => {
    const rng = makeRng(seedFromEnv('postgres-cleanup-scaleout'));
    const anywhere = {
      get url() {
        return urls[Math.floor(Math.random() * urls.length)];
      },
    };
    const admin = makeClient({ target: anywhere, key: keys.admin, maxSockets: 2 });
    for (const customer of CUSTOMERS) {
      const r = await admin.untilAnswered('POST', `/v1/customers/${customer}/grants`, {
        grantId: 'base',
        amount: 1_000_000,
        startTime: 0,
        endTime: 1_000_000,
      });
      assert.equal(r.status, 201);
    }
    const clock = new Map(CUSTOMERS.map((c) => [c, 0]));
    const sent = []; // [customer, body, answer]
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        const r = rng.fork();
        const client = makeClient({ target: anywhere, key: keys.writer, maxSockets: 1 });
        try {
          for (let k = 0; k < REQUESTS_PER_WRITER; k++) {
            const customer = r.pick(CUSTOMERS);
            let body;
            if (sent.length > 0 && r.chance(0.15)) {
              body = r.pick(sent)[1]; // a resend, possibly of an event now before the horizon
              if (body.customer !== customer) continue;
            } else {
              const now = clock.get(customer) + r.int(1, 5);
              clock.set(customer, now);
              body = {
                customer,
                eventId: `e-${now}-${r.int(0, 1e9)}`,
                amount: r.int(1, 50),
                timestamp: Math.max(0, now - (r.chance(0.2) ? r.int(1, 2 * GRACE) : 0)),
              };
            }
            const { customer: _, ...payload } = body;
            const answer = await client.untilAnswered('POST', `/v1/customers/${customer}/consumptions`, payload, {
              deadline: Date.now() + 60_000,
            });
            sent.push([customer, body, answer]);
          }
        } finally {
          client.close();
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 400)); // a last pass on every instance

    const logs = await readPgLogs(pg.url);
    for (const [customer, body, answer] of sent) {
      const what = `${customer} ${JSON.stringify(body)} → ${answer.status} ${JSON.stringify(answer.body)}`;
      const logged = (logs.get(customer) ?? []).filter((e) => e.kind === 'consume' && e.id === body.eventId);
      assert.ok(logged.length <= 1, `never charged twice: ${what}`);
      if (answer.status === 200 && answer.body.accepted) {
        assert.equal(logged.length, 1, `an acknowledged consumption is logged: ${what}`);
        assert.deepEqual([logged[0].amount, logged[0].t1], [body.amount, body.timestamp], what);
      } else {
        assert.ok(answer.status === 200 || (answer.status === 409 && answer.body.error.code === 'BEFORE_HORIZON'), what);
      }
    }
    const compactions = [...logs.values()].flat().filter((e) => e.kind === 'compact').length;
    assert.ok(compactions >= CUSTOMERS.length, `the job ran: ${compactions} compact entries`);
    const refused = sent.filter(([, , a]) => a.status === 409).length;
    console.log(`# ${sent.length} requests, ${compactions} compactions, ${refused} refused BEFORE_HORIZON`);

    const fresh = await startServer({ store: pg.url, keys: keysPath, env: { LOG_LEVEL: 'warn', LEDGER_MAX_EVENT_LOOP_DELAY_MS: '0' } });
    const everyone = [...urls, fresh.url];
    for (const customer of CUSTOMERS) {
      const docs = [];
      for (const url of everyone) {
        const c = makeClient({ target: { url }, key: keys.admin });
        try {
          docs.push((await c.untilAnswered('GET', `/v1/customers/${customer}/ledger`)).body);
        } finally {
          c.close();
        }
      }
      for (let i = 1; i < docs.length; i++)
        assert.deepEqual(docs[i], docs[0], `${customer}: instance ${i} holds the same ledger as instance 0`);
      const h = docs[0].horizon;
      assert.ok(h > 0, `${customer} was compacted (horizon ${h})`);
      const oracle = replayUncompacted(logs.get(customer));
      const c = makeClient({ target: { url: fresh.url }, key: keys.admin });
      try {
        for (const t of [h, h + 1, h + GRACE, h + 10 * GRACE]) {
          assert.equal(
            (await c.untilAnswered('GET', `/v1/customers/${customer}/balance?at=${t}`)).body.balance,
            oracle.getBalance(t),
            `${customer} balance at ${t}`,
          );
          assert.equal(
            (await c.untilAnswered('GET', `/v1/customers/${customer}/headroom?at=${t}`)).body.headroom,
            oracle.headroom(t),
            `${customer} headroom at ${t}`,
          );
        }
        assert.deepEqual(
          (await c.untilAnswered('GET', `/v1/customers/${customer}/balance-curve?from=${h}&to=${h + 20 * GRACE}`)).body.points,
          oracle.balanceCurve(h, h + 20 * GRACE),
        );
        for (const { eventId } of docs[0].consumptions) {
          assert.deepEqual(
            (await c.untilAnswered('GET', `/v1/customers/${customer}/consumptions/${eventId}`)).body.allocations,
            oracle.allocations(eventId),
            `${customer} ${eventId}`,
          );
        }
      } finally {
        c.close();
        oracle.dispose();
      }
    }
    admin.close();
  },
);
