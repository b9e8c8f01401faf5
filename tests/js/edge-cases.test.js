// Every edge case named in docs/semantics.md, through the package entry point.
// Object lifetime and the async loader are in lifetime.test.js.
import { describe, expect, it } from 'vitest';
import { LedgerError } from 'gpu-credit-ledger';
import { snapshot, thrown, trackedLedgers } from './helpers.js';
import { SEED_EXAMPLE_1, runSeed } from './fixtures/seed.js';

const MAX = Number.MAX_SAFE_INTEGER;

const newLedger = trackedLedgers();

describe('grant windows are inclusive', () => {
  it('accepts a draw at startTime and at endTime', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 5, 8);
    expect(ledger.consume('at-start', 3, 5)).toBe(true);
    expect(ledger.consume('at-end', 3, 8)).toBe(true);
    expect(ledger.allocations('at-start')).toEqual([{ grantId: 'g', amount: 3 }]);
    expect(ledger.allocations('at-end')).toEqual([{ grantId: 'g', amount: 3 }]);
    expect(ledger.getBalance(8)).toBe(4);
  });

  it('rejects a draw one tick before startTime or one tick after endTime', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 5, 8);
    expect(ledger.consume('before', 1, 4)).toBe(false);
    expect(ledger.consume('after', 1, 9)).toBe(false);
    expect(ledger.consumptionCount).toBe(0);
  });

  it('counts a grant in the balance exactly on [startTime, endTime]', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 5, 8);
    expect([4, 5, 8, 9].map((t) => ledger.getBalance(t))).toEqual([0, 10, 10, 0]);
  });

  it('supports a single-instant window (startTime == endTime)', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 7, 7);
    expect(ledger.consume('c', 10, 7)).toBe(true);
    expect([6, 7, 8].map((t) => ledger.getBalance(t))).toEqual([0, 0, 0]);
    expect(ledger.balanceCurve(6, 8)).toEqual([[6, 0]]);
  });
});

describe('draw order', () => {
  it('draws the earliest-expiring grant first even when its id is larger', () => {
    const ledger = newLedger();
    ledger.addGrant('a', 10, 0, 20);
    ledger.addGrant('z', 10, 0, 10);
    expect(ledger.consume('c', 15, 5)).toBe(true);
    expect(ledger.allocations('c')).toEqual([
      { grantId: 'z', amount: 10 },
      { grantId: 'a', amount: 5 },
    ]);
  });

  it('breaks a tie between identical windows by the smaller id', () => {
    const ledger = newLedger();
    ledger.addGrant('b', 10, 0, 10);
    ledger.addGrant('a', 10, 0, 10);
    expect(ledger.consume('c1', 5, 3)).toBe(true);
    expect(ledger.allocations('c1')).toEqual([{ grantId: 'a', amount: 5 }]);
    expect(ledger.consume('c2', 8, 3)).toBe(true);
    expect(ledger.allocations('c2')).toEqual([
      { grantId: 'a', amount: 5 },
      { grantId: 'b', amount: 3 },
    ]);
  });

  it('breaks an equal-end tie by id even when the windows start differently', () => {
    const ledger = newLedger();
    ledger.addGrant('b', 10, 0, 10);
    ledger.addGrant('a', 10, 2, 10);
    expect(ledger.consume('c', 4, 5)).toBe(true);
    expect(ledger.allocations('c')).toEqual([{ grantId: 'a', amount: 4 }]);
  });

  for (const order of [
    ['\u{1F600}', '\uFF5E'],
    ['\uFF5E', '\u{1F600}'],
  ]) {
    it(`orders ids by code point, not UTF-16 (added ${order.map((id) => `U+${id.codePointAt(0).toString(16).toUpperCase()}`).join(' then ')})`, () => {
      // UTF-16 puts the surrogate 0xD83D of U+1F600 before U+FF5E; code points do not.
      const ledger = newLedger();
      for (const id of order) ledger.addGrant(id, 10, 0, 10);
      expect(ledger.consume('c', 12, 5)).toBe(true);
      expect(ledger.allocations('c')).toEqual([
        { grantId: '\uFF5E', amount: 10 },
        { grantId: '\u{1F600}', amount: 2 },
      ]);
    });
  }

  it('orders a prefix id before its extensions', () => {
    const ledger = newLedger();
    ledger.addGrant('ab', 10, 0, 10);
    ledger.addGrant('a', 10, 0, 10);
    ledger.addGrant('aa', 10, 0, 10);
    expect(ledger.consume('c', 25, 5)).toBe(true);
    expect(ledger.allocations('c')).toEqual([
      { grantId: 'a', amount: 10 },
      { grantId: 'aa', amount: 10 },
      { grantId: 'ab', amount: 5 },
    ]);
  });

  it('keeps ids with an embedded NUL distinct and intact', () => {
    const ledger = newLedger();
    ledger.addGrant('a\u0000b', 5, 0, 10);
    ledger.addGrant('a', 5, 0, 10);
    ledger.addGrant('a\u0000', 5, 0, 10);
    expect(ledger.grantCount).toBe(3);
    expect(ledger.consume('a\u0000', 12, 3)).toBe(true);
    expect(ledger.allocations('a')).toBeNull();
    expect(ledger.allocations('a\u0000')).toEqual([
      { grantId: 'a', amount: 5 },
      { grantId: 'a\u0000', amount: 5 },
      { grantId: 'a\u0000b', amount: 2 },
    ]);
  });

  it('applies two consumptions at the same timestamp first-accepted first', () => {
    const ledger = newLedger();
    ledger.addGrant('short', 5, 0, 10);
    ledger.addGrant('long', 10, 0, 20);
    expect(ledger.consume('first', 4, 5)).toBe(true);
    expect(ledger.consume('second', 4, 5)).toBe(true);
    expect(ledger.allocations('first')).toEqual([{ grantId: 'short', amount: 4 }]);
    expect(ledger.allocations('second')).toEqual([
      { grantId: 'short', amount: 1 },
      { grantId: 'long', amount: 3 },
    ]);
  });

  it('replays a backdated consumption before later ones, changing their allocations', () => {
    const ledger = newLedger();
    ledger.addGrant('short', 5, 0, 10);
    ledger.addGrant('long', 10, 0, 20);
    expect(ledger.consume('later', 4, 6)).toBe(true);
    expect(ledger.allocations('later')).toEqual([{ grantId: 'short', amount: 4 }]);
    expect(ledger.consume('earlier', 3, 2)).toBe(true);
    expect(ledger.allocations('earlier')).toEqual([{ grantId: 'short', amount: 3 }]);
    expect(ledger.allocations('later')).toEqual([
      { grantId: 'short', amount: 2 },
      { grantId: 'long', amount: 2 },
    ]);
  });
});

describe('funding', () => {
  it('rejects a draw when no grant is active and reports a zero balance', () => {
    const ledger = newLedger();
    expect(ledger.getBalance(0)).toBe(0);
    expect(ledger.consume('c', 1, 0)).toBe(false);
    ledger.addGrant('g', 10, 10, 20);
    expect(ledger.consume('c', 1, 5)).toBe(false);
    expect(ledger.getBalance(5)).toBe(0);
    expect(ledger.balanceCurve(0, 9)).toEqual([[0, 0]]);
  });

  it('accepts a draw of exactly the remaining credit, then rejects one more', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 0, 10);
    expect(ledger.consume('all', 10, 3)).toBe(true);
    expect(ledger.getBalance(3)).toBe(0);
    expect(ledger.consume('one-more', 1, 3)).toBe(false);
    expect(ledger.consume('one-more-later', 1, 9)).toBe(false);
    expect(ledger.consumptionCount).toBe(1);
  });

  it('rejects a draw larger than all active credit and leaves no partial draw', () => {
    const ledger = newLedger();
    ledger.addGrant('g1', 10, 0, 10);
    ledger.addGrant('g2', 10, 0, 10);
    expect(ledger.consume('too-big', 21, 5)).toBe(false);
    expect(ledger.getBalance(5)).toBe(20);
    expect(ledger.allocations('too-big')).toBeNull();
  });

  it('rejects a backdated draw that would unfund a later one', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 0, 10);
    expect(ledger.consume('late', 8, 9)).toBe(true);
    const before = snapshot(ledger, { times: [0, 2, 9, 11], eventIds: ['late', 'early'] });
    expect(ledger.consume('early', 3, 2)).toBe(false);
    expect(snapshot(ledger, { times: [0, 2, 9, 11], eventIds: ['late', 'early'] })).toEqual(before);
  });

  it('accepts a backdated draw when a later one stays funded from another grant', () => {
    const ledger = newLedger();
    ledger.addGrant('early', 10, 0, 5);
    ledger.addGrant('late', 10, 0, 20);
    expect(ledger.consume('c-late', 15, 4)).toBe(true);
    expect(ledger.consume('c-early', 5, 1)).toBe(true);
    expect(ledger.allocations('c-early')).toEqual([{ grantId: 'early', amount: 5 }]);
    expect(ledger.allocations('c-late')).toEqual([
      { grantId: 'early', amount: 5 },
      { grantId: 'late', amount: 10 },
    ]);
    expect(ledger.getBalance(4)).toBe(0);
  });

  it('re-allocates an earlier consumption when a later-added grant expires sooner', () => {
    const ledger = newLedger();
    ledger.addGrant('long', 100, 0, 20);
    expect(ledger.consume('c', 10, 5)).toBe(true);
    expect(ledger.allocations('c')).toEqual([{ grantId: 'long', amount: 10 }]);
    ledger.addGrant('short', 100, 0, 10);
    expect(ledger.allocations('c')).toEqual([{ grantId: 'short', amount: 10 }]);
    expect(ledger.getBalance(5)).toBe(190);
    expect(ledger.getBalance(11)).toBe(100);
    expect(ledger.consumptionCount).toBe(1);
  });

  it('ignores consumptions after the queried time in getBalance', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 100, 0, 20);
    expect(ledger.consume('c', 30, 15)).toBe(true);
    expect(ledger.getBalance(14)).toBe(100);
    expect(ledger.getBalance(15)).toBe(70);
    expect(ledger.getBalance(20)).toBe(70);
  });

  it('keeps balances exact at the top of the safe-integer range', () => {
    const ledger = newLedger();
    ledger.addGrant('huge', MAX, 0, MAX);
    expect(ledger.consume('c', MAX - 1, MAX)).toBe(true);
    expect(ledger.getBalance(MAX)).toBe(1);
    expect(ledger.getBalance(MAX - 1)).toBe(MAX);
    expect(ledger.consume('d', 2, MAX)).toBe(false);
    expect(ledger.balanceCurve(0, MAX)).toEqual([
      [0, MAX],
      [MAX, 1],
    ]);
  });
});

describe('identity and retries', () => {
  it('treats an identical addGrant as a no-op retry', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 0, 10);
    expect(ledger.addGrant('g', 10, 0, 10)).toBeUndefined();
    expect(ledger.grantCount).toBe(1);
    expect(ledger.getBalance(5)).toBe(10);
  });

  it('returns true for an identical consume retry without charging twice', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 0, 10);
    expect(ledger.consume('c', 4, 5)).toBe(true);
    expect(ledger.consume('c', 4, 5)).toBe(true);
    expect(ledger.getBalance(5)).toBe(6);
    expect(ledger.consumptionCount).toBe(1);
    expect(ledger.allocations('c')).toEqual([{ grantId: 'g', amount: 4 }]);
  });

  it('returns true for a retry even when no credit is left for a new draw', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 0, 10);
    expect(ledger.consume('c', 10, 5)).toBe(true);
    expect(ledger.consume('c', 10, 5)).toBe(true);
    expect(ledger.getBalance(5)).toBe(0);
  });

  const grantVariants = [
    ['amount', ['g', 11, 0, 10]],
    ['startTime', ['g', 10, 1, 10]],
    ['endTime', ['g', 10, 0, 11]],
  ];
  for (const [what, args] of grantVariants) {
    it(`throws DUPLICATE_ID for an existing grant id with a different ${what}, changing nothing`, () => {
      const ledger = newLedger();
      ledger.addGrant('g', 10, 0, 10);
      expect(ledger.consume('c', 3, 5)).toBe(true);
      const options = { times: [0, 5, 10, 11], eventIds: ['c'], to: 20 };
      const before = snapshot(ledger, options);
      const error = thrown(() => ledger.addGrant(...args));
      expect(error).toBeInstanceOf(LedgerError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe('DUPLICATE_ID');
      expect(snapshot(ledger, options)).toEqual(before);
    });
  }

  const consumeVariants = [
    ['amount', ['c', 4, 5]],
    ['timestamp', ['c', 3, 6]],
  ];
  for (const [what, args] of consumeVariants) {
    it(`throws DUPLICATE_ID for an accepted event id with a different ${what}, changing nothing`, () => {
      const ledger = newLedger();
      ledger.addGrant('g', 10, 0, 10);
      expect(ledger.consume('c', 3, 5)).toBe(true);
      const options = { times: [0, 5, 6, 10], eventIds: ['c'], to: 20 };
      const before = snapshot(ledger, options);
      const error = thrown(() => ledger.consume(...args));
      expect(error).toBeInstanceOf(LedgerError);
      expect(error.code).toBe('DUPLICATE_ID');
      expect(snapshot(ledger, options)).toEqual(before);
    });
  }

  it('accepts a rejected event id later, after a top-up grant', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 0, 10);
    expect(ledger.consume('c', 15, 5)).toBe(false);
    expect(ledger.allocations('c')).toBeNull();
    ledger.addGrant('top-up', 5, 5, 5);
    expect(ledger.consume('c', 15, 5)).toBe(true);
    expect(ledger.allocations('c')).toEqual([
      { grantId: 'top-up', amount: 5 },
      { grantId: 'g', amount: 10 },
    ]);
  });

  it('lets a rejected event id be reused with different parameters', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 0, 10);
    expect(ledger.consume('c', 15, 5)).toBe(false);
    expect(ledger.consume('c', 5, 7)).toBe(true);
    expect(ledger.allocations('c')).toEqual([{ grantId: 'g', amount: 5 }]);
  });

  it('keeps grant ids and event ids in separate namespaces', () => {
    const ledger = newLedger();
    ledger.addGrant('x', 10, 0, 10);
    expect(ledger.consume('x', 4, 5)).toBe(true);
    expect(ledger.allocations('x')).toEqual([{ grantId: 'x', amount: 4 }]);
    ledger.addGrant('y', 10, 0, 10);
    expect(ledger.grantCount).toBe(2);
    expect(ledger.consumptionCount).toBe(1);
    expect(ledger.allocations('y')).toBeNull();
  });

  it('returns allocations the caller can mutate without touching the ledger', () => {
    const ledger = newLedger();
    ledger.addGrant('g', 10, 0, 10);
    ledger.consume('c', 4, 5);
    const allocations = ledger.allocations('c');
    allocations[0].amount = 999;
    allocations.push({ grantId: 'fake', amount: 1 });
    expect(ledger.allocations('c')).toEqual([{ grantId: 'g', amount: 4 }]);
  });
});

describe('balanceCurve', () => {
  function seedLedger() {
    const ledger = newLedger();
    runSeed(ledger, SEED_EXAMPLE_1);
    return ledger;
  }

  it('starts at `from` with its balance and stops at `to` inclusive', () => {
    const ledger = seedLedger();
    expect(ledger.balanceCurve(7, 11)).toEqual([
      [7, 70],
      [11, 10],
    ]);
    expect(ledger.balanceCurve(7, 10)).toEqual([[7, 70]]);
    expect(ledger.balanceCurve(16, 16)).toEqual([[16, 0]]);
  });

  it('omits times where the balance does not change', () => {
    const ledger = newLedger();
    ledger.addGrant('a', 10, 0, 4);
    ledger.addGrant('b', 10, 5, 9); // a ends at 4, b starts at 5: balance stays 10
    expect(ledger.balanceCurve(0, 12)).toEqual([
      [0, 10],
      [10, 0],
    ]);
  });
});
