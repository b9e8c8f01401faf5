// An id may start with U+FEFF (any code point is allowed): results must not drop it as a
// byte-order mark, nor shift the ids after it, and a snapshot must round-trip it.
import { expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';

const BOM = '\uFEFF';

it('ids that start with U+FEFF come back whole from every result, and a snapshot restores them', () => {
  const ledger = new GPULedger();
  ledger.addGrant(`${BOM}a`, 10, 0, 10);
  ledger.addGrant('b', 10, 0, 20);
  ledger.addGrant(BOM, 10, 0, 30);
  expect(ledger.consume(`${BOM}c1`, 12, 5)).toBe(true);
  expect(ledger.submit(`${BOM}q`, 100, 6)).toBe('queued');
  expect(ledger.grantsAt(5).map((g) => g.grantId)).toEqual([`${BOM}a`, 'b', BOM]);
  expect(ledger.allocations(`${BOM}c1`)).toEqual([
    { grantId: `${BOM}a`, amount: 10 },
    { grantId: 'b', amount: 2 },
  ]);
  expect(ledger.burnDown(`${BOM}a`).draws).toEqual([{ timestamp: 5, eventId: `${BOM}c1`, amount: 10 }]);
  expect(ledger.pending().map((p) => p.eventId)).toEqual([`${BOM}q`]);
  ledger.addGrant(`${BOM}early`, 5, 0, 6); // ends first: takes over part of c1's draws
  expect(ledger.reallocated().map((r) => r.eventId)).toEqual([`${BOM}c1`]);
  const doc = ledger.toJSON();
  expect(doc.grants.map((g) => g.grantId)).toEqual([`${BOM}a`, 'b', BOM, `${BOM}early`]);
  expect(doc.consumptions.map((c) => c.eventId)).toEqual([`${BOM}c1`]);
  const copy = GPULedger.fromJSON(doc);
  expect(copy.toJSON()).toEqual(doc);
  expect(copy.allocations(`${BOM}c1`)).toEqual(ledger.allocations(`${BOM}c1`));
  const loaded = new GPULedger();
  const enc = new TextEncoder();
  const ids = [`${BOM}x`, 'y'];
  const bytes = ids.map((id) => enc.encode(id));
  const out = loaded.applyColumns({
    kinds: new Uint8Array([0, 0]),
    ids: new Uint8Array([...bytes[0], ...bytes[1]]),
    idEnds: new Uint32Array([bytes[0].length, bytes[0].length + bytes[1].length]),
    amounts: new Float64Array([1, 1]),
    times: new Float64Array([0, 0]),
    endTimes: new Float64Array([5, 5]),
  });
  expect([...out.results]).toEqual([1, 1]);
  expect(loaded.applyBatch([{ kind: 'grant', grantId: `${BOM}x`, amount: 2, startTime: 0, endTime: 5 }])[0].message).toContain(`"${BOM}x"`);
  expect(loaded.toJSON().grants.map((g) => g.grantId)).toEqual(ids);
  for (const l of [ledger, copy, loaded]) l.dispose();
});
