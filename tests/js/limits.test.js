import { describe, expect, it } from 'vitest';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { thrown } from './helpers.js';
import { SEED_EXAMPLE_1, runSeed, seedResults } from './fixtures/seed.js';

const KIB = 1024;

describe('resource limits', () => {
  it('refuses with OUT_OF_MEMORY before the heap runs out, unchanged and usable', () => {
    expect(GPULedger.maxHeapBytes).toBe(2 * 1024 * 1024 * 1024);
    const ledger = new GPULedger();
    ledger.addGrant('plenty', 2 ** 52, 0, 2 ** 40);
    const pad = 'x'.repeat(1000); // 1,000-byte ids: the heap fills in about a million calls
    let error = null;
    let accepted = 0;
    for (let i = 0; i < 5_000_000 && error === null; i++) {
      const id = `${pad}${i}`;
      try {
        if (ledger.consume(id, 1, i)) accepted++;
      } catch (caught) {
        error = caught;
      }
    }
    expect(error).toBeInstanceOf(LedgerError);
    expect(error.code).toBe('OUT_OF_MEMORY');
    expect(error.message).toMatch(/^consume: /);
    // Nothing of the refused call is there, and the ledger still answers.
    expect(ledger.consumptionCount).toBe(accepted);
    expect(ledger.getBalance(accepted)).toBe(2 ** 52 - accepted);
    expect(ledger.allocations(`${pad}0`)).toEqual([{ grantId: 'plenty', amount: 1 }]);
    expect(ledger.allocations(`${pad}${accepted}`)).toBeNull();
    expect(thrown(() => ledger.addGrant('more', 1, 0, 1)).code).toBe('OUT_OF_MEMORY');
    expect(ledger.grantCount).toBe(1);
    // A call that changes nothing is still answered as it would be: identical retries, and
    // the refusal of an id taken with other parameters.
    expect(ledger.consume(`${pad}0`, 1, 0)).toBe(true);
    expect(ledger.submit(`${pad}1`, 1, 1)).toBe('accepted');
    expect(ledger.addGrant('plenty', 2 ** 52, 0, 2 ** 40)).toBeUndefined();
    expect(thrown(() => ledger.consume(`${pad}0`, 2, 0)).code).toBe('DUPLICATE_ID');
    expect(thrown(() => ledger.addGrant('plenty', 1, 0, 1)).code).toBe('DUPLICATE_ID');
    expect([ledger.consumptionCount, ledger.grantCount, ledger.getBalance(accepted)]).toEqual([accepted, 1, 2 ** 52 - accepted]);
    // So is every call that needs no room: a refusal for its id, range or horizon, an end the
    // grant already has, a horizon that does not move, a dry run of an identical retry, the
    // headroom where the balance is the answer. A change that would run is still refused.
    expect(thrown(() => ledger.voidGrant('nope')).code).toBe('UNKNOWN_ID');
    expect(thrown(() => ledger.setGrantEnd('nope', 5)).code).toBe('UNKNOWN_ID');
    expect(ledger.setGrantEnd('plenty', 2 ** 40)).toEqual({ applied: true, blockingEventId: null, acceptedPending: [] });
    expect(ledger.compact(0)).toEqual({ horizon: 0, droppedGrants: 0, droppedConsumptions: 0, droppedPending: [] });
    const retry = { accepted: true, allocations: [{ grantId: 'plenty', amount: 1 }], reason: null, blockingEventId: null };
    expect(ledger.tryConsume(`${pad}0`, 1, 0, { dryRun: true })).toEqual(retry);
    expect(ledger.tryConsume(`${pad}0`, 1, 0)).toEqual(retry);
    expect(thrown(() => ledger.tryConsume(`${pad}0`, 2, 0, { dryRun: true })).code).toBe('DUPLICATE_ID');
    expect(ledger.headroom(accepted)).toBe(2 ** 52 - accepted);
    for (const call of [() => ledger.voidGrant('plenty'), () => ledger.setGrantEnd('plenty', 2 ** 41), () => ledger.compact(1)]) {
      expect(thrown(call).code).toBe('OUT_OF_MEMORY');
    }
    expect([ledger.consumptionCount, ledger.grantCount, ledger.horizon, ledger.getBalance(accepted)]).toEqual([
      accepted,
      1,
      0,
      2 ** 52 - accepted,
    ]);
    // New ledgers while it holds the heap: each takes a few kB, until one is refused with
    // OUT_OF_MEMORY (each was allocated unchecked: the instance aborted at the ceiling).
    const more = [];
    let refusedNew = null;
    while (refusedNew === null && more.length < 2_000_000) {
      try {
        more.push(new GPULedger());
      } catch (caught) {
        refusedNew = caught;
      }
    }
    expect([refusedNew?.code, refusedNew?.message]).toEqual([
      'OUT_OF_MEMORY',
      'new GPULedger: the WebAssembly heap cannot grow enough for this call',
    ]);
    more[more.length - 1].addGrant('g', 1, 0, 1); // the last one made works
    expect(more[more.length - 1].getBalance(0)).toBe(1);
    // A 200 MB id in applyColumns fails its own check, and its bytes do not cross into the
    // full heap with the others (they did: the batch buffer's allocation aborted).
    const huge = 200 * 1024 * 1024;
    const { results, errors } = more[0].applyColumns({
      kinds: Uint8Array.of(0, 0),
      ids: new Uint8Array(huge + 1).fill(0x61),
      idEnds: Uint32Array.of(huge, huge + 1),
      amounts: Float64Array.of(1, 1),
      times: Float64Array.of(0, 0),
      endTimes: Float64Array.of(5, 5),
    });
    expect([[...results], errors.get(0)?.constructor]).toEqual([[2, 1], RangeError]);
    expect(more[0].grantsAt(0).map((g) => g.grantId)).toEqual(['a']);
    for (const extra of more) extra.dispose();
    ledger.dispose();
    // Freed: a new ledger works normally.
    const next = new GPULedger();
    expect(runSeed(next, SEED_EXAMPLE_1)).toEqual(seedResults(SEED_EXAMPLE_1));
    expect(next.getBalance(6)).toBe(70);
    next.dispose();
  }, 180_000);

  it('applyBatch near the heap ceiling: an event refused with OUT_OF_MEMORY changes nothing, and nothing aborts', () => {
    // Batches of 1,000-byte ids until one refuses, after the test above filled the heap
    // with another such ledger and disposed of it: its space is free again, in pieces. A
    // batch takes the ledger's share of the heap every few events rather than after each;
    // its budget checks must still refuse in time, and no block the ledger needs may be
    // larger than the pieces (an id arena of one doubling block was: the instance aborted).
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
    // At the ceiling a batch answers what changes nothing as the single calls do: identical
    // retries, and the refusal of an id taken with other parameters; a new event is refused.
    const again = ledger.applyBatch([
      { kind: 'consume', eventId: `${pad}0`, amount: 1, timestamp: 0 },
      { kind: 'consume', eventId: `${pad}0`, amount: 2, timestamp: 0 },
      { kind: 'grant', grantId: 'plenty', amount: 2 ** 52, startTime: 0, endTime: 2 ** 40 },
      { kind: 'grant', grantId: 'plenty', amount: 1, startTime: 0, endTime: 1 },
      { kind: 'consume', eventId: `${pad}${refused.at}`, amount: 1, timestamp: refused.at },
    ]);
    expect(again.map((result) => (result === true ? true : result.code))).toEqual([
      true,
      'DUPLICATE_ID',
      true,
      'DUPLICATE_ID',
      'OUT_OF_MEMORY',
    ]);
    const id = new TextEncoder().encode(`${pad}1`);
    const columns = ledger.applyColumns({
      kinds: Uint8Array.of(1),
      ids: id,
      idEnds: Uint32Array.of(id.length),
      amounts: Float64Array.of(1),
      times: Float64Array.of(1),
      endTimes: Float64Array.of(0),
    });
    expect([[...columns.results], columns.errors.size]).toEqual([[1], 0]);
    expect([ledger.consumptionCount, ledger.grantCount, ledger.getBalance(2 ** 40)]).toEqual([accepted, 1, 2 ** 52 - accepted]);
    ledger.dispose();
    const next = new GPULedger();
    expect(runSeed(next, SEED_EXAMPLE_1)).toEqual(seedResults(SEED_EXAMPLE_1));
    next.dispose();
  }, 180_000);
  it('a large result near the heap ceiling is returned or refused with OUT_OF_MEMORY, never an abort, and leaves no heap behind', () => {
    // Half a million 1,000-byte ids: a snapshot's result is as large as the ledger, and
    // once built by doubling (or beside a copy of the ids) it no longer fitted: the module
    // aborted, and each abort left its buffers on the heap. Then a late grant moves every
    // draw onto a grant with a 1,000-byte id: reallocated() lists that id once per
    // consumption, a result far larger than the ledger.
    const ledger = new GPULedger();
    ledger.addGrant('plenty', 2 ** 52, 0, 2 ** 40);
    const pad = 'z'.repeat(988);
    const n = 550_000;
    const chunk = 10_000;
    for (let start = 0; start < n; start += chunk) {
      const ids = new Uint8Array(chunk * 1000);
      const idEnds = new Uint32Array(chunk);
      const times = new Float64Array(chunk);
      for (let k = 0; k < chunk; k++) {
        const id = pad + String(start + k).padStart(12, '0');
        for (let b = 0; b < 1000; b++) ids[k * 1000 + b] = id.charCodeAt(b);
        idEnds[k] = (k + 1) * 1000;
        times[k] = start + k + 1;
      }
      const { results } = ledger.applyColumns({
        kinds: new Uint8Array(chunk).fill(1),
        ids,
        idEnds,
        amounts: new Float64Array(chunk).fill(1),
        times,
        endTimes: new Float64Array(chunk),
      });
      expect(results.every((result) => result === 1)).toBe(true);
    }
    const held = GPULedger.wasmHeapBytes();
    const outcome = (call) => {
      try {
        const value = call();
        expect(GPULedger.wasmHeapBytes()).toBeLessThan(held + 64 * KIB * KIB); // the result's room went back
        return value;
      } catch (error) {
        expect(error).toBeInstanceOf(LedgerError); // a RuntimeError is an abort
        expect(error.code).toBe('OUT_OF_MEMORY');
        expect(GPULedger.wasmHeapBytes()).toBeLessThan(held + 64 * KIB * KIB);
        return error;
      }
    };
    const snapshot = outcome(() => ledger.toJSON());
    expect(snapshot.consumptions.length).toBe(n); // it fits: half the heap is free
    expect(snapshot.consumptions[n - 1].eventId).toBe(pad + String(n - 1).padStart(12, '0'));
    expect(outcome(() => ledger.burnDown('plenty')).draws.length).toBe(n);
    ledger.addGrant('x'.repeat(1000), 2 ** 51, 0, 2 ** 39); // ends first: every draw moves to it
    const moved = outcome(() => ledger.reallocated());
    if (Array.isArray(moved)) expect(moved.length).toBe(n);
    outcome(() => ledger.grantsAt(1));
    outcome(() => ledger.pending());
    // Unchanged and usable.
    expect(ledger.consumptionCount).toBe(n);
    expect(ledger.getBalance(n)).toBe(2 ** 52 + 2 ** 51 - n);
    ledger.dispose();
    expect(GPULedger.wasmHeapBytes()).toBeLessThan(1024 * KIB);
  }, 180_000);
  it('a small ledger holds a few kB of heap (a service caches many): under 8 KiB empty, under 24 KiB with 100 events', () => {
    const perLedger = (fill) => {
      const before = GPULedger.wasmHeapBytes();
      const ledgers = Array.from({ length: 50 }, () => {
        const ledger = new GPULedger();
        fill(ledger);
        return ledger;
      });
      const bytes = (GPULedger.wasmHeapBytes() - before) / ledgers.length;
      for (const ledger of ledgers) ledger.dispose();
      return bytes;
    };
    expect(perLedger(() => {})).toBeLessThan(8 * KIB);
    const hundred = perLedger((ledger) => {
      for (let i = 0; i < 10; i++) ledger.addGrant(`g${i}`, 100, 10 * i, 10 * i + 50);
      for (let i = 0; i < 90; i++) expect(ledger.consume(`c${i}`, 1, i)).toBe(true);
    });
    expect(hundred).toBeLessThan(24 * KIB);
  });

  it('leaves the heap flat over 10^5 create/dispose cycles', () => {
    const warm = new GPULedger();
    warm.dispose();
    const before = GPULedger.wasmHeapBytes();
    for (let i = 0; i < 100_000; i++) {
      const ledger = new GPULedger();
      ledger.addGrant('g', 10, 0, 5);
      ledger.consume('c', 1, 1);
      ledger.dispose();
      ledger.dispose(); // double dispose is harmless
    }
    expect(GPULedger.wasmHeapBytes() - before).toBeLessThanOrEqual(64 * KIB);
  }, 120_000);

  it('leaves the heap flat over 10^6 operations once the ledger is disposed', () => {
    const before = GPULedger.wasmHeapBytes();
    const ledger = new GPULedger();
    for (let i = 0; i < 1_000_000; i++) {
      const kind = i % 10;
      if (kind < 2) ledger.addGrant(`g${i}`, 4000, i, i + 2000);
      else if (kind < 9) ledger.consume(`c${i}`, 1 + (i % 1500), kind === 8 ? Math.max(0, i - 150) : i);
      else ledger.getBalance(i >> 1);
    }
    expect(ledger.consumptionCount).toBeGreaterThan(100_000);
    ledger.dispose();
    expect(GPULedger.wasmHeapBytes() - before).toBeLessThanOrEqual(64 * KIB);
  }, 120_000);

  it('does not grow the heap on calls that store nothing', () => {
    const ledger = new GPULedger();
    for (let i = 0; i < 1000; i++) ledger.addGrant(`g${i}`, 50, i, i + 100);
    for (let i = 0; i < 1000; i++) ledger.consume(`c${i}`, 20, i);
    ledger.balanceCurve(0, 2000);
    ledger.allocations('c1');
    const before = GPULedger.wasmHeapBytes();
    for (let i = 0; i < 200_000; i++) {
      ledger.getBalance(i % 1200);
      ledger.consume(`c${i % 1000}`, 20, i % 1000); // identical retry: no double charge
      ledger.consume('too-big', 10 ** 9, i % 1200); // rejected: leaves no trace
      if (i % 1000 === 0) ledger.allocations(`c${i % 1000}`);
    }
    expect(GPULedger.wasmHeapBytes() - before).toBeLessThanOrEqual(16 * KIB);
    expect(ledger.consumptionCount).toBe(1000);
    ledger.dispose();
  }, 120_000);
});
