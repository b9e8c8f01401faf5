// Object lifetime: dispose, Symbol.dispose, DISPOSED from every member, independence of
// ledgers, and the async loader entry. (Heap hygiene over many ledgers: limits.test.js.)
import { describe, expect, it } from 'vitest';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { loadLedger } from 'gpu-credit-ledger/load';
import { SEED_EXAMPLE_1, runSeed } from './fixtures/seed.js';
import { disposeSymbol, thrown, trackedLedgers } from './helpers.js';

const newLedger = trackedLedgers();

describe('lifetime', () => {
  const methods = [
    ['addGrant', (l) => l.addGrant('g', 1, 0, 1)],
    ['consume', (l) => l.consume('c', 1, 0)],
    ['getBalance', (l) => l.getBalance(0)],
    ['allocations', (l) => l.allocations('c')],
    ['balanceCurve', (l) => l.balanceCurve(0, 1)],
    ['grantCount', (l) => l.grantCount],
    ['consumptionCount', (l) => l.consumptionCount],
    ['headroom', (l) => l.headroom(0)],
    ['tryConsume', (l) => l.tryConsume('x', 1, 1)],
    ['grantsAt', (l) => l.grantsAt(0)],
    ['burnDown', (l) => l.burnDown('g')],
    ['nextBelow', (l) => l.nextBelow(1, 0)],
    ['voidGrant', (l) => l.voidGrant('g')],
    ['setGrantEnd', (l) => l.setGrantEnd('g', 5)],
    ['submit', (l) => l.submit('x', 1, 1)],
    ['pending', (l) => l.pending()],
    ['cancelPending', (l) => l.cancelPending('p')],
    ['onPendingAccepted', (l) => l.onPendingAccepted(() => {})],
    ['reallocated', (l) => l.reallocated()],
    ['toJSON', (l) => l.toJSON()],
  ];

  for (const [name, call] of methods) {
    it(`throws DISPOSED from ${name} after dispose`, () => {
      const ledger = new GPULedger();
      ledger.addGrant('g', 10, 0, 10);
      ledger.dispose();
      const error = thrown(() => call(ledger));
      expect(error).toBeInstanceOf(LedgerError);
      expect(error.code).toBe('DISPOSED');
    });
  }

  it('treats a second dispose as harmless', () => {
    const ledger = new GPULedger();
    ledger.dispose();
    expect(() => ledger.dispose()).not.toThrow();
    expect(() => ledger[disposeSymbol]()).not.toThrow();
  });

  it('disposes through Symbol.dispose', () => {
    const ledger = new GPULedger();
    ledger[disposeSymbol]();
    expect(thrown(() => ledger.getBalance(0)).code).toBe('DISPOSED');
  });

  it('keeps other ledgers working when one is disposed', () => {
    const kept = newLedger();
    const dropped = new GPULedger();
    kept.addGrant('g', 10, 0, 10);
    dropped.addGrant('g', 99, 0, 10);
    dropped.dispose();
    expect(kept.getBalance(5)).toBe(10);
    expect(kept.consume('c', 10, 5)).toBe(true);
  });

  it('keeps independent state per ledger', () => {
    const a = newLedger();
    const b = newLedger();
    a.addGrant('g', 10, 0, 10);
    expect(b.getBalance(5)).toBe(0);
    expect(b.consume('c', 1, 5)).toBe(false);
    expect(a.consume('c', 1, 5)).toBe(true);
  });
});

describe("the 'gpu-credit-ledger/load' entry", () => {
  it('loads a working ledger class asynchronously', async () => {
    const loaded = await loadLedger();
    const ledger = new loaded.GPULedger();
    expect(runSeed(ledger, SEED_EXAMPLE_1, 3)).toEqual([undefined, undefined, true]); // g1, g2, c1
    expect(ledger.getBalance(6)).toBe(70);
    expect(thrown(() => ledger.consume('c1', 81, 6)).code).toBe('DUPLICATE_ID');
    ledger.dispose();
    const error = thrown(() => ledger.getBalance(6));
    expect(error).toBeInstanceOf(loaded.LedgerError);
    expect(error.code).toBe('DISPOSED');
  });
});
