import { describe, expect, it } from 'vitest';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { OracleLedger } from './oracle.js';
import { mulberry32, thrown } from './helpers.js';
import { SEED_EXAMPLE_1, runSeed } from './fixtures/seed.js';

function seedLedger() {
  const ledger = new GPULedger();
  runSeed(ledger, SEED_EXAMPLE_1);
  return ledger;
}

// A random ledger built through the public API, with backdated and out-of-order calls.
function randomLedger(seed, calls) {
  const random = mulberry32(seed);
  const int = (n) => Math.floor(random() * n);
  const ledger = new GPULedger();
  for (let i = 0; i < calls; i++) {
    if (random() < 0.35) {
      const start = int(60);
      ledger.addGrant(`g${i}`, 1 + int(40), start, start + int(30));
    } else {
      ledger.consume(`c${i}`, 1 + int(25), int(90));
    }
  }
  return ledger;
}

// Everything observable, at every time that matters.
function observe(ledger, doc) {
  const times = Array.from({ length: 130 }, (_, t) => t);
  return {
    balances: times.map((t) => ledger.getBalance(t)),
    curve: ledger.balanceCurve(0, 200),
    allocations: doc.consumptions.map((c) => ledger.allocations(c.eventId)),
  };
}

describe('snapshots', () => {
  it('writes the documented format: grants in order added, consumptions in acceptance order', () => {
    const ledger = seedLedger();
    expect(ledger.toJSON()).toEqual({
      format: 'gpu-credit-ledger',
      version: 2,
      horizon: 0,
      grants: [
        { grantId: 'g1', amount: 100, startTime: 0, endTime: 10 },
        { grantId: 'g2', amount: 50, startTime: 5, endTime: 15 },
      ],
      consumptions: [
        { eventId: 'c1', amount: 80, timestamp: 6 },
        { eventId: 'c3', amount: 40, timestamp: 11 },
      ],
    });
    expect(JSON.parse(JSON.stringify(ledger))).toEqual(ledger.toJSON());
    ledger.dispose();
  });

  it('round-trips random ledgers: same balances, allocations and future decisions', () => {
    for (let seed = 1; seed <= 150; seed++) {
      const original = randomLedger(seed, 60);
      const doc = original.toJSON();
      const copy = GPULedger.fromJSON(JSON.stringify(doc));
      expect(copy.toJSON()).toEqual(doc);
      expect(observe(copy, doc)).toEqual(observe(original, doc));
      // The same future calls get the same answers.
      const random = mulberry32(seed * 7919);
      for (let i = 0; i < 30; i++) {
        const at = Math.floor(random() * 90);
        const amount = 1 + Math.floor(random() * 25);
        if (random() < 0.3) {
          original.addGrant(`late${i}`, amount, at, at + 10);
          copy.addGrant(`late${i}`, amount, at, at + 10);
        } else {
          expect(copy.consume(`next${i}`, amount, at)).toBe(original.consume(`next${i}`, amount, at));
        }
      }
      expect(observe(copy, copy.toJSON())).toEqual(observe(original, original.toJSON()));
      original.dispose();
      copy.dispose();
    }
  });

  it('agrees with the oracle replaying the same document', () => {
    const ledger = randomLedger(42, 200);
    const doc = ledger.toJSON();
    const oracle = new OracleLedger();
    for (const g of doc.grants) oracle.addGrant(g.grantId, g.amount, g.startTime, g.endTime);
    for (const c of doc.consumptions) expect(oracle.consume(c.eventId, c.amount, c.timestamp)).toBe(true);
    for (let t = 0; t < 130; t++) expect(ledger.getBalance(t)).toBe(oracle.getBalance(t));
    ledger.dispose();
  });

  const seedDoc = (() => {
    const ledger = seedLedger();
    const doc = ledger.toJSON();
    ledger.dispose();
    return doc;
  })();
  const base = () => structuredClone(seedDoc);
  const refusals = [
    ['text that is not JSON', () => '{"format":'],
    ['a non-object', () => 42],
    ['null', () => null],
    ['a wrong format name', () => ({ ...base(), format: 'other' })],
    ['an unknown version', () => ({ ...base(), version: 3 })],
    ['a version-1 document with a horizon', () => ({ ...base(), version: 1 })],
    ['a version-2 document without a horizon', () => ({ ...base(), horizon: undefined })],
    ['a missing version', () => ({ ...base(), version: undefined })],
    ['an unknown field of the document', () => ({ ...base(), extra: 1 })],
    [
      'a version-1 document with a list of queued consumptions',
      () => {
        const { horizon: _horizon, ...v1 } = base();
        return { ...v1, version: 1, pending: [] };
      },
    ],
    ['grants that are not an array', () => ({ ...base(), grants: {} })],
    ['a grant that is not an object', () => ({ ...base(), grants: [7] })],
    ['a grant with an unknown field', () => ({ ...base(), grants: [{ ...base().grants[0], color: 'red' }] })],
    ['a grant amount that is a string', () => ({ ...base(), grants: [{ ...base().grants[0], amount: '100' }] })],
    ['a grant amount of zero', () => ({ ...base(), grants: [{ ...base().grants[0], amount: 0 }] })],
    ['a fractional time', () => ({ ...base(), grants: [{ ...base().grants[0], startTime: 0.5 }] })],
    ['a window that ends before it starts', () => ({ ...base(), grants: [{ ...base().grants[0], startTime: 11 }] })],
    ['an empty grant id', () => ({ ...base(), grants: [{ ...base().grants[0], grantId: '' }] })],
    ['a missing consumption timestamp', () => ({ ...base(), consumptions: [{ eventId: 'c1', amount: 1 }] })],
    ['a lone surrogate in an event id', () => ({ ...base(), consumptions: [{ eventId: '\uD800', amount: 1, timestamp: 1 }] })],
    ['duplicate grant ids', () => ({ ...base(), grants: [base().grants[0], base().grants[0]] })],
    ['duplicate event ids', () => ({ ...base(), consumptions: [base().consumptions[0], base().consumptions[0]] })],
    [
      'grants above the total limit',
      () => ({
        ...base(),
        grants: [
          { grantId: 'a', amount: 2 ** 52, startTime: 0, endTime: 1 },
          { grantId: 'b', amount: 2 ** 52, startTime: 0, endTime: 1 },
        ],
      }),
    ],
    [
      'an unfundable consumption',
      () => ({ ...base(), consumptions: [...base().consumptions, { eventId: 'x', amount: 31, timestamp: 11 }] }),
    ],
    [
      'a history the rules would reject (backdated draw unfunding a later one)',
      () => ({
        format: 'gpu-credit-ledger',
        version: 1,
        grants: [{ grantId: 'g1', amount: 100, startTime: 0, endTime: 10 }],
        consumptions: [
          { eventId: 'c_late', amount: 80, timestamp: 8 },
          { eventId: 'c_early', amount: 30, timestamp: 2 },
        ],
      }),
    ],
  ];
  for (const [what, make] of refusals) {
    it(`refuses ${what} with INVALID_SNAPSHOT and builds nothing`, () => {
      const heapBefore = GPULedger.wasmHeapBytes();
      const error = thrown(() => GPULedger.fromJSON(make()));
      expect(error).toBeInstanceOf(LedgerError);
      expect(error.code).toBe('INVALID_SNAPSHOT');
      expect(error.message).toMatch(/^fromJSON: /);
      expect(GPULedger.wasmHeapBytes()).toBe(heapBefore); // no half-built ledger left behind
    });
  }

  // A document with several faults is refused for the first in this order: the document's
  // own fields; the shape of every grant, then of every consumption; each grant's fields
  // and id, in order; each consumption's; then what replaying it means. Faults planted in
  // large documents sit on both sides of a load's chunk boundaries (4,096 events).
  describe('refuses a document with several faults for the first of them', () => {
    const large = (grants, consumptions) => ({
      format: 'gpu-credit-ledger',
      version: 2,
      horizon: 0,
      grants: Array.from({ length: grants }, (_, i) => ({ grantId: `g${i}`, amount: 10, startTime: i, endTime: i + 20 })),
      consumptions: Array.from({ length: consumptions }, (_, i) => ({ eventId: `c${i}`, amount: 1, timestamp: i + 1 })),
    });
    const cases = [
      [
        'a grant field, then a consumption with an unknown field',
        () => {
          const doc = large(10, 10);
          doc.grants[2].amount = -1;
          doc.consumptions[0].note = 'x';
          return doc;
        },
        'fromJSON: consumptions[0] has unknown field "note"',
      ],
      [
        'a grant id that appears twice, then a grant that is not an object far later',
        () => {
          const doc = large(9000, 10);
          doc.grants[10].grantId = 'g3';
          doc.grants[8500].grantId = '\uD800';
          doc.grants[8999] = 7;
          return doc;
        },
        'fromJSON: grants[8999] must be an object',
      ],
      [
        'a grant id that appears twice, then a bad grant field far later',
        () => {
          const doc = large(9000, 10);
          doc.grants[10].grantId = 'g3';
          doc.grants[8500].endTime = 0.5;
          return doc;
        },
        'fromJSON: grants[10].grantId "g3" appears twice',
      ],
      [
        'an unfundable consumption, then a bad consumption field far later',
        () => {
          const doc = large(10, 9000);
          doc.consumptions[0].amount = 10 ** 6;
          doc.consumptions[8800].timestamp = -4;
          return doc;
        },
        'fromJSON: consumptions[8800].timestamp must be an integer in [0, 2^53 - 1], got -4',
      ],
      [
        'a repeated event id, then a bad amount in a later chunk',
        () => {
          const doc = large(10, 9000);
          doc.consumptions[4095].eventId = 'c0';
          doc.consumptions[4097].amount = 0;
          return doc;
        },
        'fromJSON: consumptions[4095].eventId "c0" appears twice',
      ],
      [
        'a grant window that ends before it starts, then a consumption before the horizon',
        () => {
          const doc = { ...large(5, 5), horizon: 3 };
          doc.grants[4].startTime = 40;
          doc.consumptions[0].timestamp = 1;
          return doc;
        },
        'fromJSON: grants[4].startTime must be <= grants[4].endTime, got 40 > 24',
      ],
    ];
    for (const [what, make, message] of cases) {
      it(what, () => {
        const heapBefore = GPULedger.wasmHeapBytes();
        const error = thrown(() => GPULedger.fromJSON(make()));
        expect(error).toBeInstanceOf(LedgerError);
        expect(error.code).toBe('INVALID_SNAPSHOT');
        expect(error.message).toBe(message);
        expect(thrown(() => GPULedger.fromJSON(JSON.stringify(make()))).message).toBe(message);
        expect(GPULedger.wasmHeapBytes()).toBe(heapBefore);
      });
    }
  });

  it('names an unknown field of the document, and counts only its own fields', () => {
    expect(thrown(() => GPULedger.fromJSON({ ...base(), extra: 1 })).message).toBe('fromJSON: unknown field "extra"');
    const { horizon: _horizon, ...v1 } = base();
    expect(thrown(() => GPULedger.fromJSON(JSON.stringify({ ...v1, version: 1, pending: [] }))).message).toBe(
      'fromJSON: unknown field "pending"',
    );
    const inheriting = Object.assign(Object.create({ note: 'x' }), base());
    const ledger = GPULedger.fromJSON(inheriting);
    expect(ledger.toJSON()).toEqual(base());
    ledger.dispose();
  });

  it('counts an own enumerable field whatever its value: undefined, a function, a toJSON method', () => {
    const grant = base().grants[0];
    for (const [name, value] of [
      ['note', undefined],
      ['note', () => 1],
      ['toJSON', () => grant],
    ]) {
      const doc = { ...base(), grants: [{ ...grant, [name]: value }, ...base().grants.slice(1)] };
      expect(thrown(() => GPULedger.fromJSON(doc)).message).toBe(`fromJSON: grants[0] has unknown field "${name}"`);
      const fromText = GPULedger.fromJSON(JSON.stringify(doc)); // the text JSON.stringify writes has no such field
      expect(fromText.toJSON()).toEqual(base());
      fromText.dispose();
    }
  });

  it('names the grant that brings the total above 2^53 - 1', () => {
    const doc = {
      ...base(),
      grants: [
        { grantId: 'a', amount: 2 ** 52, startTime: 0, endTime: 1 },
        { grantId: 'b', amount: 1, startTime: 0, endTime: 1 },
        { grantId: 'c', amount: 2 ** 52, startTime: 0, endTime: 1 },
      ],
      consumptions: [],
    };
    const error = thrown(() => GPULedger.fromJSON(doc));
    expect(error.code).toBe('INVALID_SNAPSHOT');
    expect(error.message).toBe('fromJSON: grants[2] ("c"): amount would bring the total of all grants above 2^53 - 1');
  });

  it('names the entry at fault', () => {
    const doc = { ...base(), grants: [base().grants[0], { ...base().grants[1], amount: -3 }] };
    expect(thrown(() => GPULedger.fromJSON(doc)).message).toContain('grants[1].amount');
  });

  it("counts only an entry's own fields: an inherited field is not unknown, an own one is", () => {
    // An entry whose prototype carries an enumerable field, with the same own fields.
    const inheriting = (entry, extra) => Object.assign(Object.create(extra), entry);
    const doc = base();
    doc.grants = doc.grants.map((g) => inheriting(g, { color: 'red' }));
    doc.consumptions = doc.consumptions.map((c) => inheriting(c, { note: 'x' }));
    const ledger = GPULedger.fromJSON(doc);
    expect(ledger.toJSON()).toEqual(base());
    ledger.dispose();
    // The same field as its own, after the known ones: refused, naming it.
    const own = base();
    own.consumptions[1] = { ...own.consumptions[1], note: 'x' };
    const error = thrown(() => GPULedger.fromJSON(own));
    expect(error.code).toBe('INVALID_SNAPSHOT');
    expect(error.message).toBe('fromJSON: consumptions[1] has unknown field "note"');
  });
});
