// The grant lifecycle: voidGrant and setGrantEnd are atomic, refused with the blocking
// event when they would unfund an accepted consumption.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { PROBE, fullState } from './helpers.js';

let ledger;
beforeEach(() => {
  ledger = new GPULedger();
});
afterEach(() => {
  if (!ledger.disposed) ledger.dispose();
});

describe('grant lifecycle', () => {
  it('voidGrant is refused when it would unfund, and the id is free afterwards', () => {
    ledger.addGrant('a', 10, 0, 10);
    ledger.addGrant('b', 10, 0, 20);
    ledger.consume('c1', 8, 5);
    ledger.consume('c2', 8, 6);
    const before = fullState(ledger, PROBE);
    expect(ledger.voidGrant('a')).toEqual({ applied: false, blockingEventId: 'c2' });
    expect(fullState(ledger, PROBE)).toEqual(before);
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
    const before = fullState(ledger, PROBE);
    expect(ledger.setGrantEnd('g', 7)).toEqual({ applied: false, blockingEventId: 'c1', acceptedPending: [] });
    expect(fullState(ledger, PROBE)).toEqual(before);
    expect(ledger.setGrantEnd('g', 8)).toEqual({ applied: true, blockingEventId: null, acceptedPending: [] });
    expect(ledger.getBalance(9)).toBe(0);
    expect(ledger.setGrantEnd('g', 20).applied).toBe(true);
    expect(ledger.getBalance(20)).toBe(6);
    expect(ledger.toJSON().grants).toEqual([{ grantId: 'g', amount: 10, startTime: 0, endTime: 20 }]);
  });
});
