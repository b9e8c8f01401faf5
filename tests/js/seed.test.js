// The two normative seed examples of docs/semantics.md (tests/js/fixtures/seed.js).
import { describe, expect, it } from 'vitest';
import { SEED_EXAMPLE_1, SEED_EXAMPLE_2, runSeed, seedResults } from './fixtures/seed.js';
import { trackedLedgers } from './helpers.js';

const newLedger = trackedLedgers();

describe.each([
  ['seed example 1: earliest-expiring grant drawn first', SEED_EXAMPLE_1],
  ['seed example 2: a backdated draw cannot unfund a later one', SEED_EXAMPLE_2],
])('%s', (_, example) => {
  it('returns the stated result from every call', () => {
    expect(runSeed(newLedger(), example)).toEqual(seedResults(example));
  });

  it('shows the stated balances, allocations, curve and counts afterwards', () => {
    const ledger = newLedger();
    runSeed(ledger, example);
    for (const [t, balance] of example.balances) expect(ledger.getBalance(t), `getBalance(${t})`).toBe(balance);
    for (const [id, allocations] of example.allocations) expect(ledger.allocations(id), `allocations(${id})`).toEqual(allocations);
    expect(ledger.balanceCurve(example.curve.from, example.curve.to)).toEqual(example.curve.points);
    expect(ledger.grantCount).toBe(example.grantCount);
    expect(ledger.consumptionCount).toBe(example.consumptionCount);
  });
});
