// Concurrency on one customer: 64 clients send overlapping ids at the same time (the same
// event id with identical parameters from many clients, and some with other parameters).
// No id is charged twice, identical requests get the same answer, conflicting ones get
// 409, and the final state equals a serial replay, in commit (log) order, of the log
// through a fresh GPULedger. Readers running alongside never see a consumption that is
// not committed, and always see one whose acknowledgement arrived before they asked.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServer, killAllServers } from './support/server-process.js';
import { makeClient } from './support/http-client.js';
import { makeTempDir, writeKeyFile } from './support/tmp.js';
import { seedFromEnv, makeRng } from './support/seed.js';
import { collectServed, collectExpected } from './support/ledger-state.js';
import { readLogs, replayLog, openLogReader } from './support/store-log.js';

const CLIENTS = 64;
const READERS = 4;
const REQUESTS_PER_CLIENT = 40;
const READS_PER_READER = 80;
const POOL = 300; // event ids shared by all clients
const PRECOMMITTED = 16; // ids accepted before the race, then sent with other parameters
const GRANT_POOL = 12;
const CUSTOMER = 'race-1';
const BASE = `/v1/customers/${CUSTOMER}`;

// The checks below read every accepted consumption in the ledger document: the cleanup
// job (on when LEDGER_GRACE is set) would make old history final and drop it from there.
const NO_CLEANUP = { LEDGER_GRACE: '' };

const tmp = makeTempDir('ledger-concurrency');
after(async () => {
  await killAllServers();
  tmp.remove();
});

test('64 clients with overlapping ids on one customer: no double charge, serial-replay equal', { timeout: 120_000 }, async () => {
  const seed = seedFromEnv('concurrency');
  const rng = makeRng(seed);
  const deadline = Date.now() + 75_000;
  const store = join(tmp.path, 'ledger.db');
  const { path: keysPath, keys } = writeKeyFile(tmp.path);
  const server = await startServer({ store, keys: keysPath, env: NO_CLEANUP });
  const target = { url: server.url };
  const admin = makeClient({ target, key: keys.admin, maxSockets: 8 });
  const logReader = openLogReader(store);
  try {
    // Phase 1: 64 clients race to add the same grants. Each grant id is added once (201);
    // every other identical request is an idempotent retry (200); other parameters, 409.
    const grantPool = Array.from({ length: GRANT_POOL }, (_, i) => {
      const startTime = rng.int(0, 700);
      return { grantId: `g${i}`, amount: rng.int(100, 400), startTime, endTime: startTime + rng.int(100, 500) };
    });
    const grantAnswers = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, n) => {
        const r = rng.fork();
        const client = makeClient({ target, key: keys.writer, maxSockets: 1 });
        const answers = [];
        try {
          for (let k = 0; k < 6; k += 1) {
            // A few clients end with other parameters for a grant they saw answered: 409.
            const conflicting = n % 16 === 0 && k === 5;
            const grant = conflicting ? answers[0].grant : r.pick(grantPool);
            const body = conflicting ? { ...grant, amount: grant.amount + 1 } : grant;
            const answer = await client.untilAnswered('POST', `${BASE}/grants`, body, { deadline });
            answers.push({ grant, conflicting, status: answer.status, body: answer.body });
          }
        } finally {
          client.close();
        }
        return answers;
      }),
    );
    const created = new Map();
    const picked = new Set();
    for (const a of grantAnswers.flat()) {
      if (!a.conflicting) picked.add(a.grant.grantId);
      if (a.conflicting) {
        assert.equal(a.status, 409, `grant ${a.grant.grantId} with other parameters: ${JSON.stringify(a.body)}`);
        assert.equal(a.body.error.code, 'DUPLICATE_ID');
      } else {
        assert.ok(a.status === 201 || a.status === 200, `grant ${a.grant.grantId}: ${a.status} ${JSON.stringify(a.body)}`);
        if (a.status === 201) created.set(a.grant.grantId, (created.get(a.grant.grantId) ?? 0) + 1);
      }
    }
    for (const id of picked)
      assert.equal(created.get(id), 1, `grant ${id}: ${created.get(id) ?? 0} answers 201 (first add), expected exactly 1`);
    // Grants nobody picked are added now, so the pool is whole either way.
    for (const g of grantPool) {
      if (!picked.has(g.grantId)) {
        const answer = await admin.untilAnswered('POST', `${BASE}/grants`, g);
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
      }
    }

    // Phase 2: consumptions only. The set of accepted consumptions only grows and no credit
    // is added, so an id rejected once stays rejected: identical requests of one id must all
    // get the same decision.
    const pool = Array.from({ length: POOL }, (_, i) => ({
      eventId: `e${i}`,
      amount: rng.int(1, 40),
      timestamp: rng.int(0, 1100),
      ...(i % 10 === 3 ? { queue: true } : {}),
    }));
    // Accepted before the race (1 credit inside a grant's window), then sent by racing
    // clients both identically (accepted again, no charge) and with other parameters (409).
    const precommitted = pool
      .slice(0, PRECOMMITTED)
      .map(({ eventId }, i) => ({ eventId, amount: 1, timestamp: grantPool[i % GRANT_POOL].startTime }));
    for (const c of precommitted) {
      const answer = await admin.untilAnswered('POST', `${BASE}/consumptions`, c);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.accepted, true, `pre-committed ${c.eventId}: ${JSON.stringify(answer.body)}`);
    }
    const canonical = new Map([...pool.slice(PRECOMMITTED), ...precommitted].map((c) => [c.eventId, c]));
    const ids = [...canonical.keys()];

    const acks = new Map(); // eventId -> earliest time an accepted answer arrived
    const answers = []; // { eventId, conflicting, status, body, sentAt, ackAt }
    const writers = Array.from({ length: CLIENTS }, async () => {
      const r = rng.fork();
      const client = makeClient({ target, key: keys.writer, maxSockets: 1 });
      try {
        for (let k = 0; k < REQUESTS_PER_CLIENT && Date.now() < deadline; k += 1) {
          const conflicting = r.chance(0.08);
          const c = conflicting ? r.pick(precommitted) : canonical.get(r.pick(ids));
          const body = conflicting ? { ...c, amount: c.amount + r.int(1, 5) } : c;
          const sentAt = performance.now();
          const answer = await client.untilAnswered('POST', `${BASE}/consumptions`, body, { deadline });
          const ackAt = performance.now();
          answers.push({ eventId: c.eventId, conflicting, status: answer.status, body: answer.body, sentAt, ackAt });
          if (answer.status === 200 && answer.body.accepted && !acks.has(c.eventId)) acks.set(c.eventId, ackAt);
        }
      } finally {
        client.close();
      }
    });

    const reads = []; // { sentAt, seen: Set, uncommitted: [] }
    const readers = Array.from({ length: READERS }, async () => {
      const client = makeClient({ target, key: keys.reader, maxSockets: 1 });
      try {
        for (let k = 0; k < READS_PER_READER && Date.now() < deadline; k += 1) {
          const sentAt = performance.now();
          // A retried read counts from its first attempt: that only narrows what it must show.
          const answer = await client.untilAnswered('GET', `${BASE}/ledger`, undefined, { deadline });
          // Checked the moment the answer arrives: everything it shows is in the log on disk.
          const committed = logReader.consumptionIds(CUSTOMER);
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          const seen = new Set(answer.body.consumptions.map((c) => c.eventId));
          reads.push({ sentAt, seen, uncommitted: [...seen].filter((id) => !committed.has(id)) });
        }
      } finally {
        client.close();
      }
    });
    await Promise.all([...writers, ...readers]);
    console.log(`# ${answers.length} consumption requests from ${CLIENTS} clients, ${reads.length} interleaved reads`);

    // Answers: conflicting parameters → 409; identical requests → one decision per id.
    const decisions = new Map();
    for (const a of answers) {
      if (a.conflicting) {
        assert.equal(a.status, 409, `${a.eventId} with other parameters: ${JSON.stringify(a.body)}`);
        assert.equal(a.body.error.code, 'DUPLICATE_ID');
        continue;
      }
      assert.equal(a.status, 200, `${a.eventId}: ${JSON.stringify(a.body)}`);
      const c = canonical.get(a.eventId);
      assert.equal(a.body.eventId, a.eventId);
      const decision = { accepted: a.body.accepted, queued: a.body.queued };
      if (a.body.accepted) {
        assert.equal(a.body.reason, null);
        assert.equal(
          a.body.allocations.reduce((s, x) => s + x.amount, 0),
          c.amount,
          `${a.eventId}: allocations do not add up`,
        );
      } else if (!a.body.queued) {
        assert.ok(['INSUFFICIENT_CREDIT', 'WOULD_UNFUND'].includes(a.body.reason), `${a.eventId}: reason ${a.body.reason}`);
      }
      const first = decisions.get(a.eventId);
      if (first === undefined) decisions.set(a.eventId, decision);
      else assert.deepStrictEqual(decision, first, `${a.eventId}: identical requests got different decisions`);
    }
    const accepted = [...decisions].filter(([, d]) => d.accepted).length;
    console.log(`# ${decisions.size} ids decided: ${accepted} accepted, ${[...decisions].filter(([, d]) => d.queued).length} queued`);
    assert.ok(accepted > 0 && accepted < decisions.size, 'the workload should see both acceptances and rejections');

    // Reads: nothing uncommitted, nothing unacknowledged, nothing acknowledged missing.
    let checkedPairs = 0;
    for (const read of reads) {
      assert.deepStrictEqual(read.uncommitted, [], 'a read showed consumptions not yet in the log');
      for (const id of read.seen) {
        if (precommitted.some((c) => c.eventId === id)) continue;
        assert.ok(decisions.get(id)?.accepted, `a read showed ${id}, which was never acknowledged accepted`);
      }
      for (const [id, ackAt] of acks) {
        if (read.sentAt > ackAt) {
          checkedPairs += 1;
          assert.ok(read.seen.has(id), `${id} was acknowledged before a read was sent, but the read did not show it`);
        }
      }
    }
    console.log(`# ${checkedPairs} (acknowledgement, later read) pairs checked`);

    // Final state: each id charged once, and equal to a serial replay of the log.
    const served = await collectServed(admin, CUSTOMER, {
      times: [0, 100, 250, 400, 550, 700, 850, 1000, 1200],
      eventIds: ids,
      curveFrom: 0,
      curveTo: 1400,
    });
    const doc = served.ledger;
    assert.equal(new Set(doc.consumptions.map((c) => c.eventId)).size, doc.consumptions.length, 'an event id charged twice');
    for (const c of doc.consumptions) {
      const d = decisions.get(c.eventId);
      assert.ok(precommitted.some((p) => p.eventId === c.eventId) || d?.accepted, `${c.eventId} charged but not acknowledged accepted`);
      const sent = canonical.get(c.eventId);
      assert.deepStrictEqual({ amount: c.amount, timestamp: c.timestamp }, { amount: sent.amount, timestamp: sent.timestamp });
    }
    for (const [id, d] of decisions) {
      assert.equal(
        doc.consumptions.some((c) => c.eventId === id),
        d.accepted,
        `${id}: ledger disagrees with the answer`,
      );
    }
    const entries = readLogs(store).get(CUSTOMER) ?? [];
    const replayed = replayLog(entries);
    try {
      const expected = collectExpected(replayed, {
        times: [0, 100, 250, 400, 550, 700, 850, 1000, 1200],
        eventIds: ids,
        curveFrom: 0,
        curveTo: 1400,
      });
      assert.deepStrictEqual(served, expected, 'the served state differs from a serial replay of the log');
      const pending = new Set(replayed.pending().map((p) => p.eventId));
      for (const [id, d] of decisions) assert.equal(pending.has(id), d.queued, `${id}: queued answer and pending queue disagree`);
    } finally {
      replayed.dispose();
    }
  } finally {
    logReader.close();
    admin.close();
    await server.stop();
  }
});
