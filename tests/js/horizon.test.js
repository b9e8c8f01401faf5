// The finality horizon through the package: compact(horizon), ledger.horizon,
// BEFORE_HORIZON refusals that change nothing, version-2 snapshots, and random call
// sequences with compact at random points against the brute-force HorizonOracle (which
// rebuilds itself literally from the definition at each compact).
import { describe, expect, it } from 'vitest';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { HorizonOracle } from './horizon-oracle.js';
import { mulberry32, outcome, thrown, trackedLedgers } from './helpers.js';

const newLedger = trackedLedgers();
const BASE_SEED = Number(process.env.GCL_DIFF_SEED ?? 20261130);

// The README's example, compacted at 8.
function example() {
  const ledger = newLedger();
  ledger.addGrant('g1', 100, 0, 10);
  ledger.addGrant('g2', 50, 5, 15);
  ledger.consume('c1', 80, 6);
  ledger.consume('c2', 40, 11);
  return ledger;
}

// Everything observable at and after the horizon (the queue is not part of snapshots:
// `restored` leaves it out).
function observe(ledger, eventIds = ['c1', 'c2', 'c3'], { restored = false } = {}) {
  const h = ledger.horizon;
  const times = Array.from({ length: 30 }, (_, i) => h + i);
  return {
    horizon: h,
    counts: [ledger.grantCount, ledger.consumptionCount],
    balances: times.map((t) => ledger.getBalance(t)),
    headroom: times.map((t) => ledger.headroom(t)),
    grantsAt: times.map((t) => ledger.grantsAt(t)),
    curve: ledger.balanceCurve(h, h + 100),
    allocations: eventIds.map((id) => ledger.allocations(id)),
    pending: restored ? [] : ledger.pending(),
    snapshot: ledger.toJSON(),
  };
}

describe('compact', () => {
  it('keeps what is left at the horizon, drops the past and says what it dropped', () => {
    const ledger = example();
    ledger.submit('big', 500, 7);
    expect(ledger.horizon).toBe(0);
    expect(ledger.compact(8)).toEqual({
      horizon: 8,
      droppedGrants: 0,
      droppedConsumptions: 1,
      droppedPending: [{ eventId: 'big', amount: 500, timestamp: 7 }],
    });
    expect(ledger.horizon).toBe(8);
    expect(ledger.getBalance(8)).toBe(70);
    expect(ledger.balanceCurve(8, 20)).toEqual([
      [8, 70],
      [11, 10],
      [16, 0],
    ]);
    expect(ledger.allocations('c1')).toBeNull();
    expect(ledger.allocations('c2')).toEqual([{ grantId: 'g2', amount: 40 }]);
    expect(ledger.grantsAt(8)).toEqual([
      { grantId: 'g1', amount: 20, startTime: 8, endTime: 10, remaining: 20 },
      { grantId: 'g2', amount: 50, startTime: 8, endTime: 15, remaining: 50 },
    ]);
    expect(ledger.pending()).toEqual([]);
    expect(ledger.toJSON()).toEqual({
      format: 'gpu-credit-ledger',
      version: 2,
      horizon: 8,
      grants: [
        { grantId: 'g1', amount: 20, startTime: 0, endTime: 10 },
        { grantId: 'g2', amount: 50, startTime: 5, endTime: 15 },
      ],
      consumptions: [{ eventId: 'c2', amount: 40, timestamp: 11 }],
    });
  });

  it('only moves forward; a horizon past every event drops everything', () => {
    const ledger = example();
    ledger.compact(8);
    const before = observe(ledger);
    expect(ledger.compact(3)).toEqual({ horizon: 8, droppedGrants: 0, droppedConsumptions: 0, droppedPending: [] });
    expect(ledger.compact(8).horizon).toBe(8);
    expect(observe(ledger)).toEqual(before);
    expect(ledger.compact(1000)).toEqual({ horizon: 1000, droppedGrants: 2, droppedConsumptions: 1, droppedPending: [] });
    expect([ledger.grantCount, ledger.consumptionCount]).toEqual([0, 0]);
    ledger.addGrant('g1', 5, 1000, 1001); // dropped ids are free again
    expect(ledger.consume('c1', 5, 1001)).toBe(true);
  });

  it('refuses every call that needs the past with BEFORE_HORIZON and changes nothing', () => {
    const ledger = example();
    ledger.addGrant('late', 10, 9, 30);
    ledger.submit('q', 500, 12);
    ledger.compact(8);
    const before = observe(ledger);
    const refusals = [
      () => ledger.addGrant('g3', 5, 7, 20),
      () => ledger.addGrant('g1', 100, 0, 10), // retrying a carried grant
      () => ledger.consume('c3', 1, 7),
      () => ledger.consume('c1', 80, 6), // retrying a dropped consumption
      () => ledger.tryConsume('c3', 1, 7),
      () => ledger.tryConsume('c3', 1, 7, { dryRun: true }),
      () => ledger.submit('c3', 1, 7),
      () => ledger.getBalance(7),
      () => ledger.headroom(0),
      () => ledger.grantsAt(7),
      () => ledger.balanceCurve(7, 20),
      () => ledger.nextBelow(10, 7),
      () => ledger.voidGrant('g1'), // started before 8: its draws are final
      () => ledger.setGrantEnd('late', 7), // an end before the horizon
      () => ledger.setGrantEnd('g1', 20), // g2 (end 15) started before 8 too: it would reorder
    ];
    for (const call of refusals) {
      const error = thrown(call);
      expect(error, String(call)).toBeInstanceOf(LedgerError);
      expect(error.code, String(call)).toBe('BEFORE_HORIZON');
      expect(error.message).toMatch(/^[a-zA-Z]+: .*finality horizon/);
      expect(observe(ledger), String(call)).toEqual(before);
    }
    // An end before the horizon is refused before the id is looked up: the message names
    // the end, not a grant (which may not exist).
    expect(thrown(() => ledger.setGrantEnd('no-such-grant', 7)).message).toBe(
      'setGrantEnd: endTime 7 needs history before the finality horizon, which is final (compact)',
    );
    expect(thrown(() => ledger.setGrantEnd('g1', 20)).message).toMatch(/^setGrantEnd: grant "g1" needs history/);
    expect(thrown(() => ledger.compact(-1))).toBeInstanceOf(RangeError);
    expect(thrown(() => ledger.compact('9'))).toBeInstanceOf(TypeError);
    expect(observe(ledger)).toEqual(before);
    // A carried grant's add as grantsAt shows it (the fresh ledger's: start 8, the credit
    // left at 8) is its identical retry there, and here; other parameters are a duplicate.
    expect(ledger.grantsAt(8).find((g) => g.grantId === 'g1')).toMatchObject({ amount: 20, startTime: 8, endTime: 10 });
    ledger.addGrant('g1', 20, 8, 10);
    expect(observe(ledger)).toEqual(before);
    expect(thrown(() => ledger.addGrant('g1', 20, 9, 10)).code).toBe('DUPLICATE_ID');
    expect(observe(ledger)).toEqual(before);
    // What the rules allow still works: a grant that started after 8, an end change that
    // passes no other grant that started before 8.
    expect(ledger.setGrantEnd('g1', 12)).toMatchObject({ applied: true });
    expect(ledger.voidGrant('late')).toMatchObject({ applied: true });
  });

  it('keeps a grant left with nothing while its window is open, so its id stays taken', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 0, 20);
    ledger.consume('all', 10, 2);
    ledger.compact(5);
    expect(ledger.grantsAt(5)).toEqual([{ grantId: 'g', amount: 0, startTime: 5, endTime: 20, remaining: 0 }]);
    expect(thrown(() => ledger.addGrant('g', 10, 5, 20)).code).toBe('DUPLICATE_ID');
    const copy = GPULedger.fromJSON(JSON.stringify(ledger));
    expect(observe(copy)).toEqual(observe(ledger));
    copy.dispose();
    ledger.compact(21);
    ledger.addGrant('g', 10, 21, 30);
  });
});

describe('version-2 snapshots', () => {
  it('rebuild a compacted ledger that answers every call alike, refusals included', () => {
    const ledger = example();
    ledger.compact(8);
    const copy = GPULedger.fromJSON(ledger.toJSON());
    expect(observe(copy)).toEqual(observe(ledger));
    for (const call of [(l) => l.voidGrant('g1'), (l) => l.setGrantEnd('g1', 20), (l) => l.getBalance(7)]) {
      expect(thrown(() => call(copy)).code).toBe(thrown(() => call(ledger)).code);
    }
    expect(copy.setGrantEnd('g1', 12)).toEqual(ledger.setGrantEnd('g1', 12));
    copy.dispose();
  });

  it('still reads version 1', () => {
    const copy = GPULedger.fromJSON({
      format: 'gpu-credit-ledger',
      version: 1,
      grants: [{ grantId: 'g1', amount: 100, startTime: 0, endTime: 10 }],
      consumptions: [{ eventId: 'c1', amount: 80, timestamp: 6 }],
    });
    expect([copy.horizon, copy.getBalance(6), copy.toJSON().version]).toEqual([0, 20, 2]);
    copy.dispose();
  });

  const doc = (change) => ({
    format: 'gpu-credit-ledger',
    version: 2,
    horizon: 8,
    grants: [{ grantId: 'g1', amount: 20, startTime: 0, endTime: 10 }],
    consumptions: [{ eventId: 'c2', amount: 5, timestamp: 9 }],
    ...change,
  });
  const refusals = [
    ['a horizon that is not a time', doc({ horizon: -1 })],
    ['a grant that ended before the horizon', doc({ grants: [{ grantId: 'g1', amount: 20, startTime: 0, endTime: 7 }] })],
    ['a consumption before the horizon', doc({ consumptions: [{ eventId: 'c2', amount: 5, timestamp: 7 }] })],
    [
      'a zero amount on a grant that did not start before the horizon',
      doc({ grants: [{ grantId: 'g1', amount: 0, startTime: 8, endTime: 10 }] }),
    ],
    ['a consumption the carried credit cannot fund', doc({ consumptions: [{ eventId: 'c2', amount: 21, timestamp: 9 }] })],
  ];
  for (const [what, document] of refusals) {
    it(`refuses ${what} with INVALID_SNAPSHOT`, () => {
      const before = GPULedger.wasmHeapBytes();
      const error = thrown(() => GPULedger.fromJSON(document));
      expect(error.code).toBe('INVALID_SNAPSHOT');
      expect(GPULedger.wasmHeapBytes()).toBe(before);
    });
  }
  it('accepts a carried grant with nothing left', () => {
    const copy = GPULedger.fromJSON(doc({ grants: [{ grantId: 'g1', amount: 0, startTime: 0, endTime: 10 }], consumptions: [] }));
    expect(copy.grantsAt(8)).toEqual([{ grantId: 'g1', amount: 0, startTime: 8, endTime: 10, remaining: 0 }]);
    copy.dispose();
  });
});

// --- Differential: random sequences with compact at random points ---

const normalize = (result) => ('error' in result ? { threw: result.error.code ?? result.error.constructor.name } : { value: result.value });

function runSequence(seed, counts) {
  const random = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = (items) => items[int(0, items.length - 1)];
  const ledger = new GPULedger();
  const oracle = new HorizonOracle();
  const log = [];
  const grantIds = [];
  const eventIds = Array.from({ length: 10 }, (_, i) => `e${i}`);
  const call = (method, ...args) => {
    const actual = normalize(outcome(() => ledger[method](...args)));
    const expected = normalize(outcome(() => oracle[method](...args)));
    log.push(`${method}(${args.map((a) => JSON.stringify(a)).join(', ')}) // ${JSON.stringify(expected)}`);
    expect(actual, `seed ${seed}:\n${log.slice(-60).join('\n')}`).toEqual(expected);
    const key = `${method}:${expected.threw ?? 'ok'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return expected;
  };
  for (let i = 0; i < 70; i++) {
    const roll = random();
    const h = oracle.horizon;
    const time = () => int(Math.max(0, h - 3), h + 20);
    if (roll < 0.18 || grantIds.length === 0) {
      const id = `g${i}`;
      const start = time();
      if (!call('addGrant', id, int(1, 8), start, int(start, h + 22)).threw) grantIds.push(id);
    } else if (roll < 0.36) {
      call('consume', pick(eventIds), int(1, 6), time());
    } else if (roll < 0.46) {
      call('tryConsume', pick(eventIds), int(1, 6), time(), { dryRun: random() < 0.5 });
    } else if (roll < 0.54) {
      call('submit', pick(eventIds), int(1, 9), time());
    } else if (roll < 0.6) {
      call('voidGrant', pick(grantIds));
    } else if (roll < 0.7) {
      call('setGrantEnd', pick(grantIds), time() + 2);
    } else if (roll < 0.78) {
      const moved = call('compact', random() < 0.1 ? int(0, h) : h + int(0, 5));
      if (moved.value?.droppedConsumptions > 0) counts.set('dropped', (counts.get('dropped') ?? 0) + 1);
      const copy = GPULedger.fromJSON(ledger.toJSON());
      expect(observe(copy, eventIds), `seed ${seed}: snapshot after compact`).toEqual(observe(ledger, eventIds, { restored: true }));
      copy.dispose();
    } else if (roll < 0.84) {
      call('getBalance', time());
    } else if (roll < 0.88) {
      call('headroom', time());
    } else if (roll < 0.92) {
      call('grantsAt', time());
    } else if (roll < 0.95) {
      call('nextBelow', int(1, 10), time());
    } else {
      const from = time();
      call('balanceCurve', from, from + int(0, 25));
    }
    // After every call: the whole state at and after the horizon, and the queue.
    for (const id of eventIds) expect(ledger.allocations(id), `seed ${seed}: allocations(${id})`).toEqual(oracle.allocations(id));
    expect(ledger.pending(), `seed ${seed}: pending`).toEqual(oracle.pending());
    expect([ledger.grantCount, ledger.consumptionCount, ledger.horizon]).toEqual([
      oracle.grantCount,
      oracle.consumptionCount,
      oracle.horizon,
    ]);
    const h2 = oracle.horizon;
    expect(ledger.balanceCurve(h2, h2 + 30), `seed ${seed}: curve`).toEqual(oracle.balanceCurve(h2, h2 + 30));
  }
  ledger.dispose();
}

describe('compact differential', () => {
  it('matches the oracle call by call on 150 random sequences, refusals included', () => {
    const counts = new Map();
    for (let n = 0; n < 150; n++) runSequence(BASE_SEED + n, counts);
    for (const key of [
      'compact:ok',
      'dropped',
      'addGrant:BEFORE_HORIZON',
      'consume:BEFORE_HORIZON',
      'voidGrant:BEFORE_HORIZON',
      'setGrantEnd:BEFORE_HORIZON',
      'setGrantEnd:ok',
      'getBalance:BEFORE_HORIZON',
      'consume:ok',
    ]) {
      expect(counts.get(key) ?? 0, `${key} never came up: ${JSON.stringify([...counts])}`).toBeGreaterThan(5);
    }
  });
});
