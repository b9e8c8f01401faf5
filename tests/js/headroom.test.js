// headroom(t): the largest amount consume(_, amount, t) would accept now, exactly
// (docs/algorithms.md gives the formula and the chain counterexample).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';

const MAX = Number.MAX_SAFE_INTEGER;

let ledger;
beforeEach(() => {
  ledger = new GPULedger();
});
afterEach(() => {
  if (!ledger.disposed) ledger.dispose();
});

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
