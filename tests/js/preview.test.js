// Previews, grant lifecycle and pending queue by example: headroom, tryConsume (reasons, dry runs), grantsAt, burnDown,
// nextBelow, grant lifecycle and pending consumptions, plus every kind of bad input for
// the new methods (right error class, unchanged ledger).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { snapshot, thrown } from './helpers.js';

const MAX = Number.MAX_SAFE_INTEGER;
const PROBE = { times: [0, 1, 2, 5, 6, 8, 10, 11, 15, 16, 30], eventIds: ['c1', 'c2', 'c3', 'c_late', 'c_early', 'x', 'p'], from: 0, to: 40 };

// Everything observable, including the preview views, for "nothing changed" checks.
function fullState(ledger) {
  return {
    ...snapshot(ledger, PROBE),
    headroom: PROBE.times.map((t) => ledger.headroom(t)),
    grantsAt: PROBE.times.map((t) => ledger.grantsAt(t)),
    pending: ledger.pending(),
  };
}

let ledger;
beforeEach(() => {
  ledger = new GPULedger();
});
afterEach(() => {
  if (!ledger.disposed) ledger.dispose();
});

function seedExampleOne() {
  ledger.addGrant('g1', 100, 0, 10);
  ledger.addGrant('g2', 50, 5, 15);
  expect(ledger.consume('c1', 80, 6)).toBe(true);
}

describe('headroom', () => {
  it('is lower than the balance when a later consumption reserves credit', () => {
    ledger.addGrant('g', 4, 0, 2);
    ledger.consume('c', 1, 1);
    expect(ledger.getBalance(0)).toBe(4);
    expect(ledger.headroom(0)).toBe(3);
    expect(ledger.headroom(2)).toBe(3);
    expect(ledger.headroom(3)).toBe(0);
    expect(ledger.consume('x', 4, 0)).toBe(false);
    expect(ledger.consume('x', 3, 0)).toBe(true);
  });

  it('sees chains of times that no single window shows (docs/algorithms.md, fact 5)', () => {
    ledger.addGrant('g1', 1, 0, 2);
    ledger.addGrant('g2', 2, 1, 1);
    ledger.consume('a', 1, 0);
    expect([0, 1, 2].map((t) => ledger.headroom(t))).toEqual([0, 2, 0]);
  });

  it('is exact at the largest amounts', () => {
    expect(ledger.headroom(0)).toBe(0);
    ledger.addGrant('all', MAX, 0, MAX);
    expect(ledger.headroom(MAX)).toBe(MAX);
    ledger.consume('c', MAX - 1, MAX);
    expect(ledger.headroom(0)).toBe(1);
  });
});

describe('tryConsume', () => {
  it('explains the seed rejections', () => {
    seedExampleOne();
    expect(ledger.tryConsume('c2', 60, 11)).toEqual({ accepted: false, allocations: [], reason: 'INSUFFICIENT_CREDIT', blockingEventId: null });
    expect(ledger.tryConsume('c3', 40, 11)).toEqual({ accepted: true, allocations: [{ grantId: 'g2', amount: 40 }], reason: null, blockingEventId: null });
    expect(ledger.getBalance(11)).toBe(10);

    const other = new GPULedger();
    other.addGrant('g1', 100, 0, 10);
    other.consume('c_late', 80, 8);
    expect(other.tryConsume('c_early', 30, 2)).toEqual({ accepted: false, allocations: [], reason: 'WOULD_UNFUND', blockingEventId: 'c_late' });
    expect(other.getBalance(8)).toBe(20);
    other.dispose();
  });

  it('names the earliest blocker in replay order; a new consumption comes after equal timestamps', () => {
    ledger.addGrant('g', 10, 0, 10);
    ledger.consume('b', 4, 5);
    ledger.consume('a', 4, 5);
    ledger.consume('z', 2, 9);
    expect(ledger.tryConsume('n', 3, 5, { dryRun: true }).reason).toBe('INSUFFICIENT_CREDIT');
    expect(ledger.tryConsume('n', 3, 4, { dryRun: true }).blockingEventId).toBe('a');
    expect(ledger.tryConsume('n', 1, 4, { dryRun: true }).blockingEventId).toBe('z');
  });

  it('with dryRun changes nothing and predicts the real call', () => {
    ledger.addGrant('g1', 10, 0, 10);
    ledger.addGrant('g2', 10, 5, 20);
    ledger.consume('c_late', 12, 9);
    const before = fullState(ledger);
    const dry = ledger.tryConsume('x', 5, 6, { dryRun: true });
    expect(ledger.tryConsume('c_early', 9, 3, { dryRun: true })).toMatchObject({ accepted: false, reason: 'WOULD_UNFUND', blockingEventId: 'c_late' });
    expect(ledger.tryConsume('x', 50, 6, { dryRun: true }).reason).toBe('INSUFFICIENT_CREDIT');
    expect(fullState(ledger)).toEqual(before);
    expect(dry.accepted).toBe(true);
    expect(ledger.tryConsume('x', 5, 6, { dryRun: false })).toEqual(dry);
    expect(ledger.allocations('x')).toEqual(dry.allocations);
  });

  it('follows the retry and DUPLICATE_ID rules of consume', () => {
    ledger.addGrant('g', 10, 0, 10);
    expect(ledger.tryConsume('c1', 4, 3).accepted).toBe(true);
    expect(ledger.tryConsume('c1', 4, 3)).toEqual({ accepted: true, allocations: [{ grantId: 'g', amount: 4 }], reason: null, blockingEventId: null });
    expect(ledger.tryConsume('c1', 4, 3, { dryRun: true }).accepted).toBe(true);
    expect(ledger.getBalance(3)).toBe(6);
    expect(thrown(() => ledger.tryConsume('c1', 5, 3)).code).toBe('DUPLICATE_ID');
    expect(thrown(() => ledger.tryConsume('c1', 4, 4, { dryRun: true })).code).toBe('DUPLICATE_ID');
    // A rejected id leaves no trace and can be retried.
    expect(ledger.tryConsume('c2', 7, 3).accepted).toBe(false);
    ledger.addGrant('top', 1, 0, 10);
    expect(ledger.tryConsume('c2', 7, 3).accepted).toBe(true);
  });
});

describe('grantsAt and burnDown', () => {
  it('lists valid grants in draw order with what remains, summing to the balance', () => {
    seedExampleOne();
    ledger.consume('c3', 40, 11);
    expect(ledger.grantsAt(6)).toEqual([
      { grantId: 'g1', amount: 100, startTime: 0, endTime: 10, remaining: 20 },
      { grantId: 'g2', amount: 50, startTime: 5, endTime: 15, remaining: 50 },
    ]);
    expect(ledger.grantsAt(11)).toEqual([{ grantId: 'g2', amount: 50, startTime: 5, endTime: 15, remaining: 10 }]);
    expect(ledger.grantsAt(16)).toEqual([]);
    for (const t of PROBE.times) {
      expect(ledger.grantsAt(t).reduce((sum, g) => sum + g.remaining, 0)).toBe(ledger.getBalance(t));
    }
  });

  it('orders equal end times by code point, not UTF-16', () => {
    ledger.addGrant('\u{1F600}', 1, 0, 5);
    ledger.addGrant('\uFF5E', 1, 0, 5);
    expect(ledger.grantsAt(0).map((g) => g.grantId)).toEqual(['\uFF5E', '\u{1F600}']);
  });

  it('shows a grant draws in replay order and its remaining step curve', () => {
    ledger.addGrant('g', 100, 2, 20);
    ledger.consume('c2', 30, 9);
    ledger.consume('c1', 10, 2);
    ledger.consume('c3', 5, 9);
    expect(ledger.burnDown('g')).toEqual({
      grantId: 'g',
      amount: 100,
      startTime: 2,
      endTime: 20,
      draws: [
        { timestamp: 2, eventId: 'c1', amount: 10 },
        { timestamp: 9, eventId: 'c2', amount: 30 },
        { timestamp: 9, eventId: 'c3', amount: 5 },
      ],
      remaining: [
        [2, 90],
        [9, 55],
      ],
    });
    expect(ledger.burnDown('nope')).toBeNull();
  });
});

describe('nextBelow', () => {
  it('finds the first time the balance drops under a threshold', () => {
    seedExampleOne(); // 100 on [0,4], 150 at 5, 70 on [6,10], 50 on [11,15], then 0
    expect(ledger.nextBelow(101, 0)).toBe(0);
    expect(ledger.nextBelow(100, 0)).toBe(6);
    expect(ledger.nextBelow(60, 0)).toBe(11);
    expect(ledger.nextBelow(1, 12)).toBe(16);
    ledger.addGrant('forever', 5, 0, MAX);
    expect(ledger.nextBelow(1, 0)).toBeNull();
    expect(ledger.nextBelow(6, 0)).toBe(16);
    expect(ledger.nextBelow(MAX, MAX)).toBe(MAX);
  });
});

describe('grant lifecycle', () => {
  it('voidGrant is refused when it would unfund, and the id is free afterwards', () => {
    ledger.addGrant('a', 10, 0, 10);
    ledger.addGrant('b', 10, 0, 20);
    ledger.consume('c1', 8, 5);
    ledger.consume('c2', 8, 6);
    const before = fullState(ledger);
    expect(ledger.voidGrant('a')).toEqual({ applied: false, blockingEventId: 'c2' });
    expect(fullState(ledger)).toEqual(before);
    ledger.addGrant('c', 10, 0, 20);
    expect(ledger.voidGrant('a')).toEqual({ applied: true, blockingEventId: null });
    expect(ledger.grantCount).toBe(2);
    expect(ledger.allocations('c2')).toEqual([
      { grantId: 'b', amount: 2 },
      { grantId: 'c', amount: 6 },
    ]);
    expect(ledger.burnDown('a')).toBeNull();
    ledger.addGrant('a', 1, 30, 30); // reused with new parameters
    expect(ledger.getBalance(30)).toBe(1);
  });

  it('setGrantEnd shortens or extends atomically', () => {
    ledger.addGrant('g', 10, 0, 10);
    ledger.consume('c1', 4, 8);
    const before = fullState(ledger);
    expect(ledger.setGrantEnd('g', 7)).toEqual({ applied: false, blockingEventId: 'c1', acceptedPending: [] });
    expect(fullState(ledger)).toEqual(before);
    expect(ledger.setGrantEnd('g', 8)).toEqual({ applied: true, blockingEventId: null, acceptedPending: [] });
    expect(ledger.getBalance(9)).toBe(0);
    expect(ledger.setGrantEnd('g', 20).applied).toBe(true);
    expect(ledger.getBalance(20)).toBe(6);
    expect(ledger.toJSON().grants).toEqual([{ grantId: 'g', amount: 10, startTime: 0, endTime: 20 }]);
  });
});

describe('pending consumptions', () => {
  it('wait for credit and are accepted in (timestamp, arrival) order', () => {
    ledger.addGrant('g', 5, 0, 100);
    expect(ledger.submit('p1', 5, 50)).toBe('accepted');
    expect(ledger.submit('p3', 4, 40)).toBe('queued');
    expect(ledger.submit('p2', 4, 30)).toBe('queued');
    expect(ledger.submit('p4', 4, 30)).toBe('queued');
    expect(ledger.pending()).toEqual([
      { eventId: 'p2', amount: 4, timestamp: 30 },
      { eventId: 'p4', amount: 4, timestamp: 30 },
      { eventId: 'p3', amount: 4, timestamp: 40 },
    ]);
    expect(ledger.submit('p2', 4, 30)).toBe('queued');
    expect(ledger.submit('p1', 5, 50)).toBe('accepted');
    const heard = [];
    const unsubscribe = ledger.onPendingAccepted((accepted) => heard.push(accepted));
    ledger.addGrant('top', 9, 0, 100);
    expect(heard).toEqual([
      [
        // Replayed before p1 (at 50), they draw g first (same end, smaller id); p1 moves to top.
        { eventId: 'p2', amount: 4, timestamp: 30, allocations: [{ grantId: 'g', amount: 4 }] },
        {
          eventId: 'p4',
          amount: 4,
          timestamp: 30,
          allocations: [
            { grantId: 'g', amount: 1 },
            { grantId: 'top', amount: 3 },
          ],
        },
      ],
    ]);
    expect(ledger.allocations('p1')).toEqual([{ grantId: 'top', amount: 5 }]);
    expect(ledger.pending().map((p) => p.eventId)).toEqual(['p3']);
    expect(ledger.cancelPending('p3')).toBe(true);
    expect(ledger.cancelPending('p3')).toBe(false);
    expect(ledger.cancelPending('p1')).toBe(false);
    unsubscribe();
    unsubscribe();
    ledger.submit('p5', 50, 1);
    ledger.addGrant('more', 100, 0, 100);
    expect(heard).toHaveLength(1);
    expect(ledger.consumptionCount).toBe(4);
  });

  it('share the event id namespace with accepted consumptions', () => {
    ledger.addGrant('g', 5, 0, 10);
    expect(ledger.submit('p', 9, 3)).toBe('queued');
    expect(thrown(() => ledger.submit('p', 9, 4)).code).toBe('DUPLICATE_ID');
    expect(thrown(() => ledger.consume('p', 8, 3)).code).toBe('DUPLICATE_ID');
    expect(thrown(() => ledger.tryConsume('p', 9, 2, { dryRun: true })).code).toBe('DUPLICATE_ID');
    // Identical: tried now, rejected, still queued.
    expect(ledger.consume('p', 9, 3)).toBe(false);
    expect(ledger.tryConsume('p', 9, 3).reason).toBe('INSUFFICIENT_CREDIT');
    expect(ledger.pending()).toHaveLength(1);
    ledger.consume('c', 1, 3);
    expect(thrown(() => ledger.submit('c', 2, 3)).code).toBe('DUPLICATE_ID');
    ledger.addGrant('p', 1, 0, 1); // grant ids are a separate namespace
  });

  it('an extension lets queued ones in and reports them in its result and to listeners', () => {
    ledger.addGrant('g', 5, 0, 10);
    ledger.submit('late', 3, 15);
    const heard = [];
    ledger.onPendingAccepted((accepted) => heard.push(...accepted.map((p) => p.eventId)));
    expect(ledger.setGrantEnd('g', 9).acceptedPending).toEqual([]);
    expect(ledger.setGrantEnd('g', 20)).toEqual({ applied: true, blockingEventId: null, acceptedPending: ['late'] });
    expect(heard).toEqual(['late']);
    expect(ledger.pending()).toEqual([]);
  });

  it('a listener that throws does not stop the others or undo the change', () => {
    ledger.addGrant('g', 1, 0, 10);
    ledger.submit('p', 3, 5);
    const rethrown = [];
    const spy = vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => rethrown.push(task));
    const heard = [];
    ledger.onPendingAccepted(() => {
      throw new Error('listener failed');
    });
    ledger.onPendingAccepted((accepted) => heard.push(accepted.length));
    try {
      ledger.addGrant('h', 5, 0, 10);
    } finally {
      spy.mockRestore();
    }
    expect(heard).toEqual([1]);
    expect(ledger.allocations('p')).not.toBeNull();
    expect(rethrown).toHaveLength(1);
    expect(() => rethrown[0]()).toThrow('listener failed');
  });
});

describe('bad input to the preview, grant-lifecycle and pending-queue methods', () => {
  const WRONG_NUMBERS = ['5', null, undefined, {}, [5], 5n, true];
  const BAD_NUMBERS = [NaN, Infinity, -1, 1.5, 2 ** 53];
  const WRONG_IDS = [5, null, undefined, {}, ['a'], 5n];
  const BAD_IDS = ['', '\uD800', 'x'.repeat(1025)];

  function expectRefused(call, errorClass) {
    const before = fullState(ledger);
    const error = thrown(call);
    expect(error).toBeInstanceOf(errorClass);
    expect(fullState(ledger)).toEqual(before);
    return error;
  }

  beforeEach(() => {
    seedExampleOne();
    ledger.submit('p', 500, 8);
  });

  it('refuses wrong types with TypeError and bad values with RangeError, naming the argument', () => {
    for (const value of WRONG_NUMBERS) {
      expect(expectRefused(() => ledger.headroom(value), TypeError).message).toMatch(/timestamp/);
      expectRefused(() => ledger.tryConsume('x', value, 1), TypeError);
      expectRefused(() => ledger.tryConsume('x', 1, value, { dryRun: true }), TypeError);
      expectRefused(() => ledger.grantsAt(value), TypeError);
      expect(expectRefused(() => ledger.nextBelow(value, 0), TypeError).message).toMatch(/threshold/);
      expectRefused(() => ledger.nextBelow(1, value), TypeError);
      expect(expectRefused(() => ledger.setGrantEnd('g1', value), TypeError).message).toMatch(/endTime/);
      expectRefused(() => ledger.submit('x', value, 1), TypeError);
    }
    for (const value of BAD_NUMBERS) {
      expectRefused(() => ledger.headroom(value), RangeError);
      expectRefused(() => ledger.tryConsume('x', value, 1), RangeError);
      expectRefused(() => ledger.grantsAt(value), RangeError);
      expectRefused(() => ledger.nextBelow(value, 0), RangeError);
      expectRefused(() => ledger.nextBelow(1, value), RangeError);
      expectRefused(() => ledger.setGrantEnd('g1', value), RangeError);
      expectRefused(() => ledger.submit('x', 1, value), RangeError);
    }
    expect(expectRefused(() => ledger.nextBelow(0, 0), RangeError).message).toMatch(/threshold/);
    const idCalls = [
      (id) => ledger.tryConsume(id, 1, 1),
      (id) => ledger.burnDown(id),
      (id) => ledger.voidGrant(id),
      (id) => ledger.setGrantEnd(id, 5),
      (id) => ledger.submit(id, 1, 1),
      (id) => ledger.cancelPending(id),
    ];
    for (const [ids, kind] of [[WRONG_IDS, TypeError], [BAD_IDS, RangeError]]) {
      for (const id of ids) {
        for (const call of idCalls) expectRefused(() => call(id), kind);
      }
    }
  });

  it('refuses bad tryConsume options with TypeError, so a typo cannot charge', () => {
    for (const options of [null, 5, 'dry', [true], { dryrun: true }, { dryRun: 1 }, { dryRun: 'true' }, { dryRun: true, extra: 1 }]) {
      expect(expectRefused(() => ledger.tryConsume('x', 1, 1, options), TypeError).message).toMatch(/option/);
    }
    expect(ledger.consumptionCount).toBe(1);
  });

  it('refuses unknown grants, windows and listeners', () => {
    expect(expectRefused(() => ledger.voidGrant('nope'), LedgerError).code).toBe('UNKNOWN_ID');
    expect(expectRefused(() => ledger.setGrantEnd('nope', 5), LedgerError).code).toBe('UNKNOWN_ID');
    expect(expectRefused(() => ledger.setGrantEnd('g2', 4), RangeError).message).toMatch(/startTime/);
    expect(expectRefused(() => ledger.onPendingAccepted('not a function'), TypeError).message).toMatch(/listener/);
    expect(expectRefused(() => ledger.submit('p', 500, 9), LedgerError).code).toBe('DUPLICATE_ID');
  });

  it('throws DISPOSED from every new method of a disposed ledger', () => {
    ledger.dispose();
    for (const call of [
      () => ledger.headroom(0),
      () => ledger.tryConsume('x', 1, 1),
      () => ledger.grantsAt(0),
      () => ledger.burnDown('g1'),
      () => ledger.nextBelow(1, 0),
      () => ledger.voidGrant('g1'),
      () => ledger.setGrantEnd('g1', 5),
      () => ledger.submit('x', 1, 1),
      () => ledger.pending(),
      () => ledger.cancelPending('p'),
      () => ledger.onPendingAccepted(() => {}),
    ]) {
      expect(thrown(call).code).toBe('DISPOSED');
    }
  });
});
