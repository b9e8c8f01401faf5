// Pending consumptions: submit queues what cannot be funded yet; the queue is retried
// after every change that adds credit and reports to onPendingAccepted listeners.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { thrown } from './helpers.js';

let ledger;
beforeEach(() => {
  ledger = new GPULedger();
});
afterEach(() => {
  if (!ledger.disposed) ledger.dispose();
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

  it('a listener removed by an earlier one is not called, and calls from listeners are heard in the order accepted', () => {
    const ledger = new GPULedger();
    expect(ledger.submit('p1', 5, 1)).toBe('queued');
    expect(ledger.submit('p2', 5, 2)).toBe('queued');
    const heard = [];
    let removeSecond = () => {};
    ledger.onPendingAccepted((accepted) => {
      heard.push(['first', accepted.map((p) => p.eventId)]);
      removeSecond();
      removeSecond = () => {};
      if (accepted[0].eventId === 'p1') ledger.addGrant('more', 5, 0, 10); // lets p2 in
    });
    removeSecond = ledger.onPendingAccepted((accepted) => heard.push(['second', accepted.map((p) => p.eventId)]));
    ledger.onPendingAccepted((accepted) => heard.push(['third', accepted.map((p) => p.eventId)]));
    ledger.addGrant('g', 5, 0, 10); // lets p1 in
    expect(heard).toEqual([
      ['first', ['p1']],
      ['third', ['p1']],
      ['first', ['p2']],
      ['third', ['p2']],
    ]);
    ledger.dispose();
  });
});
