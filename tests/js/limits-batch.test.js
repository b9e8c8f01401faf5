// applyBatch near the heap's ceiling, in a module instance of its own (a file of its own):
// a batch takes the ledger's share of the heap every few events rather than after each,
// and its budget checks must still refuse in time. (After another ledger that filled the
// heap was disposed, the free space can be too fragmented for a doubling the budget
// allows: README, *Limits*.)
import { describe, expect, it } from 'vitest';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { SEED_EXAMPLE_1, runSeed, seedResults } from './fixtures/seed.js';

describe('resource limits, in batches', () => {
  it('applyBatch near the heap ceiling: an event refused with OUT_OF_MEMORY changes nothing, and nothing aborts', () => {
    // Batches of 1,000-byte ids until one refuses.
    const ledger = new GPULedger();
    ledger.addGrant('plenty', 2 ** 52, 0, 2 ** 40);
    const pad = 'y'.repeat(1000);
    let accepted = 0;
    let refused = null;
    for (let start = 0; start < 5_000_000 && refused === null; start += 10_000) {
      const events = Array.from({ length: 10_000 }, (_, k) => ({
        kind: 'consume',
        eventId: `${pad}${start + k}`,
        amount: 1,
        timestamp: start + k,
      }));
      const results = ledger.applyBatch(events);
      for (let k = 0; k < results.length; k++) {
        if (results[k] === true) accepted++;
        else if (refused === null) refused = { at: start + k, result: results[k] };
      }
    }
    expect(refused.result).toBeInstanceOf(LedgerError);
    expect(refused.result.code).toBe('OUT_OF_MEMORY');
    // The refused events left nothing; what was accepted is all there, and the ledger answers.
    expect(ledger.consumptionCount).toBe(accepted);
    expect(ledger.getBalance(2 ** 40)).toBe(2 ** 52 - accepted);
    expect(ledger.allocations(`${pad}${refused.at}`)).toBeNull();
    expect(ledger.allocations(`${pad}${refused.at - 1}`)).toEqual([{ grantId: 'plenty', amount: 1 }]);
    ledger.dispose();
    const next = new GPULedger();
    expect(runSeed(next, SEED_EXAMPLE_1)).toEqual(seedResults(SEED_EXAMPLE_1));
    next.dispose();
  }, 180_000);
});
