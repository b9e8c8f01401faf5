// Previews that change nothing: tryConsume (reasons, dry runs), grantsAt, burnDown and
// nextBelow, by example.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { SEED_EXAMPLE_1, SEED_EXAMPLE_2, runSeed } from './fixtures/seed.js';
import { PROBE, fullState, thrown } from './helpers.js';

const MAX = Number.MAX_SAFE_INTEGER;

let ledger;
beforeEach(() => {
  ledger = new GPULedger();
});
afterEach(() => {
  if (!ledger.disposed) ledger.dispose();
});

describe('tryConsume', () => {
  it('explains the seed rejections', () => {
    runSeed(ledger, SEED_EXAMPLE_1, 3); // g1, g2, c1
    expect(ledger.tryConsume('c2', 60, 11)).toEqual({
      accepted: false,
      allocations: [],
      reason: 'INSUFFICIENT_CREDIT',
      blockingEventId: null,
    });
    expect(ledger.tryConsume('c3', 40, 11)).toEqual({
      accepted: true,
      allocations: [{ grantId: 'g2', amount: 40 }],
      reason: null,
      blockingEventId: null,
    });
    expect(ledger.getBalance(11)).toBe(10);

    const other = new GPULedger();
    runSeed(other, SEED_EXAMPLE_2, 2); // g1, c_late
    expect(other.tryConsume('c_early', 30, 2)).toEqual({
      accepted: false,
      allocations: [],
      reason: 'WOULD_UNFUND',
      blockingEventId: 'c_late',
    });
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
    const before = fullState(ledger, PROBE);
    const dry = ledger.tryConsume('x', 5, 6, { dryRun: true });
    expect(ledger.tryConsume('c_early', 9, 3, { dryRun: true })).toMatchObject({
      accepted: false,
      reason: 'WOULD_UNFUND',
      blockingEventId: 'c_late',
    });
    expect(ledger.tryConsume('x', 50, 6, { dryRun: true }).reason).toBe('INSUFFICIENT_CREDIT');
    expect(fullState(ledger, PROBE)).toEqual(before);
    expect(dry.accepted).toBe(true);
    expect(ledger.tryConsume('x', 5, 6, { dryRun: false })).toEqual(dry);
    expect(ledger.allocations('x')).toEqual(dry.allocations);
  });

  it('follows the retry and DUPLICATE_ID rules of consume', () => {
    ledger.addGrant('g', 10, 0, 10);
    expect(ledger.tryConsume('c1', 4, 3).accepted).toBe(true);
    expect(ledger.tryConsume('c1', 4, 3)).toEqual({
      accepted: true,
      allocations: [{ grantId: 'g', amount: 4 }],
      reason: null,
      blockingEventId: null,
    });
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
    runSeed(ledger, SEED_EXAMPLE_1);
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
    runSeed(ledger, SEED_EXAMPLE_1, 3); // g1, g2, c1: 100 on [0,4], 150 at 5, 70 on [6,10], 50 on [11,15], then 0
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
