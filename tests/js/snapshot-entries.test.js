// fromJSON's entry checks against the rules written out here from docs/semantics.md
// ("Snapshots"): random documents whose entries are valid or off by one field (a wrong
// type, a value just outside its range, an id at or over its byte limit, a lone
// surrogate, an unknown or inherited key), each loaded or refused exactly as the rules
// say. The readers test the common case inline before calling the methods' checks
// (lib/snapshot.js); this holds them to the same rules as the checks.
import { describe, expect, it } from 'vitest';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { mulberry32, thrown } from './helpers.js';

const MAX = 2 ** 53 - 1;
const MAX_ID_BYTES = 1024;

const utf8Bytes = (text) => new TextEncoder().encode(text).length;
const isInteger = (value, min) => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= MAX;
const isId = (value) =>
  typeof value === 'string' &&
  value.length > 0 &&
  utf8Bytes(value) <= MAX_ID_BYTES &&
  !/[\uD800-\uDFFF]/.test(value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''));
const ownKeysWithin = (entry, keys) =>
  typeof entry === 'object' && entry !== null && !Array.isArray(entry) && Object.keys(entry).every((key) => keys.includes(key));

// The rules: an entry's shape, then its fields (README and docs/semantics.md, "Snapshots").
function grantIsValid(g, horizon) {
  if (!ownKeysWithin(g, ['grantId', 'amount', 'startTime', 'endTime'])) return false;
  if (!isId(g.grantId) || !isInteger(g.startTime, 0) || !isInteger(g.endTime, 0)) return false;
  const carried = g.startTime < horizon;
  return (isInteger(g.amount, 1) || (carried && g.amount === 0)) && g.startTime <= g.endTime && g.endTime >= horizon;
}
function consumptionIsValid(c, horizon) {
  if (!ownKeysWithin(c, ['eventId', 'amount', 'timestamp'])) return false;
  return isId(c.eventId) && isInteger(c.amount, 1) && isInteger(c.timestamp, horizon);
}

const BAD_NUMBERS = [-1, 1.5, 2 ** 53, Number.NaN, Infinity, '5', null, undefined, true, 5n];

function randomDocument(random, horizon) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const id = (i, prefix) =>
    pick([
      `${prefix}${i}`,
      `${prefix}${i}-${'a'.repeat(340)}`, // over MAX_ID_BYTES / 3 units: checkId counts its bytes
      `${prefix}${i}-${'é'.repeat(508)}`, // 1,020 + bytes: at or just over the limit
      `${prefix}${i}-${'😀'.repeat(254)}`,
      `${prefix}${i}-€`,
      `${prefix}${i}\uD800`, // a lone surrogate
      '',
      i,
    ]);
  // Half the documents are clean; in the others a few fields are off.
  const rate = random() < 0.5 ? 0 : 0.06;
  const off = () => random() < rate;
  const grants = [{ grantId: 'fund', amount: 2 ** 40, startTime: 0, endTime: MAX }];
  for (let i = 0; i < 6; i++) {
    const startTime = Math.max(0, horizon - 5 + Math.floor(random() * 10));
    const g = {
      grantId: off() ? id(i, 'g') : `g${i}`,
      amount: 1 + Math.floor(random() * 50),
      startTime,
      endTime: startTime + Math.floor(random() * 20),
    };
    if (startTime < horizon && random() < 0.2) g.amount = 0; // carried with nothing left
    if (off()) g.endTime = g.startTime - 1;
    if (off()) g[pick(['amount', 'startTime', 'endTime'])] = pick([...BAD_NUMBERS, 0, MAX, horizon - 1]);
    let entry = g;
    if (off()) entry = pick([{ ...g, extra: 1 }, Object.assign(Object.create({ inherited: 1 }), g), [g], null, 'g']);
    grants.push(entry);
  }
  const consumptions = [];
  for (let i = 0; i < 6; i++) {
    const c = {
      eventId: off() ? id(i, 'c') : `c${i}`,
      amount: 1 + Math.floor(random() * 50),
      timestamp: horizon + Math.floor(random() * 30),
    };
    if (off()) c[pick(['amount', 'timestamp'])] = pick([...BAD_NUMBERS, 0, MAX, horizon - 1]);
    let entry = c;
    if (off()) entry = pick([{ ...c, extra: 1 }, Object.assign(Object.create({ inherited: 1 }), c), [c], null, 7]);
    consumptions.push(entry);
  }
  return { format: 'gpu-credit-ledger', version: 2, horizon, grants, consumptions };
}

describe('fromJSON entries', () => {
  it('loads or refuses 3,000 random documents exactly as the rules written out say', () => {
    // The module's first refusal keeps 4 bytes for good (once per module, not per call).
    thrown(() => GPULedger.fromJSON({ format: 'gpu-credit-ledger', version: 2, horizon: 0, grants: [{ grantId: '' }], consumptions: [] }));
    const random = mulberry32(20261201);
    let loaded = 0;
    let refused = 0;
    for (let n = 0; n < 3000; n++) {
      const horizon = random() < 0.5 ? 0 : 1 + Math.floor(random() * 20);
      const doc = randomDocument(random, horizon);
      const sum = (list) => list.reduce((total, entry) => total + entry.amount, 0);
      // Valid entries, and a replay that accepts them all: the grant total within 2^53 - 1
      // and the demand within the 2^40 of the grant 'fund', valid at every time. (Ids are
      // never repeated: a mutated id that two entries could share, '' or a number, is invalid.)
      const valid =
        doc.grants.every((g) => grantIsValid(g, horizon)) &&
        doc.consumptions.every((c) => consumptionIsValid(c, horizon)) &&
        sum(doc.grants) <= MAX &&
        sum(doc.consumptions) <= 2 ** 40;
      const context = `document ${n}: ${JSON.stringify(doc, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)).slice(0, 400)}`;
      if (valid) {
        const ledger = GPULedger.fromJSON(doc);
        expect(ledger.grantCount, context).toBe(doc.grants.length);
        expect(ledger.consumptionCount, context).toBe(doc.consumptions.length);
        ledger.dispose();
        loaded++;
      } else {
        const heap = GPULedger.wasmHeapBytes();
        const error = thrown(() => GPULedger.fromJSON(doc));
        expect(error, context).toBeInstanceOf(LedgerError);
        expect(error.code, context).toBe('INVALID_SNAPSHOT');
        expect(GPULedger.wasmHeapBytes(), `${context}: nothing built`).toBe(heap);
        refused++;
      }
    }
    expect(loaded).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  });
});
