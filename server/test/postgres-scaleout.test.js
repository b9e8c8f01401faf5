// Three service instances on one PostgreSQL database. Concurrent writers send every
// customer's requests to random instances (a fresh random pick at every attempt, so a
// retry usually lands elsewhere); one instance is killed with SIGKILL mid-run and
// restarted. At the end: every acknowledged grant and accepted consumption is in the log
// (no lost update), no consumption is logged twice or with other parameters (no double
// charge), and every customer's state served by every instance equals a fresh replay of
// its log through the package. Also: a strong read on one instance sees a write just
// acknowledged by another; a cached read may lag and says by how much.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, killAllServers } from './support/server-process.js';
import { makeClient } from './support/http-client.js';
import { makeTempDir, writeKeyFile } from './support/tmp.js';
import { seedFromEnv, makeRng } from './support/seed.js';
import { collectServed, collectExpected } from './support/ledger-state.js';
import { replayLog } from './support/store-log.js';
import { readPgLogs, startPostgres } from './support/postgres.js';

const INSTANCES = 3;
const CUSTOMERS = Array.from({ length: 8 }, (_, i) => `team-${i}`);
const WRITERS = 16;
const REQUESTS_PER_WRITER = 40;
const GRANTS_PER_CUSTOMER = 6;
const EVENTS_PER_CUSTOMER = 50;
const ENV = { LOG_LEVEL: 'warn', LEDGER_MAX_EVENT_LOOP_DELAY_MS: '0' };

const tmp = makeTempDir('ledger-pg-scaleout');
let pg;
let keys;
let keysPath;
const servers = [];
const urls = [];

async function startInstance(i) {
  servers[i] = await startServer({ store: pg.url, keys: keysPath, env: ENV });
  urls[i] = servers[i].url;
}

before(async () => {
  pg = await startPostgres();
  ({ path: keysPath, keys } = writeKeyFile(tmp.path));
  // One at a time: the first runs the migrations; the others find them applied.
  for (let i = 0; i < INSTANCES; i++) await startInstance(i);
});

after(async () => {
  await killAllServers();
  pg?.stop();
  tmp.remove();
});

/** A client pinned to one instance. */
const pinned = (i, key = keys.admin) =>
  makeClient({
    target: {
      get url() {
        return urls[i];
      },
    },
    key,
    maxSockets: 4,
  });

test(
  'random routing, an instance killed and restarted: no lost update, no double charge, every instance equals the replay',
  { timeout: 150_000 },
  async () => {
    const rng = makeRng(seedFromEnv('postgres-scaleout'));
    // Fixed parameters per id, so any resend is an identical retry (never DUPLICATE_ID).
    const plan = new Map();
    for (const customer of CUSTOMERS) {
      const grants = Array.from({ length: GRANTS_PER_CUSTOMER }, (_, i) => {
        const startTime = rng.int(0, 300);
        return { grantId: `g${i}`, amount: rng.int(50, 200), startTime, endTime: startTime + rng.int(50, 400) };
      });
      const events = Array.from({ length: EVENTS_PER_CUSTOMER }, (_, i) => {
        const event = { eventId: `e${i}`, amount: rng.int(1, 40), timestamp: rng.int(0, 700) };
        if (rng.chance(0.1)) event.queue = true;
        return event;
      });
      plan.set(customer, { grants, events });
    }
    // Every attempt picks a live instance at random: routing never helps correctness here.
    const anywhere = {
      get url() {
        const live = urls.filter(Boolean);
        return live[Math.floor(Math.random() * live.length)] ?? null;
      },
    };
    const answers = []; // [customer, 'grant' | 'consumption', request, answer]
    let done = 0;
    const total = WRITERS * REQUESTS_PER_WRITER;
    let killed = null;
    const writers = Array.from({ length: WRITERS }, async () => {
      const r = rng.fork();
      const client = makeClient({ target: anywhere, key: keys.writer, maxSockets: 1 });
      try {
        for (let k = 0; k < REQUESTS_PER_WRITER; k++) {
          const customer = r.pick(CUSTOMERS);
          const { grants, events } = plan.get(customer);
          const isGrant = r.chance(0.2);
          const body = isGrant ? r.pick(grants) : r.pick(events);
          const path = `/v1/customers/${customer}/${isGrant ? 'grants' : 'consumptions'}`;
          const answer = await client.untilAnswered('POST', path, body, { deadline: Date.now() + 60_000 });
          answers.push([customer, isGrant ? 'grant' : 'consumption', body, answer]);
          if (++done === Math.floor(total / 3) && killed === null) {
            // Mid-run: SIGKILL one instance (requests in flight on it are retried elsewhere) and restart it.
            killed = (async () => {
              urls[1] = null;
              const info = await servers[1].kill('SIGKILL');
              assert.equal(info.signal, 'SIGKILL');
              await startInstance(1);
            })();
          }
        }
      } finally {
        client.close();
      }
    });
    await Promise.all(writers);
    await killed;
    assert.ok(killed !== null, 'the instance was killed mid-run');

    const logs = await readPgLogs(pg.url);
    for (const [customer, kind, body, answer] of answers) {
      const what = `${customer} ${kind} ${JSON.stringify(body)} → ${answer.status} ${JSON.stringify(answer.body)}`;
      const entries = logs.get(customer) ?? [];
      if (kind === 'grant') {
        assert.ok(answer.status === 200 || answer.status === 201, what);
        const logged = entries.filter((e) => e.kind === 'grant' && e.id === body.grantId);
        assert.deepEqual(
          logged.map((e) => [e.amount, e.t1, e.t2]),
          [[body.amount, body.startTime, body.endTime]],
          `logged once: ${what}`,
        );
      } else {
        assert.equal(answer.status, 200, what);
        // A queued consumption is logged as `submit`; the grant that lets it in logs it as
        // `consume` beside its own entry (replayed, an identical retry).
        const logged = entries.filter((e) => (e.kind === 'consume' || e.kind === 'submit') && e.id === body.eventId);
        const charged = logged.filter((e) => e.kind === 'consume');
        assert.ok(charged.length <= 1, `never charged twice: ${what}`);
        assert.ok(logged.length - charged.length <= 1, `queued at most once: ${what}`);
        if (charged.length === 1 && logged.length === 2) {
          assert.ok(logged[0].kind === 'submit', `let in after it was queued: ${what}`);
        }
        if (answer.body.accepted || answer.body.queued)
          assert.ok(logged.length >= 1, `an accepted or queued consumption is logged: ${what}`);
        for (const e of logged) assert.deepEqual([e.amount, e.t1], [body.amount, body.timestamp], what);
      }
    }
    // An id once answered accepted is accepted in every later answer (retries included).
    const accepted = new Set();
    for (const [customer, kind, body, answer] of answers) {
      if (kind !== 'consumption') continue;
      const key = `${customer}/${body.eventId}`;
      if (accepted.has(key)) assert.equal(answer.body.accepted, true, `${key} stays accepted`);
      if (answer.body.accepted) accepted.add(key);
    }
    assert.ok(accepted.size > 20, `a real workload: ${accepted.size} consumptions accepted`);

    const view = {
      times: [0, 50, 150, 300, 450, 700, 900],
      curveFrom: 0,
      curveTo: 1000,
      eventIds: Array.from({ length: EVENTS_PER_CUSTOMER }, (_, i) => `e${i}`),
    };
    for (const customer of CUSTOMERS) {
      const ledger = replayLog(logs.get(customer) ?? []);
      try {
        const expected = collectExpected(ledger, view);
        for (let i = 0; i < INSTANCES; i++) {
          const client = pinned(i);
          try {
            assert.deepEqual(
              await collectServed(client, customer, view),
              expected,
              `${customer} on instance ${i} equals the replay of its log`,
            );
          } finally {
            client.close();
          }
        }
      } finally {
        ledger.dispose();
      }
    }
  },
);

test(
  'a strong read on one instance sees a write acknowledged by another; a cached read may lag and says so',
  { timeout: 60_000 },
  async () => {
    const clients = Array.from({ length: INSTANCES }, (_, i) => pinned(i));
    const customer = 'read-your-writes';
    const base = `/v1/customers/${customer}`;
    try {
      let total = 0;
      for (let i = 0; i < 12; i++) {
        const amount = 10 + i;
        const added = await clients[i % INSTANCES].untilAnswered('POST', `${base}/grants`, {
          grantId: `g${i}`,
          amount,
          startTime: 0,
          endTime: 100,
        });
        assert.equal(added.status, 201);
        total += amount;
        const reader = clients[(i + 1) % INSTANCES];
        const read = await reader.untilAnswered('GET', `${base}/balance?at=5`);
        assert.equal(read.status, 200);
        assert.equal(read.body.balance, total, `instance ${(i + 1) % INSTANCES} sees the grant added on instance ${i % INSTANCES}`);
        assert.equal(Number(read.headers['x-ledger-seq']), 2 * i + 1, 'the answer reflects every entry so far');
        const used = await clients[(i + 2) % INSTANCES].untilAnswered('POST', `${base}/consumptions`, {
          eventId: `c${i}`,
          amount: 1,
          timestamp: 5,
        });
        assert.equal(used.body.accepted, true);
        total -= 1;
        const seen = await reader.untilAnswered('GET', `${base}/consumptions/c${i}`);
        assert.equal(seen.status, 200, 'a consumption accepted elsewhere is visible at once');
      }
      // Instance 2 caches the customer; instance 0 writes; a cached read on 2 answers from
      // its cache (the old balance, the old seq, an age), a strong one catches up.
      const before = await clients[2].untilAnswered('GET', `${base}/balance?at=5`);
      const seqBefore = Number(before.headers['x-ledger-seq']);
      await clients[0].untilAnswered('POST', `${base}/grants`, { grantId: 'late', amount: 1000, startTime: 0, endTime: 100 });
      await new Promise((resolve) => setTimeout(resolve, 30));
      const cached = await clients[2].untilAnswered('GET', `${base}/balance?at=5&consistency=cached`);
      assert.equal(cached.status, 200);
      assert.equal(cached.body.balance, before.body.balance, 'the cached view has not seen the other instance write');
      assert.equal(Number(cached.headers['x-ledger-seq']), seqBefore);
      assert.ok(Number(cached.headers['x-ledger-cached-age-ms']) >= 30, `age ${cached.headers['x-ledger-cached-age-ms']} ms`);
      const strong = await clients[2].untilAnswered('GET', `${base}/balance?at=5&consistency=strong`);
      assert.equal(strong.body.balance, before.body.balance + 1000);
      assert.equal(Number(strong.headers['x-ledger-seq']), seqBefore + 1);
      const bad = await clients[2].untilAnswered('GET', `${base}/balance?at=5&consistency=eventual`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'INVALID_ARGUMENT');
    } finally {
      for (const c of clients) c.close();
    }
  },
);

test(
  'one customer written through two instances at once: every write is committed, none given up (lost races wait and run again)',
  { timeout: 60_000 },
  async () => {
    const clients = [pinned(0), pinned(1)];
    const base = '/v1/customers/contended';
    const TOTAL = 600;
    const statuses = {};
    let next = 0;
    const writer = async () => {
      for (let i = next++; i < TOTAL; i = next++) {
        // request(): one attempt, so that a 503 shows here instead of being retried.
        const r = await clients[i % 2].request('POST', `${base}/grants`, { grantId: `g${i}`, amount: 1, startTime: 0, endTime: 100 });
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      }
    };
    try {
      await Promise.all(Array.from({ length: WRITERS }, writer));
      assert.deepEqual(statuses, { 201: TOTAL });
      for (const client of clients) assert.equal((await client.request('GET', `${base}/balance?at=50`)).body.balance, TOTAL);
    } finally {
      for (const client of clients) client.close();
    }
  },
);
