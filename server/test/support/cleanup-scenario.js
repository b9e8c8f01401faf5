// The cleanup job's test, run on either store (cleanup-sqlite.test.js,
// postgres-cleanup.test.js): in-process apps (buildApp, app.inject) over one store.
//
// Several customers get a seeded workload (grants, consumptions with some backdating,
// queued ones, a void). Before compaction, every customer's view at times at or after
// its future horizon is taken from the service; the job compacts; the app is closed and
// rebuilt on the same store (rebuild = latest snapshot + log after it); the view must be
// identical, and equal to the package's answers on a full, uncompacted replay of the
// log and archive (the oracle). Then: log rows up to the snapshot are in the archive;
// a late event before the horizon gets 409 BEFORE_HORIZON and changes nothing; a retry
// of an archived grant or consumption gets its original answer, other parameters under
// an archived id get 409 DUPLICATE_ID; new events after the horizon are answered as the
// oracle answers them. Last, memory: a long stream per customer with a pass every so
// often keeps each ledger's event count and the shared heap bounded.
import assert from 'node:assert/strict';
import { GPULedger } from 'gpu-credit-ledger';
import { buildApp } from '../../app.js';
import { makeRng } from './seed.js';
import { KEYS, ADMIN } from '../helpers.js';

const GRACE = 100;
const auth = { authorization: `Bearer ${ADMIN}` };

/** storeKit: { make(): Store (unopened), logs(): Promise<Map customer → entries> } */
export async function runCleanupScenario(t, storeKit, seed) {
  let app = await open(storeKit);
  try {
    const rng = makeRng(seed);
    const customers = ['c-0', 'c-1', 'c-2', 'c-3'];
    const sent = new Map(); // customer → { grants: [], consumptions: [] } (accepted ones)
    for (const customer of customers) sent.set(customer, await workload(app, customer, rng));
    // A consumption queued at time 0 that no credit will fund: the compaction drops it.
    const early = await post(app, 'c-0', 'consumptions', { eventId: 'queued-early', amount: 10 ** 12, timestamp: 0, queue: true });
    assert.equal(early.json().queued, true);

    // The view each customer will have to keep, taken before compaction.
    const horizons = new Map();
    const before = new Map();
    for (const customer of customers) {
      const doc = await get(app, customer, '/ledger');
      // The job's clock: the latest accepted consumption time (queued ones do not count).
      const latest = Math.max(...doc.consumptions.map((c) => c.timestamp));
      horizons.set(customer, latest - GRACE);
      before.set(customer, await view(app, customer, latest - GRACE));
    }

    const passes = await app.cleanup.runOnce();
    assert.equal(passes.length, customers.length, 'every held customer was compacted');
    for (const p of passes) assert.equal(p.horizon, horizons.get(p.customer));
    assert.ok(
      passes.some((p) => p.droppedConsumptions > 0),
      'the job dropped history',
    );
    assert.deepEqual(await app.cleanup.runOnce(), [], 'a second pass with nothing new does nothing');

    await app.close();
    app = await open(storeKit);

    const logs = await storeKit.logs();
    for (const customer of customers) {
      const h = horizons.get(customer);
      const after = await view(app, customer, h);
      assert.deepEqual(after, before.get(customer), `${customer}: identical at and after its horizon ${h} after compaction and a restart`);
      const oracle = replayUncompacted(logs.get(customer));
      try {
        assert.deepEqual(after, oracleView(oracle, h, after.ids), `${customer}: equal to the uncompacted replay`);
      } finally {
        oracle.dispose();
      }
      const doc = await get(app, customer, '/ledger');
      assert.ok(
        doc.consumptions.every((c) => c.timestamp >= h),
        'the ledger holds nothing before its horizon',
      );
      const { archived, logged, snapshots } = await storeKit.layout(customer);
      assert.ok(archived > 0 && snapshots === 1, `${customer}: rows archived (${archived}), one snapshot`);
      assert.equal(logged, 0, 'no log rows after the snapshot yet');
    }

    // Late events and retries, customer c-0.
    const customer = 'c-0';
    const h = horizons.get(customer);
    const docBefore = await get(app, customer, '/ledger');
    const late = await post(app, customer, 'consumptions', { eventId: 'late-1', amount: 1, timestamp: h - 1 });
    assert.equal(late.statusCode, 409);
    assert.equal(late.json().error.code, 'BEFORE_HORIZON');
    const lateGrant = await post(app, customer, 'grants', { grantId: 'late-g', amount: 5, startTime: h - 1, endTime: h + 10 });
    assert.equal(lateGrant.json().error.code, 'BEFORE_HORIZON');
    const old = sent.get(customer).consumptions.find((c) => c.timestamp < h);
    assert.ok(old, 'an accepted consumption before the horizon exists');
    const retried = await post(app, customer, 'consumptions', old);
    assert.equal(retried.statusCode, 200, JSON.stringify(retried.json()));
    assert.deepEqual(
      retried.json(),
      {
        eventId: old.eventId,
        accepted: true,
        queued: false,
        allocations: sent.get(customer).firstAllocations.get(old.eventId),
        reason: null,
        blockingEventId: null,
      },
      'a retry of an archived consumption repeats its first answer',
    );
    const dry = await post(app, customer, 'consumptions', { ...old, dryRun: true });
    assert.deepEqual([dry.statusCode, dry.json()], [200, retried.json()], 'its dry run answers as the real call');
    // Read, it is final: its draws are no longer itemised.
    assert.deepEqual(await get(app, customer, `/consumptions/${old.eventId}`), { ...old, allocations: [] });
    const changed = await post(app, customer, 'consumptions', { ...old, amount: old.amount + 1 });
    assert.equal(changed.statusCode, 409);
    assert.equal(changed.json().error.code, 'DUPLICATE_ID');
    const oldGrant = sent.get(customer).grants.find((g) => g.startTime < h);
    const regrant = await post(app, customer, 'grants', oldGrant);
    assert.equal(regrant.statusCode, 200, JSON.stringify(regrant.json()));
    // A grant carried across the horizon, added as the package shows it there (start at
    // the horizon, the credit left then): other parameters than its add, 409 as before the
    // cleanup, not an identical retry.
    const carried = (await get(app, customer, `/grants?at=${h}`)).grants.find((g) => g.startTime < h && g.remaining > 0);
    assert.ok(carried !== undefined, 'a grant was carried across the horizon with credit left');
    const asShown = { grantId: carried.grantId, amount: carried.remaining, startTime: h, endTime: carried.endTime };
    const shown = await post(app, customer, 'grants', asShown);
    assert.deepEqual([shown.statusCode, shown.json().error?.code], [409, 'DUPLICATE_ID'], JSON.stringify(asShown));
    const { remaining: _remaining, ...asAdded } = carried;
    assert.equal((await post(app, customer, 'grants', asAdded)).statusCode, 200, 'the grant as added (and read) is an identical retry');
    const batch = await post(app, customer, 'events', {
      events: [
        { type: 'consumption', ...old },
        { type: 'consumption', eventId: 'late-2', amount: 1, timestamp: h - 1 },
      ],
    });
    assert.deepEqual(
      batch.json().results.map((r) => [r.status, r.accepted ?? r.error?.code]),
      [
        [200, true],
        [409, 'BEFORE_HORIZON'],
      ],
    );
    // An archived id the ledger no longer holds stays taken at and after the horizon too.
    const reused = await post(app, customer, 'consumptions', { eventId: old.eventId, amount: 1, timestamp: h + 5 });
    assert.deepEqual(
      [reused.statusCode, reused.json().error?.code],
      [409, 'DUPLICATE_ID'],
      'an archived consumption id reused after the horizon',
    );
    const reusedDry = await post(app, customer, 'consumptions', { eventId: old.eventId, amount: 1, timestamp: h + 5, dryRun: true });
    assert.deepEqual([reusedDry.statusCode, reusedDry.json().error?.code], [409, 'DUPLICATE_ID'], 'the same as a dry run');
    const dropped = sent.get(customer).grants.find((g) => g.endTime < h);
    assert.ok(dropped, 'a grant that ended before the horizon exists (dropped by compact)');
    const regrantAfter = await post(app, customer, 'grants', { grantId: dropped.grantId, amount: 7, startTime: h + 1, endTime: h + 50 });
    assert.deepEqual(
      [regrantAfter.statusCode, regrantAfter.json().error?.code],
      [409, 'DUPLICATE_ID'],
      'a dropped grant id reused after the horizon',
    );
    const reusedBatch = await post(app, customer, 'events', {
      events: [
        { type: 'consumption', eventId: old.eventId, amount: 1, timestamp: h + 5 },
        { type: 'grant', grantId: dropped.grantId, amount: 7, startTime: h + 1, endTime: h + 50 },
      ],
    });
    assert.deepEqual(
      reusedBatch.json().results.map((r) => [r.status, r.error?.code]),
      [
        [409, 'DUPLICATE_ID'],
        [409, 'DUPLICATE_ID'],
      ],
    );
    // An end change or a void of the dropped grant: its window is before the horizon, which
    // is final (409 BEFORE_HORIZON, not 404); an id the store never saw is still 404.
    const grantUrl = `/v1/customers/${customer}/grants/${dropped.grantId}`;
    const endChange = await app.inject({ method: 'PATCH', url: grantUrl, headers: auth, payload: { endTime: h + 100 } });
    const voided = await app.inject({ method: 'POST', url: `${grantUrl}/void`, headers: auth });
    const unknown = await app.inject({
      method: 'PATCH',
      url: `/v1/customers/${customer}/grants/never-added`,
      headers: auth,
      payload: { endTime: h + 100 },
    });
    assert.deepEqual(
      [endChange, voided, unknown].map((r) => [r.statusCode, r.json().error?.code]),
      [
        [409, 'BEFORE_HORIZON'],
        [409, 'BEFORE_HORIZON'],
        [404, 'NOT_FOUND'],
      ],
      'a dropped grant changed or voided',
    );
    // A queued consumption before the horizon (let in, or still queued and dropped by the
    // compaction): its id stays taken for other parameters, before the horizon and after
    // it; the same parameters keep the ledger's refusal.
    const requeued = { eventId: 'queued-early', amount: 10 ** 12, timestamp: 0, queue: true };
    const same = await post(app, customer, 'consumptions', requeued);
    assert.deepEqual([same.statusCode, same.json().error?.code], [409, 'BEFORE_HORIZON'], 'a queued id retried as it was');
    for (const [what, body] of [
      ['after the horizon', { ...requeued, timestamp: h + 5 }],
      ['with another amount', { ...requeued, amount: requeued.amount + 1 }],
      ['after the horizon, as a dry run', { ...requeued, timestamp: h + 5, dryRun: true }],
      ['after the horizon, not queued', { eventId: requeued.eventId, amount: 1, timestamp: h + 5 }],
    ]) {
      const r = await post(app, customer, 'consumptions', body);
      assert.deepEqual([r.statusCode, r.json().error?.code], [409, 'DUPLICATE_ID'], `a queued id reused ${what}`);
    }
    assert.deepEqual(await get(app, customer, '/ledger'), docBefore, 'refusals and retries changed nothing');
    assert.deepEqual((await get(app, customer, '/pending')).pending.map((p) => p.eventId).includes(requeued.eventId), false);

    // New events after the horizon: the service answers as the uncompacted oracle does.
    const oracle = replayUncompacted((await storeKit.logs()).get(customer));
    try {
      for (let i = 0; i < 30; i++) {
        const event = { eventId: `new-${i}`, amount: rng.int(1, 30), timestamp: h + rng.int(0, 3 * GRACE) };
        const served = (await post(app, customer, 'consumptions', event)).json();
        const expected = oracle.tryConsume(event.eventId, event.amount, event.timestamp);
        assert.deepEqual([served.accepted, served.allocations], [expected.accepted, expected.allocations], `new-${i}`);
      }
      const latestView = await view(app, customer, h);
      assert.deepEqual(latestView, oracleView(oracle, h, latestView.ids));
    } finally {
      oracle.dispose();
    }
  } finally {
    await app.close();
  }
}

/** Memory: each customer streams `events` consumptions with a pass every `every`: bounded ledgers. */
export async function runMemoryScenario(storeKit, { customers = 4, events = 6000, every = 500 } = {}) {
  const app = await open(storeKit);
  try {
    const counts = [];
    const heap = [];
    const baseline = GPULedger.wasmHeapBytes();
    for (let c = 0; c < customers; c++) {
      const customer = `stream-${c}`;
      await post(app, customer, 'grants', { grantId: 'g', amount: 1e12, startTime: 0, endTime: 1e12 });
    }
    for (let done = 0; done < events; done += every) {
      for (let c = 0; c < customers; c++) {
        const list = [];
        for (let i = done; i < done + every; i++)
          list.push({ type: 'consumption', eventId: `e${i}`, amount: 1, timestamp: Math.max(0, i - (i % 7 === 0 ? 3 : 0)) });
        const r = await post(app, `stream-${c}`, 'events', { events: list });
        assert.equal(r.statusCode, 200, r.body);
        assert.ok(
          r.json().results.every((x) => x.accepted),
          'every streamed consumption is accepted',
        );
      }
      await app.cleanup.runOnce();
      const doc = await get(app, 'stream-0', '/ledger');
      counts.push(doc.consumptions.length);
      heap.push(GPULedger.wasmHeapBytes());
    }
    // Held: about GRACE time units (one consumption per unit) plus one interval's events.
    const maxHeld = Math.max(...counts);
    assert.ok(maxHeld <= GRACE + 10, `after a pass a ledger holds ${maxHeld} consumptions, those of the last ${GRACE} time units`);
    const layout = await storeKit.layout('stream-0');
    assert.equal(layout.snapshots, 1, 'only the latest snapshot is kept');
    assert.equal(
      layout.archived + layout.logged,
      events + 1 + events / every,
      'every entry kept: the grant, the consumptions, one compact entry per pass',
    );
    // The heap after the first pass is what a bounded ledger costs; later passes must not grow it much.
    const heapMax = Math.max(...heap);
    assert.ok(heapMax - baseline <= 2 * (heap[0] - baseline) + 65536, `heap ${baseline} → ${heap.join(', ')}: bounded`);
    return {
      maxHeld,
      baseline,
      heapFirst: heap[0],
      heapLast: heap[heap.length - 1],
      heapMax,
      perCustomer: Math.round((heapMax - baseline) / customers),
      customers,
      events,
    };
  } finally {
    await app.close();
  }
}

async function open(storeKit) {
  const store = storeKit.make();
  await store.open();
  return buildApp({ store, keys: KEYS, limits: { maxEventLoopDelay: 0 }, cleanup: { grace: GRACE, intervalMs: 3_600_000 } });
}

async function post(app, customer, route, body) {
  return app.inject({ method: 'POST', url: `/v1/customers/${customer}/${route}`, headers: auth, payload: body });
}

async function get(app, customer, path) {
  const r = await app.inject({ method: 'GET', url: `/v1/customers/${customer}${path}`, headers: auth });
  assert.equal(r.statusCode, 200, `${path}: ${r.body}`);
  return r.json();
}

async function workload(app, customer, rng) {
  const accepted = { grants: [], consumptions: [], firstAllocations: new Map() };
  let now = 0;
  for (let i = 0; i < 120; i++) {
    now += rng.int(0, 6);
    if (rng.chance(0.2)) {
      const startTime = Math.max(0, now - rng.int(0, 50));
      const g = { grantId: `g${i}`, amount: rng.int(20, 120), startTime, endTime: startTime + rng.int(20, 300) };
      const r = await post(app, customer, 'grants', g);
      assert.equal(r.statusCode, 201);
      accepted.grants.push(g);
    } else {
      const e = { eventId: `e${i}`, amount: rng.int(1, 25), timestamp: Math.max(0, now - (rng.chance(0.15) ? rng.int(1, 40) : 0)) };
      if (rng.chance(0.1)) e.queue = true;
      const r = (await post(app, customer, 'consumptions', e)).json();
      if (r.accepted) {
        accepted.consumptions.push({ eventId: e.eventId, amount: e.amount, timestamp: e.timestamp });
        accepted.firstAllocations.set(e.eventId, r.allocations);
      }
    }
  }
  return accepted;
}

/**
 * What a customer answers at and after `h`: balances, headroom, the grants valid at each
 * time (as added: a grant carried across the horizon keeps its amount and start), each
 * such grant's burn-down from the horizon on, the curve, allocations of its consumptions.
 */
async function view(app, customer, h) {
  const doc = await get(app, customer, '/ledger');
  const ids = doc.consumptions
    .filter((c) => c.timestamp >= h)
    .map((c) => c.eventId)
    .sort();
  const times = [h, h + 1, h + 7, h + 50, h + 100, h + 400, h + 2000];
  const out = { ids, balances: [], headroom: [], remaining: [], allocations: [] };
  for (const t of times) {
    out.balances.push((await get(app, customer, `/balance?at=${t}`)).balance);
    out.headroom.push((await get(app, customer, `/headroom?at=${t}`)).headroom);
    out.remaining.push((await get(app, customer, `/grants?at=${t}`)).grants);
  }
  out.burnDowns = [];
  for (const { grantId } of out.remaining[0]) out.burnDowns.push(fromHorizon(await get(app, customer, `/grants/${grantId}`), h));
  out.curve = (await get(app, customer, `/balance-curve?from=${h}&to=${h + 3000}`)).points;
  for (const id of ids) out.allocations.push((await get(app, customer, `/consumptions/${id}`)).allocations);
  return out;
}

function oracleView(ledger, h, ids) {
  const times = [h, h + 1, h + 7, h + 50, h + 100, h + 400, h + 2000];
  return {
    ids,
    balances: times.map((t) => ledger.getBalance(t)),
    headroom: times.map((t) => ledger.headroom(t)),
    remaining: times.map((t) => ledger.grantsAt(t)),
    allocations: ids.map((id) => ledger.allocations(id)),
    burnDowns: ledger.grantsAt(h).map(({ grantId }) => fromHorizon(ledger.burnDown(grantId), h)),
    curve: ledger.balanceCurve(h, h + 3000),
  };
}

// A burn-down from the horizon on: the grant as added, its draws at or after `h`, and what
// remained at each of its breakpoints from `h` on (the history before it is final).
function fromHorizon({ grantId, amount, startTime, endTime, draws, remaining }, h) {
  const later = remaining.filter(([t]) => t > h);
  const at = remaining.findLast(([t]) => t <= h);
  return { grantId, amount, startTime, endTime, draws: draws.filter((d) => d.timestamp >= h), remaining: [[h, at[1]], ...later] };
}

/** The whole history (archive + log) through a fresh GPULedger, skipping compaction: the oracle. */
export function replayUncompacted(entries) {
  const ledger = new GPULedger();
  for (const e of entries) {
    switch (e.kind) {
      case 'grant':
        ledger.addGrant(e.id, e.amount, e.t1, e.t2);
        break;
      case 'consume':
        assert.equal(ledger.consume(e.id, e.amount, e.t1), true);
        break;
      case 'submit':
        ledger.submit(e.id, e.amount, e.t1);
        break;
      case 'void':
        assert.equal(ledger.voidGrant(e.id).applied, true);
        break;
      case 'end':
        assert.equal(ledger.setGrantEnd(e.id, e.t2).applied, true);
        break;
      case 'cancel':
        ledger.cancelPending(e.id);
        break;
      case 'compact':
        break;
      default:
        throw new Error(`unknown kind ${e.kind}`);
    }
  }
  return ledger;
}
