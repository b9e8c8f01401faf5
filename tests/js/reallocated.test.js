// reallocated(): which accepted consumptions the last call re-routed, with their
// allocations now. The random differential (preview-differential.test.js) holds it to the
// oracle after every call; these are the cases by name.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { thrown, trackedLedgers } from './helpers.js';

const newLedger = trackedLedgers();

describe('reallocated()', () => {
  it('is empty on a new ledger and after a call that moves nothing', () => {
    const ledger = newLedger();
    expect(ledger.reallocated()).toEqual([]);
    ledger.addGrant('g1', 10, 0, 20);
    expect(ledger.consume('c1', 6, 5)).toBe(true);
    expect(ledger.reallocated()).toEqual([]); // c1 is new: it had no allocations before
  });

  it('lists an earlier consumption a late grant takes over', () => {
    const ledger = newLedger();
    ledger.addGrant('g1', 10, 0, 20);
    ledger.consume('c1', 6, 5);
    ledger.addGrant('g2', 10, 0, 10); // ends first: c1 draws it now
    expect(ledger.reallocated()).toEqual([{ eventId: 'c1', amount: 6, timestamp: 5, allocations: [{ grantId: 'g2', amount: 6 }] }]);
  });

  it('lists a later consumption a backdated one pushes onto the next grant', () => {
    const ledger = newLedger();
    ledger.addGrant('g1', 5, 0, 10);
    ledger.addGrant('g2', 5, 0, 20);
    ledger.consume('late', 4, 8);
    expect(ledger.consume('early', 3, 2)).toBe(true);
    expect(ledger.reallocated()).toEqual([
      {
        eventId: 'late',
        amount: 4,
        timestamp: 8,
        allocations: [
          { grantId: 'g1', amount: 2 },
          { grantId: 'g2', amount: 2 },
        ],
      },
    ]);
  });

  it('lists the draws voidGrant and setGrantEnd move, in replay order', () => {
    const ledger = newLedger();
    ledger.addGrant('a', 10, 0, 10);
    ledger.addGrant('b', 10, 0, 20);
    ledger.consume('c2', 2, 6);
    ledger.consume('c1', 3, 4);
    expect(ledger.voidGrant('a')).toEqual({ applied: true, blockingEventId: null });
    expect(ledger.reallocated().map((c) => [c.eventId, c.allocations])).toEqual([
      ['c1', [{ grantId: 'b', amount: 3 }]],
      ['c2', [{ grantId: 'b', amount: 2 }]],
    ]);
    ledger.addGrant('a2', 1, 0, 5);
    expect(ledger.reallocated().map((c) => c.eventId)).toEqual(['c1']);
    ledger.setGrantEnd('a2', 3); // c1 at 4 loses it again
    expect(ledger.reallocated()).toEqual([{ eventId: 'c1', amount: 3, timestamp: 4, allocations: [{ grantId: 'b', amount: 3 }] }]);
  });

  it('leaves out a queued consumption the call let in, and lists what its acceptance moved', () => {
    const ledger = newLedger();
    ledger.addGrant('g1', 5, 0, 10);
    ledger.consume('c1', 5, 8);
    expect(ledger.submit('p', 3, 2)).toBe('queued');
    ledger.addGrant('g2', 3, 0, 20); // p is let in at 2 and takes g1 first: c1 moves 3 onto g2
    expect(ledger.pending()).toEqual([]);
    expect(ledger.reallocated()).toEqual([
      {
        eventId: 'c1',
        amount: 5,
        timestamp: 8,
        allocations: [
          { grantId: 'g1', amount: 2 },
          { grantId: 'g2', amount: 3 },
        ],
      },
    ]);
  });

  it('keeps its answer through a call that throws, a dry run and reads', () => {
    const ledger = newLedger();
    ledger.addGrant('g1', 10, 0, 20);
    ledger.consume('c1', 6, 5);
    ledger.addGrant('g2', 10, 0, 10);
    const moved = ledger.reallocated();
    expect(moved).toHaveLength(1);
    expect(thrown(() => ledger.consume('c1', 7, 5)).code).toBe('DUPLICATE_ID');
    expect(thrown(() => ledger.addGrant('g3', -1, 0, 1))).toBeInstanceOf(RangeError);
    expect(thrown(() => ledger.voidGrant('none')).code).toBe('UNKNOWN_ID');
    expect(ledger.tryConsume('d', 1, 5, { dryRun: true }).accepted).toBe(true);
    ledger.getBalance(5);
    ledger.headroom(5);
    expect(ledger.reallocated()).toEqual(moved);
    ledger.cancelPending('none'); // returns normally: now the last call
    expect(ledger.reallocated()).toEqual([]);
  });

  it('describes the last event of applyBatch, and compact moves nothing', () => {
    const ledger = newLedger();
    ledger.addGrant('g1', 10, 0, 20);
    const results = ledger.applyBatch([
      { kind: 'consume', eventId: 'c1', amount: 6, timestamp: 5 },
      { kind: 'grant', grantId: 'g2', amount: 10, startTime: 0, endTime: 10 }, // c1 moves onto g2
    ]);
    expect(results).toEqual([true, true]);
    expect(ledger.reallocated()).toEqual([{ eventId: 'c1', amount: 6, timestamp: 5, allocations: [{ grantId: 'g2', amount: 6 }] }]);
    ledger.compact(3);
    expect(ledger.reallocated()).toEqual([]);
  });

  it('is empty on a ledger rebuilt by fromJSON', () => {
    const ledger = newLedger();
    ledger.addGrant('g1', 5, 0, 10);
    ledger.addGrant('g2', 5, 0, 20);
    ledger.consume('late', 4, 8);
    ledger.consume('early', 3, 2); // replaying the snapshot repeats this move
    const copy = GPULedger.fromJSON(ledger.toJSON());
    expect(copy.reallocated()).toEqual([]);
    copy.dispose();
  });
});
