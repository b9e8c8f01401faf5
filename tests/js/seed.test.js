// The two normative seed examples from docs/semantics.md, verbatim.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';

describe('seed example 1: earliest-expiring grant drawn first', () => {
  it('draws c1 from g1 before g2, rejects c2 after g1 expires, accepts c3', () => {
    const ledger = new GPULedger();
    ledger.addGrant('g1', 100, 0, 10);
    ledger.addGrant('g2', 50, 5, 15);

    expect(ledger.consume('c1', 80, 6)).toBe(true);
    expect(ledger.allocations('c1')).toEqual([{ grantId: 'g1', amount: 80 }]);
    expect(ledger.getBalance(6)).toBe(70);

    expect(ledger.consume('c2', 60, 11)).toBe(false);
    expect(ledger.allocations('c2')).toBeNull();

    expect(ledger.consume('c3', 40, 11)).toBe(true);
    expect(ledger.allocations('c3')).toEqual([{ grantId: 'g2', amount: 40 }]);
    expect(ledger.getBalance(11)).toBe(10);

    expect(ledger.grantCount).toBe(2);
    expect(ledger.consumptionCount).toBe(2);
    ledger.dispose();
  });
});

describe('seed example 2: a backdated draw cannot unfund a later one', () => {
  it('rejects a backdated draw that would unfund a later one', () => {
    const ledger = new GPULedger();
    ledger.addGrant('g1', 100, 0, 10);

    expect(ledger.consume('c_late', 80, 8)).toBe(true);
    expect(ledger.consume('c_early', 30, 2)).toBe(false);
    expect(ledger.getBalance(8)).toBe(20);

    expect(ledger.allocations('c_early')).toBeNull();
    expect(ledger.allocations('c_late')).toEqual([{ grantId: 'g1', amount: 80 }]);
    expect(ledger.consumptionCount).toBe(1);
    ledger.dispose();
  });
});
