// applyBatch and the batch-loaded fromJSON against the single calls: on random sequences
// with bad inputs, repeated ids (identical retries and conflicts), rejections, non-ASCII
// ids and queued consumptions, the batch must give the same result or the same error per
// event, and leave the same ledger. Failures print the seed.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { mulberry32, thrown } from './helpers.js';
import { OracleLedger } from './oracle.js';

const BASE_SEED = Number(process.env.GCL_DIFF_SEED ?? 20261130);

// Draws one event, valid or not, from a small space so that ids repeat.
function randomEvent(random, i) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const roll = random();
  const id = (prefix) => pick([`${prefix}${Math.floor(random() * 40)}`, `${prefix}é${Math.floor(random() * 5)}`, `${prefix}😀`]);
  const time = () => Math.floor(random() * 60);
  if (roll < 0.04) return pick([null, 7, 'grant', [], { kind: 'void', grantId: 'g1' }, {}]);
  if (roll < 0.3) {
    const startTime = time();
    const grant = {
      kind: 'grant',
      grantId: id('g'),
      amount: 1 + Math.floor(random() * 12),
      startTime,
      endTime: startTime + Math.floor(random() * 30),
    };
    if (roll < 0.06) {
      grant[pick(['grantId', 'amount', 'startTime', 'endTime'])] = pick(['', -1, 1.5, '3', null, 2 ** 53, 2 ** 53 - 1, 0, Number.NaN]);
    }
    // Ids around the byte limit (1,024): over a third of it in units, at and over it in bytes, a lone surrogate.
    if (roll > 0.26) grant.grantId = pick(['x'.repeat(400), 'é'.repeat(512), 'é'.repeat(513), 'g\uD800', '😀'.repeat(256)]);
    if (roll < 0.08) grant.endTime = startTime - 1;
    return grant;
  }
  const consumption = { kind: 'consume', eventId: id('c'), amount: 1 + Math.floor(random() * 6), timestamp: time() };
  if (roll < 0.34)
    consumption[pick(['eventId', 'amount', 'timestamp'])] = pick(['', 0, -2, 0.5, undefined, 'x'.repeat(300), 2 ** 53, Number.NaN]);
  if (roll > 0.97) consumption.eventId = pick(['x'.repeat(400), 'é'.repeat(512), 'é'.repeat(513), 'c\uDC00', '😀'.repeat(257)]);
  if (i % 50 === 49) consumption.amount = 2 ** 53 - 1; // never fundable
  return consumption;
}

// What the single calls do with the same events, each caught.
function applySingly(ledger, events) {
  return events.map((event) => {
    try {
      if (typeof event !== 'object' || event === null || Array.isArray(event) || (event.kind !== 'grant' && event.kind !== 'consume')) {
        return 'not an event';
      }
      if (event.kind === 'grant') {
        ledger.addGrant(event.grantId, event.amount, event.startTime, event.endTime);
        return true;
      }
      return ledger.consume(event.eventId, event.amount, event.timestamp);
    } catch (error) {
      return error;
    }
  });
}

const describeResult = (result) =>
  result instanceof Error ? { error: result.constructor.name, code: result.code, message: result.message } : result;

// Everything observable about a ledger after loading.
function observe(ledger) {
  const doc = ledger.toJSON();
  const times = Array.from({ length: 95 }, (_, t) => t);
  return {
    doc,
    balances: times.map((t) => ledger.getBalance(t)),
    headroom: times.filter((t) => t % 7 === 0).map((t) => ledger.headroom(t)),
    allocations: doc.consumptions.map((c) => ledger.allocations(c.eventId)),
    pending: ledger.pending(),
    reallocated: ledger.reallocated(),
  };
}

describe('applyBatch', () => {
  for (let round = 0; round < 60; round++) {
    const seed = BASE_SEED + round;
    it(`gives each event its single call's result (seed ${seed})`, () => {
      const random = mulberry32(seed);
      const events = Array.from({ length: 20 + Math.floor(random() * 150) }, (_, i) => randomEvent(random, i));
      const batch = new GPULedger();
      const single = new GPULedger();
      // Queued consumptions that grants in the batch may let in.
      const letIn = { batch: [], single: [] };
      for (const [name, ledger] of [
        ['batch', batch],
        ['single', single],
      ]) {
        ledger.submit('q1', 4, 10);
        ledger.submit('q2', 30, 20);
        ledger.onPendingAccepted((accepted) => letIn[name].push(...accepted));
      }
      const results = batch.applyBatch(events);
      const expected = applySingly(single, events);
      expect(results).toHaveLength(events.length);
      results.forEach((result, i) => {
        if (expected[i] === 'not an event') {
          expect(result, `seed ${seed}, events[${i}]`).toBeInstanceOf(TypeError);
          expect(result.message).toMatch(new RegExp(`^applyBatch: events\\[${i}\\]`));
        } else {
          expect(describeResult(result), `seed ${seed}, events[${i}] ${JSON.stringify(events[i])}`).toEqual(describeResult(expected[i]));
        }
      });
      expect(observe(batch), `seed ${seed}`).toEqual(observe(single));
      // One notification after the batch instead of one per grant: the same consumptions,
      // with their allocations as they stand after the batch.
      const strip = ({ eventId, amount, timestamp }) => ({ eventId, amount, timestamp });
      expect(letIn.batch.map(strip)).toEqual(letIn.single.map(strip));
      for (const accepted of letIn.batch) expect(accepted.allocations).toEqual(batch.allocations(accepted.eventId));
      batch.dispose();
      single.dispose();
    });
  }

  it('reads an event once, before its chunk crosses: a getter that loads other ledgers (growing the memory) changes nothing', () => {
    const others = [];
    let reads = 0;
    const events = [];
    for (let i = 0; i < 6000; i++) {
      if (i % 10 === 0) events.push({ kind: 'grant', grantId: `g${i}`, amount: 30, startTime: i, endTime: i + 50 });
      else events.push({ kind: 'consume', eventId: `c${i}`, amount: 1 + (i % 4), timestamp: i });
    }
    // Event 4,201's id is read through a getter that loads another ledger of 150,000 events
    // at every read, each kept: the WebAssembly memory grows, which replaces its views, at
    // whichever read the batch makes last.
    const loaded = Array.from({ length: 150000 }, (_, k) =>
      k % 10 === 0
        ? { kind: 'grant', grantId: `o${k}`, amount: 100, startTime: k, endTime: k + 99 }
        : { kind: 'consume', eventId: `p${k}`, amount: 1, timestamp: k },
    );
    const plain = { ...events[4201] };
    events[4201] = {
      kind: 'consume',
      amount: plain.amount,
      timestamp: plain.timestamp,
      get eventId() {
        reads++;
        const other = new GPULedger();
        others.push(other);
        expect(other.applyBatch(loaded).every((r) => r === true)).toBe(true);
        return plain.eventId;
      },
    };
    const batch = new GPULedger();
    const results = batch.applyBatch(events).map(describeResult);
    events[4201] = plain;
    const single = new GPULedger();
    expect(results).toEqual(applySingly(single, events).map(describeResult));
    expect(observe(batch)).toEqual(observe(single));
    expect(reads).toBe(1); // read once, for the checks and the load
    for (const ledger of [batch, single, ...others]) ledger.dispose();
  });

  it('checks the values it loads: fields whose getters answer differently at each read are read once', () => {
    // Each field answers a valid value at its first read and an invalid one after, so a
    // second read would load what was never checked; the duplicate's error names its id as read.
    const once = (first, later) => {
      let read = false;
      return () => {
        const value = read ? later : first;
        read = true;
        return value;
      };
    };
    const shifting = (fields) => {
      const event = {};
      for (const [name, [first, later]] of Object.entries(fields)) {
        Object.defineProperty(event, name, { get: once(first, later), enumerable: true });
      }
      return event;
    };
    const events = () => [
      shifting({ kind: ['grant', 'consume'], grantId: ['g', ''], amount: [10, -1], startTime: [0, 5], endTime: [9, 1] }),
      shifting({ kind: ['consume', 'grant'], eventId: ['c', 'c\uD800'], amount: [4, 1e300], timestamp: [3, NaN] }),
      shifting({ kind: ['grant', 'x'], grantId: ['g', 'h'], amount: [7, 10], startTime: [0, 0], endTime: [9, 9] }),
    ];
    const batch = new GPULedger();
    const results = batch.applyBatch(events()).map(describeResult);
    const single = new GPULedger();
    expect(results).toEqual(
      applySingly(single, [
        { kind: 'grant', grantId: 'g', amount: 10, startTime: 0, endTime: 9 },
        { kind: 'consume', eventId: 'c', amount: 4, timestamp: 3 },
        { kind: 'grant', grantId: 'g', amount: 7, startTime: 0, endTime: 9 },
      ]).map(describeResult),
    );
    expect(results[0]).toBe(true);
    expect(results[1]).toBe(true);
    expect(results[2]).toMatchObject({ code: 'DUPLICATE_ID', message: expect.stringContaining('"g"') });
    expect(observe(batch)).toEqual(observe(single));
    batch.dispose();
    single.dispose();
  });

  it('credits the queued consumptions its events let in to the batch, not to a call an event getter makes', () => {
    // p1 and p2 wait; the batch's first event lets p1 in; the second event's getter extends
    // a grant, which lets p2 in and nothing else, then makes a refused change; the third event
    // lets p3 in. A call made one by one reports only what it let in itself, and the batch's
    // listeners hear, after the batch, of what its own events let in.
    const build = (heard) => {
      const ledger = new GPULedger();
      ledger.addGrant('X', 1, 0, 1);
      ledger.addGrant('K', 1, 0, 40);
      ledger.consume('k', 1, 35); // K's only unit: ending K at 0 is refused
      ledger.submit('p1', 3, 5);
      ledger.submit('p2', 1, 2);
      ledger.submit('p3', 3, 20);
      ledger.onPendingAccepted((accepted) => heard.push(accepted.map((consumption) => consumption.eventId)));
      return ledger;
    };
    const nested = (ledger, calls) => {
      calls.push(ledger.setGrantEnd('X', 2));
      calls.push(ledger.setGrantEnd('K', 0));
    };
    const singleHeard = [];
    const singleCalls = [];
    const single = build(singleHeard);
    single.addGrant('A', 3, 4, 10);
    nested(single, singleCalls);
    single.addGrant('C', 3, 20, 30);
    const batchHeard = [];
    const batchCalls = [];
    const batch = build(batchHeard);
    const results = batch.applyBatch([
      { kind: 'grant', grantId: 'A', amount: 3, startTime: 4, endTime: 10 },
      {
        kind: 'grant',
        grantId: 'C',
        get amount() {
          nested(batch, batchCalls);
          return 3;
        },
        startTime: 20,
        endTime: 30,
      },
    ]);
    expect(results).toEqual([true, true]);
    expect(singleCalls.map((result) => result.acceptedPending)).toEqual([['p2'], []]);
    expect(singleCalls[1]).toMatchObject({ applied: false, blockingEventId: 'k' });
    expect(batchCalls).toEqual(singleCalls);
    expect(singleHeard).toEqual([['p1'], ['p2'], ['p3']]);
    expect(batchHeard).toEqual([['p2'], ['p1', 'p3']]);
    expect(observe(batch)).toEqual(observe(single));
    batch.dispose();
    single.dispose();
  });

  it('loads across chunk boundaries (40,000 events, non-ASCII ids) as the single calls do', () => {
    const events = [];
    for (let i = 0; i < 40000; i++) {
      if (i % 8 === 0) events.push({ kind: 'grant', grantId: `grant-é-${i}`, amount: 40, startTime: i, endTime: i + 90 });
      else
        events.push({
          kind: 'consume',
          eventId: i % 3 ? `c${i}` : `ç😀${i}`,
          amount: i % 101 === 0 ? 1000 : 1 + (i % 9),
          timestamp: i % 5 === 0 ? Math.max(0, i - 40) : i,
        });
    }
    events[30000] = { kind: 'consume', eventId: 'c29999', amount: 1, timestamp: 5 }; // conflicts with an earlier one
    const batch = new GPULedger();
    const single = new GPULedger();
    const results = batch.applyBatch(events).map(describeResult);
    expect(results).toEqual(applySingly(single, events).map(describeResult));
    expect(results.filter((r) => r === false).length).toBeGreaterThan(0);
    expect(batch.toJSON()).toEqual(single.toJSON());
    expect(batch.balanceCurve(0, 40100)).toEqual(single.balanceCurve(0, 40100));
    batch.dispose();
    single.dispose();
  });

  // Bulk-load shapes: in-order runs (the core reserves room for the whole batch and looks
  // ids up a run ahead), a backdated consumption in the middle of a run, grants arriving
  // after consumptions in their window, repeated ids and bad values; a second batch onto
  // the loaded ledger. Checked against the single calls and the brute-force oracle.
  for (let round = 0; round < 6; round++) {
    const seed = BASE_SEED + 1000 + round;
    it(`loads in-order runs with backdated events and late grants as the single calls and the oracle (seed ${seed})`, () => {
      const random = mulberry32(seed);
      const oracle = new OracleLedger();
      const batches = [[], []];
      let head = 0;
      for (let i = 0; i < 1600; i++) {
        const events = batches[i < 1000 ? 0 : 1];
        const roll = random();
        head += Math.floor(random() * 3);
        if (roll < 0.1) {
          // Some grants start well before the head: consumptions in their window already exist.
          const startTime = Math.max(0, head - (roll < 0.03 ? Math.floor(random() * 300) : 0));
          events.push({
            kind: 'grant',
            grantId: `g${i}`,
            amount: 5 + Math.floor(random() * 80),
            startTime,
            endTime: startTime + 20 + Math.floor(random() * 400),
          });
        } else if (roll < 0.8) {
          events.push({ kind: 'consume', eventId: `c${i}`, amount: 1 + Math.floor(random() * 4), timestamp: head });
        } else if (roll < 0.9) {
          events.push({
            kind: 'consume',
            eventId: `b${i}`,
            amount: 1 + Math.floor(random() * 4),
            timestamp: Math.max(0, head - Math.floor(random() * 200)),
          });
        } else if (roll < 0.95 && i > 0) {
          const earlier = (batches[0].length > 0 && random() < 0.5 ? batches[0] : events).at(-1) ?? {
            kind: 'consume',
            eventId: 'x',
            amount: 1,
            timestamp: 0,
          };
          events.push(random() < 0.5 ? earlier : { ...earlier, amount: (earlier.amount ?? 1) + 1 });
        } else {
          events.push({ kind: 'consume', eventId: `v${i}`, amount: random() < 0.5 ? 0 : 1.5, timestamp: head });
        }
      }
      const batch = new GPULedger();
      const single = new GPULedger();
      for (const events of batches) {
        const results = batch.applyBatch(events).map(describeResult);
        expect(results, `seed ${seed}`).toEqual(applySingly(single, events).map(describeResult));
        // The oracle takes valid values only (the bad ones here are amounts); its decisions,
        // identical retries and DUPLICATE_ID included, must match.
        results.forEach((result, i) => {
          const event = events[i];
          const where = `seed ${seed}, ${JSON.stringify(event)}`;
          if (!Number.isSafeInteger(event.amount) || event.amount < 1) {
            expect(result.error, where).toBe('RangeError');
            return;
          }
          let expected;
          try {
            expected =
              event.kind === 'grant'
                ? (oracle.addGrant(event.grantId, event.amount, event.startTime, event.endTime), true)
                : oracle.consume(event.eventId, event.amount, event.timestamp);
          } catch (error) {
            expected = { code: error.code };
          }
          if (typeof expected === 'boolean') expect(result, where).toBe(expected);
          else expect(result.code, where).toBe(expected.code);
        });
      }
      expect(observe(batch), `seed ${seed}`).toEqual(observe(single));
      const last = head + 500;
      for (let t = 0; t <= last; t += 13) expect(batch.getBalance(t), `seed ${seed}, t ${t}`).toBe(oracle.getBalance(t));
      for (const { eventId } of batch.toJSON().consumptions) {
        expect(batch.allocations(eventId), `seed ${seed}, ${eventId}`).toEqual(oracle.allocations(eventId));
      }
      batch.dispose();
      single.dispose();
    });
  }

  it('refuses a non-array with a TypeError and changes nothing', () => {
    const ledger = new GPULedger();
    ledger.addGrant('g', 5, 0, 10);
    const before = ledger.toJSON();
    for (const bad of [undefined, null, 'events', { length: 1, 0: { kind: 'grant' } }]) {
      const error = thrown(() => ledger.applyBatch(bad));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toMatch(/^applyBatch: events must be an array/);
    }
    expect(ledger.toJSON()).toEqual(before);
    expect(ledger.applyBatch([])).toEqual([]);
    ledger.dispose();
    expect(thrown(() => ledger.applyBatch([])).code).toBe('DISPOSED');
  });
});

describe('reserveEvents', () => {
  it('changes no answer: events loaded in parts after reserveEvents() are the single calls, results and ledger', () => {
    for (let seed = BASE_SEED; seed < BASE_SEED + 4; seed++) {
      const random = mulberry32(seed);
      const events = Array.from({ length: 1200 }, (_, i) => randomEvent(random, i));
      const single = new GPULedger();
      const expected = applySingly(single, events).map(describeResult);
      const parted = new GPULedger();
      parted.reserveEvents(events.length);
      const results = [];
      for (let i = 0; i < events.length; i += 100) {
        if (i === 600) parted.reserveEvents(10 ** 6); // a second, larger hint between parts
        results.push(...parted.applyBatch(events.slice(i, i + 100)));
      }
      expect(
        results.map((result, i) =>
          result instanceof TypeError && expected[i] === 'not an event' ? 'not an event' : describeResult(result),
        ),
        `seed ${seed}`,
      ).toEqual(expected);
      expect(observe(parted), `seed ${seed}`).toEqual(observe(single));
      parted.dispose();
      single.dispose();
    }
  });

  it('leaves reallocated() and every answer as they were, and declines a hint the heap cannot hold', () => {
    const ledger = new GPULedger();
    ledger.addGrant('late', 5, 0, 30);
    ledger.addGrant('early', 5, 0, 10);
    ledger.consume('c1', 4, 5);
    ledger.addGrant('earlier', 5, 0, 8); // re-routes c1
    const before = observe(ledger);
    expect(before.reallocated.length).toBe(1);
    for (const count of [0, 1, 4096]) {
      expect(ledger.reserveEvents(count)).toBeUndefined();
      expect(observe(ledger), `count ${count}`).toEqual(before);
    }
    // More than the heap's ceiling can hold (2^26 events, the most a ledger takes, need
    // more than 2 GiB): declined, nothing reserved.
    const heap = GPULedger.wasmHeapBytes();
    for (const count of [2 ** 26, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      expect(ledger.reserveEvents(count)).toBeUndefined();
      expect(observe(ledger), `count ${count}`).toEqual(before);
      expect(GPULedger.wasmHeapBytes(), `count ${count}`).toBe(heap);
    }
    expect(ledger.consume('c2', 3, 6)).toBe(true); // still takes events after the hints
    ledger.dispose();
  });

  it('refuses a count that is not a non-negative safe integer, and changes nothing', () => {
    const ledger = new GPULedger();
    ledger.addGrant('g', 5, 0, 10);
    ledger.consume('c', 2, 3);
    const before = observe(ledger);
    const heap = GPULedger.wasmHeapBytes();
    for (const [bad, type] of [
      [undefined, TypeError],
      [null, TypeError],
      ['10', TypeError],
      [10n, TypeError],
      [-1, RangeError],
      [1.5, RangeError],
      [Number.NaN, RangeError],
      [Infinity, RangeError],
      [2 ** 53, RangeError],
    ]) {
      const error = thrown(() => ledger.reserveEvents(bad));
      expect(error, String(bad)).toBeInstanceOf(type);
      expect(error.message).toMatch(/^reserveEvents: count must be /);
    }
    expect(observe(ledger)).toEqual(before);
    expect(GPULedger.wasmHeapBytes()).toBe(heap);
    ledger.dispose();
    expect(thrown(() => ledger.reserveEvents(1)).code).toBe('DISPOSED');
  });
});

describe('fromJSON through the batch path', () => {
  const doc = (grants, consumptions) => ({ format: 'gpu-credit-ledger', version: 2, horizon: 0, grants, consumptions });
  const grant = (grantId, amount = 10) => ({ grantId, amount, startTime: 0, endTime: 100 });
  const use = (eventId, amount = 1, timestamp = 5) => ({ eventId, amount, timestamp });

  it('names the first problem in document order, repeated ids included', () => {
    // The repeated id comes before the bad amount: the full read's order decides.
    expect(thrown(() => GPULedger.fromJSON(doc([grant('g')], [use('a'), use('a'), use('b', 0)]))).message).toBe(
      'fromJSON: consumptions[1].eventId "a" appears twice',
    );
    expect(thrown(() => GPULedger.fromJSON(doc([grant('g'), grant('g')], []))).message).toBe(
      'fromJSON: grants[1].grantId "g" appears twice',
    );
    expect(thrown(() => GPULedger.fromJSON(doc([grant('g'), grant('g', 3)], []))).message).toBe(
      'fromJSON: grants[1].grantId "g" appears twice',
    );
    expect(thrown(() => GPULedger.fromJSON(doc([grant('g')], [use('a', 1, 0.5), use('a')]))).message).toBe(
      'fromJSON: consumptions[0].timestamp must be an integer in [0, 2^53 - 1], got 0.5',
    );
    const unfunded = thrown(() => GPULedger.fromJSON(doc([grant('g', 2)], [use('a', 2), use('b', 1), use('c', 5)])));
    expect(unfunded.code).toBe('INVALID_SNAPSHOT');
    expect(unfunded.message).toBe('fromJSON: consumptions[1] ("b") cannot be funded: the rules would have rejected it');
  });

  it('rebuilds what the single calls built, across chunks', () => {
    const ledger = new GPULedger();
    for (let i = 0; i < 20000; i++) {
      if (i % 10 === 0) ledger.addGrant(`g${i}`, 30, i, i + 50);
      else ledger.consume(`é${i}`, 1 + (i % 4), i % 7 === 0 ? Math.max(0, i - 20) : i);
    }
    const copy = GPULedger.fromJSON(JSON.stringify(ledger.toJSON()));
    expect(copy.toJSON()).toEqual(ledger.toJSON());
    expect(copy.balanceCurve(0, 20100)).toEqual(ledger.balanceCurve(0, 20100));
    expect(copy.reallocated()).toEqual([]);
    ledger.dispose();
    copy.dispose();
  });
});
