// Packs (server/store/packs.js) against the rows they are derived from, for either store:
// logs with every entry kind, unicode ids and null values, committed in groups of varying
// sizes so that pack ranges end inside groups; a rebuild through load (packs) must equal
// a rebuild from the rows (readAfter), around the range boundaries, after a compaction
// inside a pack, and a rejected commit must leave no pack.
import assert from 'node:assert/strict';
import { GPULedger } from 'gpu-credit-ledger';
import { snapshotDocument } from '../../cleanup/job.js';
import { CustomerLedger } from '../../ledger/customer-ledger.js';
import { StoreConflictError } from '../../store/interface.js';
import { PACK_ROWS, packEntries } from '../../store/packs.js';
import { random } from '../helpers.js';

// Ids in 1-, 2-, 3- and 4-byte UTF-8 (é, 日本, 😀 and 𝄞 outside the BMP), and a backslash.
const ID_STYLES = [(i) => `g${i}`, (i) => `é-${i}`, (i) => `日本-${i}`, (i) => `😀${i}𝄞`, (i) => `a\\b-${i}`];
// Every third id starts with U+FEFF, which a default UTF-8 decoder drops as a byte-order
// mark (at the start of an id, or of a pack's ids).
const named = (prefix, style, i) => (i % 3 === 0 ? `\uFEFF${prefix}${i}` : `${prefix}-${style(i)}`);

/**
 * A valid log of `length` entries `[kind, id, amount, t1, t2]`: each change is tried on a
 * GPULedger first and logged only as the service would log it (an accepted consumption,
 * an applied void or end change), so that the log replays without divergence. With
 * `compactAt`, the ledger is compacted to `horizon` once the log holds that many entries
 * (where the test has the store compact; the store appends the `compact` entry itself).
 */
export function makeLog(length, seed = 1, { compactAt = -1, horizon = 0 } = {}) {
  const rand = random(seed);
  // Few end changes and voids: each costs the package far more than an add (moves draws).
  const ledger = new GPULedger();
  const log = [];
  const grants = new Map(); // grantId → [amount, startTime, endTime], not voided
  const queued = [];
  let earliest = 0;
  try {
    for (let i = 0; log.length < length; i++) {
      if (log.length === compactAt && compactAt >= 0) {
        ledger.compact(horizon);
        earliest = horizon; // history before the horizon is final
        compactAt = -1;
      }
      const style = ID_STYLES[i % ID_STYLES.length];
      const r = rand();
      const t = earliest + i + rand.int(0, 50); // time mostly moves forward, as in service
      if (r < 0.12 || grants.size === 0) {
        const id = named('g', style, i);
        const amount = rand.int(50, 5_000);
        const end = t + rand.int(0, 5_000);
        ledger.addGrant(id, amount, t, end);
        grants.set(id, [amount, t, end]);
        log.push(['grant', id, amount, t, end]);
      } else if (r < 0.75) {
        const id = named('e', style, i);
        const amount = rand.int(1, 30);
        if (ledger.consume(id, amount, t)) log.push(['consume', id, amount, t, null]);
      } else if (r < 0.9) {
        const id = named('s', style, i);
        const amount = rand() < 0.2 ? rand.int(100_000, 200_000) : rand.int(1, 40); // some stay queued
        if (ledger.submit(id, amount, t) === 'queued') queued.push(id);
        log.push(['submit', id, amount, t, null]);
      } else if (r < 0.96) {
        if (queued.length === 0) continue;
        const id = queued.splice(rand.int(0, queued.length - 1), 1)[0];
        ledger.cancelPending(id);
        log.push(['cancel', id, null, null, null]);
      } else if (r < 0.98) {
        const id = [...grants.keys()][rand.int(0, grants.size - 1)];
        if (!tryChange(() => ledger.voidGrant(id))) continue;
        const [amount, start, end] = grants.get(id);
        grants.delete(id);
        log.push(['void', id, amount, start, end]);
      } else {
        const id = [...grants.keys()][rand.int(0, grants.size - 1)];
        const [amount, start, end] = grants.get(id);
        const newEnd = start + rand.int(0, end - start + 2_000);
        if (!tryChange(() => ledger.setGrantEnd(id, newEnd))) continue;
        grants.set(id, [amount, start, newEnd]);
        log.push(['end', id, null, null, newEnd]);
      }
    }
  } finally {
    ledger.dispose();
  }
  return log;
}

// A void or end change the ledger applied (one it refuses or throws on, e.g. a grant
// the compaction dropped, is not logged).
function tryChange(change) {
  try {
    return change().applied;
  } catch {
    return false;
  }
}

/** Commits `log` after seq `baseSeq` in groups of 1 … maxGroup entries; resolves to the new last seq. */
export async function commitLog(store, customer, log, { baseSeq = 0, maxGroup = 900, seed = 2 } = {}) {
  const rand = random(seed);
  let seq = baseSeq;
  for (let at = 0; at < log.length;) {
    const n = Math.min(log.length - at, rand.int(1, maxGroup));
    await store.commit([{ customer, baseSeq: seq, entries: log.slice(at, at + n) }]);
    seq += n;
    at += n;
  }
  return seq;
}

/** What a rebuild serves and remembers, for comparison. */
export function rebuiltState(state) {
  return { ledger: state.ledger.toJSON(), seq: state.seq, queued: [...state.queued], voided: [...state.voided] };
}

/** load's items split: the packs it returned and every entry as a tuple, in order. */
export function splitLoaded(entries) {
  const packs = [];
  const tuples = [];
  for (const item of entries) {
    if (Array.isArray(item)) {
      tuples.push(item);
    } else {
      packs.push(item);
      tuples.push(...packEntries(item));
    }
  }
  return { packs, tuples };
}

/** Rebuilds `customer` through load (packs) and from its rows, and compares; returns the packs load used. */
export async function assertPacksRebuildLikeRows(store, customer) {
  const loaded = await store.load(customer);
  const viaLoad = CustomerLedger.rebuild(customer, loaded);
  const again = await store.load(customer);
  const { packs, tuples } = splitLoaded(again.entries);
  const rows = await store.readAfter(customer, again.snapshot?.seq ?? 0);
  const viaRows = CustomerLedger.rebuild(customer, { snapshot: again.snapshot, entries: rows });
  try {
    assert.deepEqual(tuples, rows, 'load returns the rows, in packs or not');
    assert.deepEqual(rebuiltState(viaLoad), rebuiltState(viaRows));
    assert.equal(viaLoad.seq, again.lastSeq);
  } finally {
    viaLoad.dispose();
    viaRows.dispose();
  }
  for (let k = 1; k < packs.length; k++) assert.equal(packs[k].firstSeq, packs[k - 1].lastSeq + 1);
  for (const pack of packs) {
    assert.equal((pack.firstSeq - 1) % PACK_ROWS, 0, 'packs are aligned');
    assert.equal(pack.lastSeq - pack.firstSeq + 1, PACK_ROWS);
  }
  return packs;
}

/**
 * The scenarios, for a store from `open()` and `packRanges(customer)`, which reads the
 * store's packs table directly: [[first_seq, last_seq], …] in order.
 */
export function packScenarios({ test, open, packRanges }) {
  test('a rebuild from packs equals a rebuild from rows, around the range boundaries', async () => {
    const store = await open();
    try {
      const kindsInPacks = new Set();
      for (const length of [PACK_ROWS - 1, PACK_ROWS, PACK_ROWS + 1, 2 * PACK_ROWS + 1]) {
        const customer = `c-${length}`;
        const log = makeLog(length, length);
        assert.equal(await commitLog(store, customer, log, { seed: length }), length);
        const packs = await assertPacksRebuildLikeRows(store, customer);
        assert.equal(packs.length, Math.floor(length / PACK_ROWS), `packs of a ${length}-entry log`);
        assert.deepEqual(
          await packRanges(customer),
          packs.map((p) => [p.firstSeq, p.lastSeq]),
        );
        for (const pack of packs) for (const [, kind] of packEntries(pack)) kindsInPacks.add(kind);
      }
      assert.deepEqual([...kindsInPacks].sort(), ['cancel', 'consume', 'end', 'grant', 'submit', 'void']);
      // One group that completes two ranges at once (a large batch).
      const log = makeLog(3 * PACK_ROWS + 7, 9);
      await store.commit([{ customer: 'one-group', baseSeq: 0, entries: log.slice(0, 100) }]);
      await store.commit([{ customer: 'one-group', baseSeq: 100, entries: log.slice(100) }]);
      assert.equal((await assertPacksRebuildLikeRows(store, 'one-group')).length, 3);
    } finally {
      await store.close();
    }
  });

  test('after a compaction inside a pack, load is still right and the packs up to it are gone', async () => {
    const store = await open();
    try {
      const customer = 'compacted';
      const at = PACK_ROWS + 500; // the compaction's seq is at + 1: inside the second range
      const horizon = 1_000;
      const log = makeLog(at + 2 * PACK_ROWS + 10, 5, { compactAt: at, horizon });
      await commitLog(store, customer, log.slice(0, at));
      assert.deepEqual(await packRanges(customer), [[1, PACK_ROWS]]);
      // Compact as the cleanup job does (cleanup/job.js).
      const compact = async (baseSeq, to) => {
        const state = CustomerLedger.rebuild(customer, await store.load(customer));
        try {
          state.compactTo(to);
          return await store.compact(customer, baseSeq, [['compact', '', null, to, null]], to, snapshotDocument(state));
        } finally {
          state.dispose();
        }
      };
      // Computed on a seq the head has moved past: refused, the packs stay.
      await assert.rejects(compact(at - 1, horizon), StoreConflictError);
      assert.deepEqual(await packRanges(customer), [[1, PACK_ROWS]]);
      const compactedAt = await compact(at, horizon);
      assert.equal(compactedAt, at + 1);
      assert.deepEqual(await packRanges(customer), [], 'the packs starting at or before the compaction are gone');
      assert.equal((await assertPacksRebuildLikeRows(store, customer)).length, 0);
      // The log goes on past the next ranges: packs after the snapshot, none straddling it.
      const seq = await commitLog(store, customer, log.slice(at), { baseSeq: compactedAt });
      assert.equal(seq, log.length + 1);
      // The range of the compaction's seq lost its first rows to the archive: no pack.
      const expected = [[2 * PACK_ROWS + 1, 3 * PACK_ROWS]];
      assert.deepEqual(await packRanges(customer), expected);
      const packs = await assertPacksRebuildLikeRows(store, customer);
      assert.deepEqual(
        packs.map((p) => [p.firstSeq, p.lastSeq]),
        expected,
      );
      // A pack-sized log read through load: the rows before the first pack, the pack, the rows after.
      const loaded = splitLoaded((await store.load(customer)).entries);
      assert.equal(loaded.tuples[0][0], compactedAt + 1);
      assert.equal(loaded.tuples.at(-1)[0], seq);
      // Compacting again, after that pack, drops it too.
      const again = await compact(seq, horizon + 1);
      assert.equal(again, seq + 1);
      assert.deepEqual(await packRanges(customer), []);
      await assertPacksRebuildLikeRows(store, customer);
    } finally {
      await store.close();
    }
  });

  test('a rejected commit leaves no pack', async () => {
    const store = await open();
    try {
      const log = makeLog(PACK_ROWS + 20, 11);
      const customer = 'rejected';
      await commitLog(store, customer, log.slice(0, PACK_ROWS - 10));
      const base = PACK_ROWS - 10;
      const completing = log.slice(base, PACK_ROWS + 20);
      // A conflict on another customer of the same group commit rolls back everything.
      await store.commit([{ customer: 'rejected-other', baseSeq: 0, entries: [['grant', 'x', 1, 0, 1]] }]);
      await assert.rejects(
        store.commit([
          { customer, baseSeq: base, entries: completing },
          { customer: 'rejected-other', baseSeq: 0, entries: [['grant', 'y', 1, 0, 1]] },
        ]),
        StoreConflictError,
      );
      assert.deepEqual(await packRanges(customer), []);
      // A conflict on the customer itself.
      await assert.rejects(store.commit([{ customer, baseSeq: base - 1, entries: completing }]), StoreConflictError);
      assert.deepEqual(await packRanges(customer), []);
      // A failure: a grant id the log already holds (the unique key) inside the completing group.
      const grantId = log.find(([kind]) => kind === 'grant')[1];
      const failing = [...completing.slice(0, 15), ['grant', grantId, 1, 0, 1]];
      await assert.rejects(store.commit([{ customer, baseSeq: base, entries: failing }]));
      assert.deepEqual(await packRanges(customer), []);
      assert.equal((await store.load(customer)).lastSeq, base);
      // The same entries, committed: the pack appears with them.
      await store.commit([{ customer, baseSeq: base, entries: completing }]);
      assert.deepEqual(await packRanges(customer), [[1, PACK_ROWS]]);
      assert.equal((await assertPacksRebuildLikeRows(store, customer)).length, 1);
    } finally {
      await store.close();
    }
  });
}
