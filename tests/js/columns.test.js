// applyColumns against the single calls: on random sequences given as typed-array columns
// (bad numbers, repeated ids, rejections, non-ASCII ids, empty and over-long ids, bad
// kinds, ids that are not well-formed UTF-8, queued consumptions), each event must get
// its single call's result or error, and the ledger must end as the single calls leave
// it. Also: chunk boundaries, the whole call's errors (which change nothing) and the id
// length limit. Failures print the seed.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { mulberry32, thrown } from './helpers.js';

const BASE_SEED = Number(process.env.GCL_DIFF_SEED ?? 20261130);

const GRANT = 0;
const CONSUME = 1;
const APPLIED = 1;
const REJECTED = 0;
const FAILED = 2;

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

// Byte sequences that are not well-formed UTF-8 (checked below with a strict decoder).
const MALFORMED = [
  [0xff], // never a UTF-8 byte
  [0xc3], // a lead byte alone
  [0xc0, 0x80], // overlong NUL
  [0xe0, 0x80, 0xaf], // overlong '/'
  [0x80], // a continuation byte alone
  [0xed, 0xa0, 0x80], // a surrogate (U+D800)
  [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
  [0xe2, 0x82], // a truncated '€'
  [0xf0, 0x9f, 0x98], // a truncated '😀'
  [0x63, 0x31, 0xc3], // "c1" and a lead byte: close to a real id
  [0x67, 0xfe, 0x31], // "g", 0xfe, "1"
];
const BAD_KINDS = [2, 3, 5, 255]; // 2 and 3 are the core's own batch kinds (restore, skip)
const BAD_NUMBERS = [0, -1, 1.5, Number.NaN, Infinity, -Infinity, 2 ** 53, -0];
const UTF8_ERROR = /^(addGrant: grantId|consume: eventId) must be well-formed UTF-8/;

// The core's id limit, read from the single call's message (not hard-coded here).
let maxIdBytesCache = null;
function maxIdBytes() {
  if (maxIdBytesCache === null) {
    const ledger = new GPULedger();
    const message = thrown(() => ledger.consume('x'.repeat(100_000), 1, 0)).message;
    ledger.dispose();
    const match = /^consume: eventId must be at most (\d+) UTF-8 bytes, got 100000$/.exec(message);
    expect(match, message).not.toBeNull();
    maxIdBytesCache = Number(match[1]);
  }
  return maxIdBytesCache;
}

// An id of exactly `bytes` UTF-8 bytes: `unit` repeated, padded with 'x'.
function idOfBytes(bytes, unit) {
  const unitBytes = encoder.encode(unit).length;
  const id = unit.repeat(Math.floor(bytes / unitBytes)) + 'x'.repeat(bytes % unitBytes);
  expect(encoder.encode(id).length).toBe(bytes);
  return id;
}

// An event as the columns hold it: `id` its string (null when its bytes are malformed),
// `bytes` its UTF-8 bytes.
const event = (kind, id, amount, time, endTime) => ({ kind, id, bytes: encoder.encode(id), amount, time, endTime });
const malformedEvent = (kind, bytes, amount, time, endTime) => ({ kind, id: null, bytes: Uint8Array.from(bytes), amount, time, endTime });

// Draws one event, valid or not, from a small space so that ids repeat.
function randomEvent(random, i, earlier) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const roll = random();
  const time = () => Math.floor(random() * 60);
  const id = (prefix) => {
    const n = Math.floor(random() * 40);
    return pick([
      `${prefix}${n}`,
      `${prefix}${n + 40}`,
      `${prefix}é${n % 10}`,
      `${prefix}😀${n % 6}`,
      `${prefix}\u0000${n % 3}`,
      `${prefix}e\u0301`, // not the same id as the precomposed é
      `shared${n % 4}`, // a grant's and a consumption's
    ]);
  };
  const tooLong = () => pick(['x'.repeat(maxIdBytes() + 1), idOfBytes(maxIdBytes() + 2, 'é'), idOfBytes(maxIdBytes() + 3, '😀')]);
  // Repeats of an earlier event: identical retries and conflicting duplicates.
  if (roll < 0.12 && earlier.length > 0) {
    const again = pick(earlier);
    if (random() < 0.5) return { ...again };
    const field = again.kind === GRANT ? pick(['amount', 'time', 'endTime']) : pick(['amount', 'time']);
    return { ...again, [field]: again[field] + 1 + Math.floor(random() * 3) };
  }
  if (roll < 0.15) {
    return { ...event(pick([GRANT, CONSUME]), id(pick(['g', 'c'])), 1 + Math.floor(random() * 6), time(), 60), kind: pick(BAD_KINDS) };
  }
  if (roll < 0.19) {
    // Valid numbers: only the id is wrong.
    const startTime = time();
    return malformedEvent(pick([GRANT, CONSUME]), pick(MALFORMED), 1 + Math.floor(random() * 6), startTime, startTime + 5);
  }
  if (roll < 0.45) {
    const startTime = time();
    const grant = event(GRANT, id('g'), 1 + Math.floor(random() * 12), startTime, startTime + Math.floor(random() * 30));
    const flaw = random();
    if (flaw < 0.08) grant[pick(['amount', 'time', 'endTime'])] = pick(BAD_NUMBERS);
    else if (flaw < 0.13) grant.endTime = startTime - 1 - Math.floor(random() * 3);
    else if (flaw < 0.16) Object.assign(grant, event(GRANT, '', grant.amount, grant.time, grant.endTime));
    else if (flaw < 0.18) Object.assign(grant, event(GRANT, tooLong(), grant.amount, grant.time, grant.endTime));
    return grant;
  }
  // A consumption's endTime is not read: anything goes there.
  const consumption = event(CONSUME, id('c'), 1 + Math.floor(random() * 6), time(), pick([0, Number.NaN, -5, 1.5, 2 ** 60]));
  const flaw = random();
  if (flaw < 0.08) consumption[pick(['amount', 'time'])] = pick(BAD_NUMBERS);
  else if (flaw < 0.11) Object.assign(consumption, event(CONSUME, '', consumption.amount, consumption.time, consumption.endTime));
  else if (flaw < 0.13) Object.assign(consumption, event(CONSUME, tooLong(), consumption.amount, consumption.time, consumption.endTime));
  if (i % 50 === 49) consumption.amount = 2 ** 53 - 1; // never fundable
  return consumption;
}

// The columns for `events`; `layout` 'offset' gives every column as a view into a larger
// buffer at an offset, 'buffer' gives kinds and ids as Node Buffers.
function toColumns(events, layout = 'plain') {
  const count = events.length;
  const idBytes = events.reduce((sum, e) => sum + e.bytes.length, 0);
  const make = (Type, length) => {
    if (layout === 'offset') return new Type(new ArrayBuffer((length + 3) * Type.BYTES_PER_ELEMENT), 2 * Type.BYTES_PER_ELEMENT, length);
    if (layout === 'buffer' && Type === Uint8Array) return Buffer.alloc(length);
    return new Type(length);
  };
  const columns = {
    kinds: make(Uint8Array, count),
    ids: make(Uint8Array, idBytes),
    idEnds: make(Uint32Array, count),
    amounts: make(Float64Array, count),
    times: make(Float64Array, count),
    endTimes: make(Float64Array, count),
  };
  let at = 0;
  events.forEach((e, i) => {
    columns.kinds[i] = e.kind;
    columns.ids.set(e.bytes, at);
    at += e.bytes.length;
    columns.idEnds[i] = at;
    columns.amounts[i] = e.amount;
    columns.times[i] = e.time;
    columns.endTimes[i] = e.endTime;
  });
  return columns;
}

// What the single calls do with the same events, each caught. Events with no single call
// (a bad kind, malformed id bytes) are skipped.
function applySingly(ledger, events) {
  return events.map((e) => {
    if (e.kind !== GRANT && e.kind !== CONSUME) return 'bad kind';
    if (e.id === null) return 'malformed';
    try {
      if (e.kind === GRANT) {
        ledger.addGrant(e.id, e.amount, e.time, e.endTime);
        return true;
      }
      return ledger.consume(e.id, e.amount, e.time);
    } catch (error) {
      return error;
    }
  });
}

// applyBatch's event objects for the same events (valid kinds, well-formed ids only).
const toBatchEvent = (e) =>
  e.kind === GRANT
    ? { kind: 'grant', grantId: e.id, amount: e.amount, startTime: e.time, endTime: e.endTime }
    : { kind: 'consume', eventId: e.id, amount: e.amount, timestamp: e.time };

const describeResult = (result) =>
  result instanceof Error ? { error: result.constructor.name, code: result.code, message: result.message } : result;

// applyColumns' answer for event i, in applyBatch's terms: true, false or the error.
function columnResult({ results, errors }, i) {
  if (results[i] === FAILED) return errors.get(i);
  expect(errors.has(i), `event ${i} has code ${results[i]} and an error`).toBe(false);
  expect([APPLIED, REJECTED], `event ${i}`).toContain(results[i]);
  return results[i] === APPLIED;
}

// Checks the answer of applyColumns against the single calls' (applySingly) and returns
// how many events of each kind of outcome there were.
function expectSameAnswers(answer, events, expected, where) {
  const { results, errors } = answer;
  expect(results).toBeInstanceOf(Uint8Array);
  expect(errors).toBeInstanceOf(Map);
  expect(results).toHaveLength(events.length);
  const failed = results.reduce((n, code) => n + (code === FAILED ? 1 : 0), 0);
  expect(errors.size, where).toBe(failed);
  const keys = [...errors.keys()];
  expect(keys, `${where}: errors in index order`).toEqual([...keys].sort((a, b) => a - b));
  const tally = { applied: 0, rejected: 0, badKind: 0, malformed: 0, thrown: 0 };
  events.forEach((e, i) => {
    const at = `${where}, events[${i}] ${JSON.stringify({ ...e, bytes: [...e.bytes].slice(0, 8) })}`;
    if (expected[i] === 'bad kind' || expected[i] === 'malformed') {
      expect(results[i], at).toBe(FAILED);
      const error = errors.get(i);
      expect(error, at).toBeInstanceOf(RangeError);
      if (expected[i] === 'bad kind') {
        expect(error.message.startsWith(`applyColumns: kinds[${i}] must be 0 (grant) or 1 (consume)`), `${at}: ${error.message}`).toBe(
          true,
        );
        tally.badKind++;
      } else {
        expect(error.message, at).toMatch(UTF8_ERROR);
        expect(error.message.startsWith(e.kind === GRANT ? 'addGrant: grantId' : 'consume: eventId'), at).toBe(true);
        tally.malformed++;
      }
      return;
    }
    expect(describeResult(columnResult(answer, i)), at).toEqual(describeResult(expected[i]));
    if (expected[i] instanceof Error) tally.thrown++;
    else if (expected[i]) tally.applied++;
    else tally.rejected++;
  });
  return tally;
}

// Everything observable about a ledger after loading.
function observe(ledger) {
  const doc = ledger.toJSON();
  const times = Array.from({ length: 95 }, (_, t) => t);
  return {
    doc,
    grantCount: ledger.grantCount,
    consumptionCount: ledger.consumptionCount,
    balances: times.map((t) => ledger.getBalance(t)),
    headroom: times.filter((t) => t % 7 === 0).map((t) => ledger.headroom(t)),
    allocations: doc.consumptions.map((c) => ledger.allocations(c.eventId)),
    pending: ledger.pending(),
    reallocated: ledger.reallocated(),
  };
}

const hasNonAscii = (text) => [...text].some((char) => char.codePointAt(0) > 0x7f);

const strip = ({ eventId, amount, timestamp }) => ({ eventId, amount, timestamp });

// One differential run; returns what it saw, for the check that the runs were not vacuous.
function differential(seed) {
  const random = mulberry32(seed);
  const events = [];
  const count = 20 + Math.floor(random() * 151);
  for (let i = 0; i < count; i++) events.push(randomEvent(random, i, events));
  const layout = ['plain', 'offset', 'buffer'][seed % 3];
  const columns = toColumns(events, layout);
  const batch = new GPULedger();
  const single = new GPULedger();
  // Queued consumptions that grants in the batch may let in.
  const letIn = { batch: [], single: [] };
  let batchNotifications = 0;
  for (const [name, ledger] of [
    ['batch', batch],
    ['single', single],
  ]) {
    ledger.submit('q1', 4, 10);
    ledger.submit('q2', 30, 20);
    ledger.onPendingAccepted((accepted) => {
      if (name === 'batch') batchNotifications++;
      letIn[name].push(...accepted);
    });
  }
  const answer = batch.applyColumns(columns);
  const expected = applySingly(single, events);
  const where = `seed ${seed} (${layout})`;
  const tally = expectSameAnswers(answer, events, expected, where);
  expect(observe(batch), where).toEqual(observe(single));
  // One notification after the batch: the same consumptions, with their allocations as
  // they stand after the batch.
  expect(letIn.batch.map(strip), where).toEqual(letIn.single.map(strip));
  expect(batchNotifications, where).toBe(letIn.batch.length > 0 ? 1 : 0);
  for (const accepted of letIn.batch) expect(accepted.allocations).toEqual(batch.allocations(accepted.eventId));

  // What the run contained.
  const messages = [...answer.errors.values()].map((error) => error.message);
  const seen = new Map();
  let identicalRetries = 0;
  let backdatedAccepted = 0;
  let latestAccepted = -1;
  events.forEach((e, i) => {
    const key = `${e.kind}:${e.id}`;
    const same = seen.get(key);
    if (answer.results[i] === APPLIED && e.id !== null) {
      if (same && same.amount === e.amount && same.time === e.time && (e.kind === CONSUME || same.endTime === e.endTime))
        identicalRetries++;
      else seen.set(key, e);
      if (e.kind === CONSUME) {
        if (e.time < latestAccepted) backdatedAccepted++;
        latestAccepted = Math.max(latestAccepted, e.time);
      }
    }
  });
  const stats = {
    ...tally,
    identicalRetries,
    backdatedAccepted,
    letIn: letIn.batch.length,
    nonAsciiApplied: events.filter((e, i) => answer.results[i] === APPLIED && hasNonAscii(e.id ?? '')).length,
    duplicate: [...answer.errors.values()].filter((error) => error instanceof LedgerError && error.code === 'DUPLICATE_ID').length,
    empty: messages.filter((m) => m.endsWith('must not be empty')).length,
    tooLong: messages.filter((m) => / must be at most \d+ UTF-8 bytes, got \d+$/.test(m)).length,
    badNumber: messages.filter((m) => / must be an integer in /.test(m)).length,
    badWindow: messages.filter((m) => m.startsWith('addGrant: startTime must be <= endTime')).length,
  };
  batch.dispose();
  single.dispose();
  return stats;
}

describe('applyColumns', () => {
  it('uses byte sequences that are indeed not well-formed UTF-8', () => {
    for (const bytes of MALFORMED) expect(() => strictDecoder.decode(Uint8Array.from(bytes)), String(bytes)).toThrow();
  });

  const SEEDS = Array.from({ length: 40 }, (_, round) => BASE_SEED + round);
  const stats = new Map();
  for (const seed of SEEDS) {
    it(`gives each event its single call's result (seed ${seed})`, () => {
      stats.set(seed, differential(seed));
    });
  }

  it('met every kind of outcome in those runs', () => {
    const total = {};
    for (const seed of SEEDS) {
      if (!stats.has(seed)) stats.set(seed, differential(seed)); // when run alone (-t)
      for (const [name, n] of Object.entries(stats.get(seed))) total[name] = (total[name] ?? 0) + n;
    }
    const minimums = {
      applied: 700,
      rejected: 300,
      badKind: 60,
      malformed: 80,
      thrown: 500,
      identicalRetries: 25,
      backdatedAccepted: 150,
      letIn: 12,
      nonAsciiApplied: 200,
      duplicate: 200,
      empty: 40,
      tooLong: 25,
      badNumber: 100,
      badWindow: 25,
    };
    for (const [name, min] of Object.entries(minimums))
      expect(total[name], `${name}: ${JSON.stringify(total)}`).toBeGreaterThanOrEqual(min);
  });

  // 40,000 events: ten chunks of 4,096, the last one partial.
  function chunkEvents() {
    const events = [];
    for (let i = 0; i < 40000; i++) {
      if (i % 8 === 0) events.push(event(GRANT, i % 16 ? `grant-é-${i}` : `grant-${i}`, 40, i, i + 90));
      else
        events.push(
          event(
            CONSUME,
            i % 3 ? `c${i}` : `ç😀${i}`,
            i % 101 === 0 ? 1000 : 1 + (i % 9),
            i % 5 === 0 ? Math.max(0, i - 40) : i,
            Number.NaN,
          ),
        );
    }
    events[20000] = { ...events[19999] }; // an identical retry
    events[30000] = event(CONSUME, 'c29999', 1, 5, 0); // conflicts with an earlier one
    return events;
  }

  // Checks applyColumns of `events` against the single calls and applyBatch; returns the answer.
  function expectLikeSingleAndBatch(events, where) {
    const columns = toColumns(events);
    const viaColumns = new GPULedger();
    const single = new GPULedger();
    const batch = new GPULedger();
    const answer = viaColumns.applyColumns(columns);
    const expected = applySingly(single, events);
    const tally = expectSameAnswers(answer, events, expected, where);
    // applyBatch of the same events (those with a single call) gives the same answers.
    const callable = events.map((e, i) => i).filter((i) => typeof expected[i] !== 'string');
    const batchResults = batch.applyBatch(callable.map((i) => toBatchEvent(events[i])));
    expect(
      callable.map((i) => describeResult(columnResult(answer, i))),
      where,
    ).toEqual(batchResults.map(describeResult));
    const last = events.length + 200;
    for (const other of [single, batch]) {
      expect(viaColumns.toJSON(), where).toEqual(other.toJSON());
      expect(viaColumns.balanceCurve(0, last), where).toEqual(other.balanceCurve(0, last));
      expect(viaColumns.reallocated(), where).toEqual(other.reallocated());
    }
    for (const id of ['c1', 'ç😀3', 'c19999', 'c29999', 'ç😀39999']) {
      expect(viaColumns.allocations(id), id).toEqual(single.allocations(id));
    }
    viaColumns.dispose();
    single.dispose();
    batch.dispose();
    return { answer, expected, tally };
  }

  it('loads across chunk boundaries (40,000 events, non-ASCII ids) as the single calls and applyBatch do', () => {
    const events = chunkEvents();
    const { answer, expected, tally } = expectLikeSingleAndBatch(events, 'chunks');
    expect(tally.rejected).toBeGreaterThan(100);
    expect(tally.applied).toBeGreaterThan(30000);
    expect(tally.thrown).toBe(1); // only the conflict
    expect(answer.errors.get(30000)).toBeInstanceOf(LedgerError);
    expect(answer.errors.get(30000).code).toBe('DUPLICATE_ID');
    expect(answer.errors.get(30000).message).toBe('consume: consumption "c29999" already exists with different parameters');
    expect(answer.results[20000]).toBe(APPLIED);
    expect(expected[19999]).toBe(true);
    // Backdated consumptions accepted, non-ASCII ids applied, in every chunk.
    for (let chunk = 0; chunk < 10; chunk++) {
      const from = chunk * 4096;
      const to = Math.min(from + 4096, events.length);
      let backdated = 0;
      let nonAscii = 0;
      for (let i = from; i < to; i++) {
        if (answer.results[i] !== APPLIED) continue;
        if (events[i].kind === CONSUME && events[i].time < i) backdated++;
        if (hasNonAscii(events[i].id)) nonAscii++;
      }
      expect(backdated, `chunk ${chunk}`).toBeGreaterThan(50);
      expect(nonAscii, `chunk ${chunk}`).toBeGreaterThan(500);
    }
  });

  it('keeps failed events out across chunk boundaries, where the chunks have failures', () => {
    const events = chunkEvents();
    const changes = {
      0: { kind: 5 },
      4095: { kind: 3 }, // the core's skip kind: still a bad kind here
      4096: malformedEvent(CONSUME, [0xc3], 1, 4096, 0),
      4097: { amount: 0 },
      8191: malformedEvent(GRANT, [0xc0, 0x80], 10, 8191, 8200),
      8192: event(CONSUME, '', 1, 8192, 0),
      12287: { kind: 2 }, // the core's restore kind: still a bad kind here
      12288: { endTime: 12000 }, // a grant ending before it starts
      16384: { id: '', bytes: new Uint8Array(0) },
      39999: malformedEvent(CONSUME, [0xff], 1, 39999, 0),
    };
    for (const [i, change] of Object.entries(changes)) events[i] = { ...events[i], ...change };
    const { answer, tally } = expectLikeSingleAndBatch(events, 'chunks with failures');
    expect(tally.badKind).toBe(3);
    expect(tally.malformed).toBe(3);
    expect(tally.thrown).toBe(5); // amount, empty id twice, the window and the conflict
    for (const i of Object.keys(changes)) expect(answer.results[i], `event ${i}`).toBe(FAILED);
    expect(answer.errors.get(12288).message).toBe('addGrant: startTime must be <= endTime, got 12288 > 12000');
    expect(answer.errors.get(8191).message).toMatch(/^addGrant: grantId must be well-formed UTF-8/);
    // The neighbours of the failures are applied (or rejected: consumptions with no credit).
    for (const i of [1, 4094, 4098, 8190, 8193, 12286, 12289, 16383, 16385, 39998])
      expect(answer.results[i], `event ${i}`).not.toBe(FAILED);
    expect([4094, 4098, 8190, 8193, 12286, 12289, 16383, 16385, 39998].filter((i) => answer.results[i] === APPLIED).length).toBeGreaterThan(
      6,
    );

    // The last chunk's ids are all empty (no id bytes at all in that chunk).
    const short = events.slice(0, 3 * 4096 + 2);
    short[3 * 4096] = event(CONSUME, '', 1, 3 * 4096, 0);
    short[3 * 4096 + 1] = event(GRANT, '', 5, 0, 1);
    const last = expectLikeSingleAndBatch(short, 'empty last chunk').answer;
    expect([...last.results.subarray(3 * 4096)]).toEqual([FAILED, FAILED]);
    expect(last.errors.get(3 * 4096 + 1).message).toBe('addGrant: grantId must not be empty');
  });

  describe('whole-call errors', () => {
    // A ledger holding some events, a queued consumption and a listener.
    function loadedLedger() {
      const ledger = new GPULedger();
      ledger.addGrant('g1', 10, 0, 50);
      ledger.addGrant('gé', 5, 5, 30);
      ledger.consume('c1', 3, 4);
      ledger.consume('c😀', 9, 12);
      ledger.submit('queued', 20, 15);
      const notified = [];
      ledger.onPendingAccepted((accepted) => notified.push(...accepted));
      return { ledger, notified };
    }
    // Two events that would change the ledger: a grant that lets the queued one in, a consumption.
    const goodColumns = () => toColumns([event(GRANT, 'new', 30, 0, 60), event(CONSUME, 'c9', 2, 6, 0)]);

    it('applies the good columns (so that the cases below would show a change)', () => {
      const { ledger, notified } = loadedLedger();
      const before = observe(ledger);
      const answer = ledger.applyColumns(goodColumns());
      expect([...answer.results]).toEqual([APPLIED, APPLIED]);
      expect(answer.errors.size).toBe(0);
      expect(notified.map(strip)).toEqual([{ eventId: 'queued', amount: 20, timestamp: 15 }]);
      expect(observe(ledger)).not.toEqual(before);
      expect(ledger.grantCount).toBe(before.grantCount + 1);
      expect(ledger.consumptionCount).toBe(before.consumptionCount + 2);
      ledger.dispose();
    });

    const cases = [];
    for (const bad of [undefined, null, 42, 'columns', true, 10n, Symbol('columns')]) {
      cases.push([`columns ${String(bad)}`, bad, TypeError, 'applyColumns: columns must be an object, got ']);
    }
    cases.push(['columns an array', [], TypeError, 'applyColumns: columns must be an object, got ']);
    const wrongTypes = {
      kinds: [Int8Array, Uint8ClampedArray, Uint16Array],
      ids: [Int8Array, Uint8ClampedArray, Uint32Array],
      idEnds: [Int32Array, Float64Array, Uint8Array, BigUint64Array],
      amounts: [Float32Array, Int32Array, BigInt64Array],
      times: [Float32Array, Uint32Array, Int32Array],
      endTimes: [Float32Array, Uint32Array],
    };
    const typeNames = {
      kinds: 'Uint8Array',
      ids: 'Uint8Array',
      idEnds: 'Uint32Array',
      amounts: 'Float64Array',
      times: 'Float64Array',
      endTimes: 'Float64Array',
    };
    for (const [name, types] of Object.entries(wrongTypes)) {
      const prefix = `applyColumns: columns.${name} must be a ${typeNames[name]}, got `;
      const good = goodColumns();
      const { [name]: _dropped, ...missing } = good;
      cases.push([`${name} missing`, missing, TypeError, prefix]);
      for (const value of [undefined, null, [...good[name]].map(Number), 'abc', new ArrayBuffer(16), new DataView(new ArrayBuffer(16))]) {
        cases.push([`${name} ${Object.prototype.toString.call(value)}`, { ...good, [name]: value }, TypeError, prefix]);
      }
      for (const Type of types) {
        const value = Type.name.startsWith('Big') ? new Type(good[name].length) : Type.from(good[name]);
        cases.push([`${name} a ${Type.name}`, { ...good, [name]: value }, TypeError, prefix]);
      }
    }
    for (const name of ['idEnds', 'amounts', 'times', 'endTimes']) {
      const prefix = `applyColumns: columns.${name} must have one entry per event`;
      const good = goodColumns();
      const Type = good[name].constructor;
      const longer = new Type(good[name].length + 1);
      longer.set(good[name]);
      if (name === 'idEnds') longer[good[name].length] = good.ids.length;
      cases.push([`${name} one entry more`, { ...good, [name]: longer }, RangeError, prefix]);
      cases.push([`${name} one entry fewer`, { ...good, [name]: good[name].subarray(0, good[name].length - 1) }, RangeError, prefix]);
    }
    {
      // kinds with one entry fewer than the others: the other columns are too long.
      const good = goodColumns();
      cases.push([
        'kinds one entry fewer',
        { ...good, kinds: good.kinds.subarray(0, 1) },
        RangeError,
        'applyColumns: columns.idEnds must have one entry per event',
      ]);
    }
    {
      // ids "new" + "c9": 5 bytes.
      const good = goodColumns();
      const prefix = 'applyColumns: columns.idEnds must not decrease';
      const three = toColumns([event(GRANT, 'new', 30, 0, 60), event(CONSUME, 'c9', 2, 6, 0), event(CONSUME, 'c10', 1, 7, 0)]);
      for (const [label, columns] of [
        ['idEnds decreasing', { ...good, idEnds: Uint32Array.of(3, 2) }],
        ['idEnds decreasing at the end', { ...three, idEnds: Uint32Array.of(3, 5, 4) }],
        ['idEnds beyond ids', { ...good, idEnds: Uint32Array.of(3, 6) }],
        ['idEnds beyond ids at the start', { ...good, idEnds: Uint32Array.of(6, 6) }],
        ['idEnds beyond short ids', { ...good, ids: good.ids.subarray(0, 4) }],
        ['idEnds into empty ids', { ...good, ids: new Uint8Array(0) }],
        ['idEnds with 2^32 - 1', { ...good, idEnds: Uint32Array.of(3, 2 ** 32 - 1) }],
      ]) {
        cases.push([label, columns, RangeError, prefix]);
      }
    }

    it('throws the right error for each bad shape and changes nothing', () => {
      const { ledger, notified } = loadedLedger();
      const before = observe(ledger);
      expect(before.pending).toHaveLength(1);
      for (const [label, columns, Type, prefix] of cases) {
        const error = thrown(() => ledger.applyColumns(columns));
        expect(error, label).toBeInstanceOf(Type);
        expect(error.constructor, label).toBe(Type);
        expect(error.message.startsWith(prefix), `${label}: ${error.message}`).toBe(true);
        expect(observe(ledger), label).toEqual(before);
      }
      expect(cases.length).toBeGreaterThan(60);
      expect(notified).toEqual([]);
      // Still takes good columns after all that.
      expect([...ledger.applyColumns(goodColumns()).results]).toEqual([APPLIED, APPLIED]);
      expect(notified.map(strip)).toEqual([{ eventId: 'queued', amount: 20, timestamp: 15 }]);
      ledger.dispose();
    });

    it('names the column and its type in the message', () => {
      const ledger = new GPULedger();
      const good = goodColumns();
      expect(thrown(() => ledger.applyColumns({ ...good, amounts: Float32Array.from(good.amounts) })).message).toBe(
        'applyColumns: columns.amounts must be a Float64Array, got Float32Array',
      );
      expect(thrown(() => ledger.applyColumns({ ...good, times: good.times.subarray(1) })).message).toBe(
        'applyColumns: columns.times must have one entry per event (2), got 1',
      );
      ledger.dispose();
    });

    it('takes Node Buffers as Uint8Arrays', () => {
      const { ledger, notified } = loadedLedger();
      const good = goodColumns();
      const answer = ledger.applyColumns({ ...good, kinds: Buffer.from(good.kinds), ids: Buffer.from(good.ids) });
      expect([...answer.results]).toEqual([APPLIED, APPLIED]);
      expect(ledger.allocations('c9')).not.toBeNull();
      expect(notified).toHaveLength(1);
      ledger.dispose();
    });

    it('returns empty results for an empty batch and changes nothing', () => {
      const { ledger, notified } = loadedLedger();
      const before = observe(ledger);
      const answer = ledger.applyColumns(toColumns([]));
      expect(answer.results).toBeInstanceOf(Uint8Array);
      expect(answer.results).toHaveLength(0);
      expect(answer.errors).toBeInstanceOf(Map);
      expect(answer.errors.size).toBe(0);
      expect(observe(ledger)).toEqual(before);
      expect(notified).toEqual([]);
      ledger.dispose();
    });

    it('throws DISPOSED on a disposed ledger', () => {
      const { ledger } = loadedLedger();
      ledger.dispose();
      for (const columns of [goodColumns(), toColumns([]), null]) {
        const error = thrown(() => ledger.applyColumns(columns));
        expect(error).toBeInstanceOf(LedgerError);
        expect(error.code).toBe('DISPOSED');
        expect(error.message).toMatch(/^applyColumns: /);
      }
    });
  });

  it("checks an id's UTF-8 last: an event with a bad number as well fails on the number", () => {
    const ledger = new GPULedger();
    const columns = {
      kinds: new Uint8Array([CONSUME, GRANT, CONSUME]),
      ids: new Uint8Array([0xff, 0xc3, 0xc3]),
      idEnds: new Uint32Array([1, 2, 3]),
      amounts: new Float64Array([1.5, 5, 1]),
      times: new Float64Array([5, 10, 5]),
      endTimes: new Float64Array([0, 4, 0]),
    };
    const { results, errors } = ledger.applyColumns(columns);
    expect([...results]).toEqual([FAILED, FAILED, FAILED]);
    expect(errors.get(0).message).toBe('consume: amount must be an integer in [1, 2^53 - 1], got 1.5');
    expect(errors.get(1).message).toBe('addGrant: startTime must be <= endTime, got 10 > 4');
    expect(errors.get(2).message).toMatch(UTF8_ERROR);
    expect(ledger.consumptionCount + ledger.grantCount).toBe(0);
    ledger.dispose();
  });

  it('accepts an id of exactly the maximum byte length and refuses one byte more as the single call does', () => {
    const max = maxIdBytes();
    expect(max).toBeGreaterThanOrEqual(16);
    const units = ['x', 'é', '€', '😀'];
    const events = [];
    for (const unit of units) {
      const atMax = idOfBytes(max, unit);
      const over = idOfBytes(max + 1, unit);
      events.push(event(GRANT, `g${idOfBytes(max - 1, unit)}`, 10, 0, 50)); // an ASCII byte, then the unit
      events.push(event(GRANT, atMax, 10, 0, 50));
      events.push(event(GRANT, atMax, 10, 0, 50)); // identical retry
      events.push(event(GRANT, atMax, 11, 0, 50)); // conflict: the message quotes the whole id
      events.push(event(GRANT, over, 10, 0, 50));
      events.push(event(CONSUME, atMax, 2, 5, 0));
      events.push(event(CONSUME, over, 2, 5, 0));
    }
    const columns = toColumns(events);
    const ledger = new GPULedger();
    const single = new GPULedger();
    const answer = ledger.applyColumns(columns);
    const expected = applySingly(single, events);
    const tally = expectSameAnswers(answer, events, expected, 'max id');
    expect(tally.thrown).toBe(3 * units.length);
    events.forEach((e, i) => {
      if (e.bytes.length === max && i > 0 && events[i - 1].id === e.id && events[i - 1].amount !== e.amount) {
        expect(answer.errors.get(i).code).toBe('DUPLICATE_ID');
        expect(answer.errors.get(i).message).toBe(`addGrant: grant ${JSON.stringify(e.id)} already exists with different parameters`);
      } else if (e.bytes.length === max) {
        expect(answer.results[i], `event ${i}`).toBe(APPLIED);
      }
      if (e.bytes.length === max + 1) {
        expect(answer.results[i], `event ${i}`).toBe(FAILED);
        const what = e.kind === GRANT ? 'addGrant: grantId' : 'consume: eventId';
        expect(answer.errors.get(i).message).toBe(`${what} must be at most ${max} UTF-8 bytes, got ${max + 1}`);
      }
    });
    expect(events.filter((e) => e.bytes.length === max).length).toBeGreaterThanOrEqual(4 * units.length);
    expect(observe(ledger)).toEqual(observe(single));
    for (const unit of units) expect(ledger.allocations(idOfBytes(max, unit))).toEqual(single.allocations(idOfBytes(max, unit)));
    ledger.dispose();
    single.dispose();
  });

  it('takes columns made in another realm (jsdom, an iframe, Node vm) as typed arrays, and names what is not one', () => {
    const realm = vm.createContext({});
    const make = (source) => vm.runInContext(source, realm);
    const columns = {
      kinds: make('new Uint8Array([0, 1, 1])'),
      ids: make("new Uint8Array([...'g1c1c2'].map((c) => c.charCodeAt(0)))"),
      idEnds: make('new Uint32Array([2, 4, 6])'),
      amounts: make('new Float64Array([100, 40, 80])'),
      times: make('new Float64Array([0, 5, 6])'),
      endTimes: make('new Float64Array([10, 0, 0])'),
    };
    expect(columns.kinds instanceof Uint8Array).toBe(false);
    const ledger = new GPULedger();
    const { results, errors } = ledger.applyColumns(columns);
    expect([[...results], errors.size, ledger.getBalance(6)]).toEqual([[APPLIED, APPLIED, REJECTED], 0, 60]);
    const wrong = { ...columns, idEnds: make('new Uint16Array([2, 4, 6])') };
    expect(thrown(() => ledger.applyColumns(wrong)).message).toBe('applyColumns: columns.idEnds must be a Uint32Array, got Uint16Array');
    expect(ledger.consumptionCount).toBe(1);
    ledger.dispose();
  });
});
