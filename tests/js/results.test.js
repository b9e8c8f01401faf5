// Structured results cross from WebAssembly through a per-ledger result buffer: numbers
// as doubles, ids as UTF-8 cut by their UTF-16 lengths (cpp/bindings/result_encoding.h,
// lib/decode.js). Ids of 1 to 4 UTF-8 bytes per character, at the length limit, null ids,
// results of several thousand slots and what such a result leaves on the heap.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { mulberry32, outcome } from './helpers.js';

// 2, 3 and 4 bytes of UTF-8 (1, 1 and 2 UTF-16 units). Byte order of prefixed ids is the
// order of the ids without it, so a ledger whose ids all carry it decides as one without.
const PREFIX = 'é€😀';

// Every string in a result with PREFIX removed, errors reduced to their class, code and message.
function strip(value) {
  if (typeof value === 'string') return value.split(PREFIX).join('');
  if (value instanceof Error) return { error: value.constructor.name, code: value.code, message: strip(value.message) };
  if (Array.isArray(value)) return value.map(strip);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, strip(inner)]));
  }
  return value;
}

// The same random calls on `ledger` with ids named by `name`; every result, in order.
function run(seed, ledger, name) {
  const random = mulberry32(seed);
  const int = (n) => Math.floor(random() * n);
  const results = [];
  const record = (fn) => results.push(outcome(fn));
  let grants = 0;
  let consumptions = 0;
  for (let step = 0; step < 160; step++) {
    const grant = name(`g${int(grants + 1)}`);
    const consumption = name(`c${int(consumptions + 1)}`);
    const t = int(60);
    const choice = random();
    if (choice < 0.25) {
      const start = int(50);
      record(() => ledger.addGrant(name(`g${grants++}`), 1 + int(30), start, start + 1 + int(30)));
    } else if (choice < 0.55) {
      record(() => ledger.consume(name(`c${consumptions++}`), 1 + int(12), t));
    } else if (choice < 0.62) {
      record(() => ledger.submit(name(`c${consumptions++}`), 1 + int(20), t));
    } else if (choice < 0.7) {
      record(() => ledger.tryConsume(name(`c${consumptions++}`), 1 + int(25), t, { dryRun: random() < 0.5 }));
    } else if (choice < 0.74) {
      record(() => ledger.voidGrant(grant));
    } else if (choice < 0.78) {
      record(() => ledger.setGrantEnd(grant, int(90)));
    } else if (choice < 0.8) {
      record(() => ledger.cancelPending(consumption));
    } else if (choice < 0.82) {
      record(() => ledger.compact(int(20)));
    } else {
      record(() => ledger.allocations(consumption));
      record(() => ledger.burnDown(grant));
      record(() => ledger.grantsAt(t));
      record(() => ledger.nextBelow(1 + int(20), t));
    }
    record(() => ledger.reallocated());
  }
  record(() => ledger.pending());
  record(() => ledger.toJSON());
  return results;
}

describe('structured results', () => {
  it('carry ids of 1- to 4-byte characters exactly: a prefixed run answers as the plain one', () => {
    let prefixedIds = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const plain = new GPULedger();
      const prefixed = new GPULedger();
      try {
        const expected = run(seed, plain, (id) => id);
        const actual = run(seed, prefixed, (id) => PREFIX + id);
        prefixedIds += JSON.stringify(actual).split(PREFIX).length - 1;
        expect(strip(actual), `seed ${seed}`).toEqual(strip(expected));
      } finally {
        plain.dispose();
        prefixed.dispose();
      }
    }
    expect(prefixedIds).toBeGreaterThan(1000); // the results did carry the ids
  });

  it('carry ids at the length limit and null blocking ids', () => {
    const ledger = new GPULedger();
    try {
      const longGrant = '😀'.repeat(256); // 1,024 bytes of UTF-8, 512 UTF-16 units
      const longEvent = `${'é'.repeat(511)}a`; // 1,023 + 1 bytes
      ledger.addGrant(longGrant, 10, 0, 100);
      ledger.addGrant('g€', 5, 0, 50);
      expect(ledger.consume(longEvent, 12, 10)).toBe(true);
      expect(ledger.allocations(longEvent)).toEqual([
        { grantId: 'g€', amount: 5 },
        { grantId: longGrant, amount: 7 },
      ]);
      expect(ledger.burnDown(longGrant)?.draws).toEqual([{ timestamp: 10, eventId: longEvent, amount: 7 }]);
      expect(ledger.tryConsume('x', 100, 20, { dryRun: true })).toEqual({
        accepted: false,
        allocations: [],
        reason: 'INSUFFICIENT_CREDIT',
        blockingEventId: null,
      });
      expect(ledger.toJSON().grants.map((grant) => grant.grantId)).toEqual([longGrant, 'g€']);
      expect(ledger.toJSON().consumptions).toEqual([{ eventId: longEvent, amount: 12, timestamp: 10 }]);
      expect(ledger.allocations('unknown')).toBe(null);
      expect(ledger.burnDown('unknown')).toBe(null);
    } finally {
      ledger.dispose();
    }
  });

  it('of several thousand slots read whole, and leave no buffer of that size behind', () => {
    const ledger = new GPULedger();
    try {
      const n = 3000; // 12,000 slots of grants, 9,000 of consumptions
      const events = [];
      for (let i = 0; i < n; i++) events.push({ kind: 'grant', grantId: `g${i}-€`, amount: 2, startTime: i, endTime: i + 10 });
      for (let i = 0; i < n; i++) events.push({ kind: 'consume', eventId: `c${i}-😀`, amount: 1, timestamp: i + 1 });
      expect(ledger.applyBatch(events).every((result) => result === true)).toBe(true);
      // The grants' result alone is 96 kB of numbers and 21 kB of ids: the heap keeps
      // no more than a small result's room (and the allocator's bookkeeping) after it.
      const before = GPULedger.wasmHeapBytes();
      const first = ledger.toJSON();
      expect(GPULedger.wasmHeapBytes()).toBeLessThan(before + 4096);
      expect(first.grants).toHaveLength(n);
      expect(first.grants[n - 1]).toEqual({ grantId: `g${n - 1}-€`, amount: 2, startTime: n - 1, endTime: n + 9 });
      expect(first.consumptions[n - 1]).toEqual({ eventId: `c${n - 1}-😀`, amount: 1, timestamp: n });
      // Valid at n - 1 (windows are inclusive): the last 11 grants, earliest end first.
      const states = ledger.grantsAt(n - 1);
      expect(states.map((state) => state.grantId)).toEqual(Array.from({ length: 11 }, (_, k) => `g${n - 11 + k}-€`));
      expect(states.reduce((sum, state) => sum + state.remaining, 0)).toBe(ledger.getBalance(n - 1));
      expect(ledger.toJSON()).toEqual(first);
      expect(GPULedger.wasmHeapBytes()).toBeLessThan(before + 4096);
    } finally {
      ledger.dispose();
    }
  });
});
