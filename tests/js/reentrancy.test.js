// Application code that runs inside a call (an event's getter in applyBatch, a column's in
// applyColumns, tryConsume's options) and calls back into the ledger: the call answers as
// its single calls would, one after another, and a ledger disposed there stops the call
// with DISPOSED without touching memory that is no longer the ledger's.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { thrown } from './helpers.js';

const withGetter = (fields, name, get) => Object.defineProperty({ ...fields }, name, { get, enumerable: true });

// A first ledger's batch allocates once what later ones reuse: after it, the heap's count
// returns to its level when a ledger is disposed.
function settledHeap() {
  const warm = new GPULedger();
  warm.addGrant('g', 5, 0, 10);
  warm.applyBatch([{ kind: 'consume', eventId: 'b', amount: 1, timestamp: 1 }]);
  warm.dispose();
  return GPULedger.wasmHeapBytes();
}

describe('a call from inside a call', () => {
  it('applyBatch: a getter that calls the same ledger comes after the events before it, as with single calls', () => {
    const run = (batch) => {
      const ledger = new GPULedger();
      ledger.addGrant('g', 5, 0, 10);
      const inner = [];
      const events = [
        { kind: 'consume', eventId: 'first', amount: 5, timestamp: 1 },
        withGetter({ kind: 'consume', amount: 5, timestamp: 1 }, 'eventId', () => {
          inner.push(ledger.consume('inner', 5, 1), ledger.getBalance(1));
          return 'second';
        }),
        { kind: 'grant', grantId: 'h', amount: 3, startTime: 0, endTime: 10 },
      ];
      const results = batch
        ? ledger.applyBatch(events)
        : events.map((e) =>
            e.kind === 'grant'
              ? (ledger.addGrant(e.grantId, e.amount, e.startTime, e.endTime), true)
              : ledger.consume(e.eventId, e.amount, e.timestamp),
          );
      const out = { results, inner, ledger: ledger.toJSON() };
      ledger.dispose();
      return out;
    };
    const single = run(false);
    expect(single).toEqual({
      results: [true, false, true],
      inner: [false, 0],
      ledger: expect.objectContaining({ consumptions: [{ eventId: 'first', amount: 5, timestamp: 1 }] }),
    });
    // The batch read every event of its chunk before applying any: the getter's call ran
    // first ([false, false], the ledger holding 'inner').
    expect(run(true)).toEqual(single);
  });

  it('applyBatch: an applyBatch of the same ledger from a getter runs after the events before it', () => {
    const ledger = new GPULedger();
    ledger.addGrant('g', 4, 0, 10);
    let nested;
    const results = ledger.applyBatch([
      { kind: 'consume', eventId: 'a', amount: 3, timestamp: 1 },
      withGetter({ kind: 'consume', amount: 1, timestamp: 1 }, 'eventId', () => {
        nested = ledger.applyBatch([{ kind: 'consume', eventId: 'n', amount: 2, timestamp: 1 }]);
        return 'b';
      }),
    ]);
    expect([results, nested]).toEqual([[true, true], [false]]);
    expect(ledger.toJSON().consumptions.map((c) => c.eventId)).toEqual(['a', 'b']);
    ledger.dispose();
  });

  it('a getter that disposes the ledger stops the call with DISPOSED, and the ledger made next in its memory is untouched', () => {
    const heap = settledHeap();
    for (const [method, call] of [
      [
        'applyBatch',
        (ledger, dispose) =>
          ledger.applyBatch([
            { kind: 'consume', eventId: 'b', amount: 1, timestamp: 1 },
            withGetter({ kind: 'consume', amount: 1, timestamp: 1 }, 'eventId', () => (dispose(), 'x')),
          ]),
      ],
      [
        'applyColumns',
        (ledger, dispose) =>
          ledger.applyColumns(
            withGetter(
              {
                kinds: new Uint8Array([1]),
                ids: new TextEncoder().encode('x'),
                idEnds: new Uint32Array([1]),
                amounts: new Float64Array([1]),
                times: new Float64Array([1]),
              },
              'endTimes',
              () => (dispose(), new Float64Array([0])),
            ),
          ),
      ],
      [
        'tryConsume',
        (ledger, dispose) =>
          ledger.tryConsume(
            'x',
            1,
            1,
            withGetter({}, 'dryRun', () => (dispose(), false)),
          ),
      ],
    ]) {
      const ledger = new GPULedger();
      ledger.addGrant('g', 5, 0, 10);
      let next;
      const dispose = () => {
        ledger.dispose();
        next = new GPULedger(); // likely in the memory the disposed ledger freed
        next.addGrant('zz', 7, 0, 3);
      };
      const error = thrown(() => call(ledger, dispose));
      expect([error?.code, error?.message], method).toEqual(['DISPOSED', `${method}: this ledger was disposed`]);
      expect(next.toJSON(), method).toEqual({
        format: 'gpu-credit-ledger',
        version: 2,
        horizon: 0,
        grants: [{ grantId: 'zz', amount: 7, startTime: 0, endTime: 3 }],
        consumptions: [],
      });
      next.dispose();
      expect(GPULedger.wasmHeapBytes(), method).toBe(heap);
    }
  });

  it('tryConsume reads options.dryRun once: the value checked is the value used', () => {
    const ledger = new GPULedger();
    ledger.addGrant('g', 5, 0, 10);
    let reads = 0;
    const shifting = withGetter({}, 'dryRun', () => reads++ === 0);
    expect(ledger.tryConsume('c', 2, 1, shifting).accepted).toBe(true);
    expect([reads, ledger.allocations('c'), ledger.getBalance(1)]).toEqual([1, null, 5]);
    let calls = 0;
    const invalidLater = withGetter({}, 'dryRun', () => (calls++ === 0 ? true : 'yes'));
    expect(ledger.tryConsume('d', 2, 1, invalidLater).accepted).toBe(true);
    expect(ledger.getBalance(1)).toBe(5);
    ledger.dispose();
  });
});

describe('applyColumns reads each column once, as the typed array it is', () => {
  const enc = new TextEncoder();
  const columnsOf = (kinds, ids, amounts = kinds.map(() => 1)) => {
    const bytes = ids.map((id) => enc.encode(id));
    const ends = [];
    bytes.reduce((at, b) => (ends.push(at + b.length), at + b.length), 0);
    return {
      kinds: Uint8Array.from(kinds),
      ids: Uint8Array.from(bytes.flatMap((b) => [...b])),
      idEnds: Uint32Array.from(ends),
      amounts: Float64Array.from(amounts),
      times: new Float64Array(kinds.length).fill(1),
      endTimes: new Float64Array(kinds.length).fill(9),
    };
  };
  const outcome = (ledger, columns) => {
    const { results, errors } = ledger.applyColumns(columns);
    return { results: [...results], errors: [...errors].map(([i, e]) => [i, e.message]), doc: ledger.toJSON() };
  };

  it("a subclass's methods never run, and a Proxy is refused", () => {
    const plain = columnsOf([0, 1], ['g', 'c']);
    const expected = outcome(new GPULedger(), columnsOf([0, 1], ['g', 'c']));
    let calls = 0;
    class Sneaky extends Uint8Array {
      subarray(...args) {
        calls++;
        return super.subarray(...args);
      }
      get length() {
        calls++;
        return super.length;
      }
    }
    const ledger = new GPULedger();
    expect(outcome(ledger, { ...plain, kinds: new Sneaky(plain.kinds), ids: new Sneaky(plain.ids) })).toEqual(expected);
    expect(calls).toBe(0);
    const proxied = { ...columnsOf([0], ['h']), kinds: new Proxy(Uint8Array.of(0), {}) };
    const error = thrown(() => ledger.applyColumns(proxied));
    expect([error.constructor, error.message]).toEqual([
      TypeError,
      'applyColumns: columns.kinds must be a Uint8Array, got an object that only looks like one',
    ]);
    expect(ledger.toJSON()).toEqual(expected.doc);
    ledger.dispose();
  });

  it('a column over a SharedArrayBuffer is read when its turn comes: a later change is not loaded', () => {
    const columns = columnsOf([0, 1], ['g', 'c'], [5, 2]);
    const shared = new Uint8Array(new SharedArrayBuffer(2));
    shared.set(columns.kinds);
    const ledger = new GPULedger();
    const read = withGetter({ ...columns, kinds: shared }, 'endTimes', () => {
      shared[0] = 1; // after kinds was read: the grant must stay a grant
      return columns.endTimes;
    });
    expect(outcome(ledger, read).results).toEqual([1, 1]);
    expect(ledger.toJSON().grants).toEqual([{ grantId: 'g', amount: 5, startTime: 1, endTime: 9 }]);
    ledger.dispose();
  });
});

describe("options and documents: each field read once, and only the object's own", () => {
  it('an inherited dryRun (a polluted Object.prototype) does not turn a charge into a dry run', () => {
    const ledger = new GPULedger();
    ledger.addGrant('g', 5, 0, 10);
    Object.prototype.dryRun = true;
    try {
      expect(ledger.tryConsume('c', 2, 1).accepted).toBe(true);
      expect(ledger.tryConsume('d', 1, 1, {}).accepted).toBe(true);
    } finally {
      delete Object.prototype.dryRun;
    }
    expect(ledger.getBalance(1)).toBe(2);
    ledger.dispose();
  });

  it("fromJSON: a document's fields are its own, each read once", () => {
    const doc = {
      format: 'gpu-credit-ledger',
      version: 2,
      horizon: 0,
      grants: [{ grantId: 'g', amount: 5, startTime: 0, endTime: 9 }],
      consumptions: [],
    };
    const inherited = Object.create({ grants: doc.grants, consumptions: [] });
    Object.assign(inherited, { format: doc.format, version: 2, horizon: 0 });
    expect([thrown(() => GPULedger.fromJSON(inherited))?.code, thrown(() => GPULedger.fromJSON(inherited))?.message]).toEqual([
      'INVALID_SNAPSHOT',
      'fromJSON: grants must be an array',
    ]);
    let reads = 0;
    const shifting = withGetter({ ...doc }, 'horizon', () => (reads++ === 0 ? 0 : 'later'));
    const restored = GPULedger.fromJSON(shifting);
    expect([reads, restored.toJSON()]).toEqual([1, doc]);
    restored.dispose();
  });

  it('fromJSON: a refused document has each entry field read once too, and its error names the value read', () => {
    const counting = (fields, reads, prefix) => {
      const entry = {};
      for (const [key, value] of Object.entries(fields)) {
        const read = typeof value === 'function' ? value : () => value;
        Object.defineProperty(entry, key, {
          get: () => read((reads[`${prefix}.${key}`] = (reads[`${prefix}.${key}`] ?? 0) + 1)),
          enumerable: true,
        });
      }
      return entry;
    };
    const doc = (grants, consumptions) => ({ format: 'gpu-credit-ledger', version: 2, horizon: 0, grants, consumptions });
    const grant = (id, amount) => ({ grantId: id, amount, startTime: 0, endTime: 9 });
    const refusal = (document) => {
      const error = thrown(() => GPULedger.fromJSON(document));
      return error && [error.code, error.message];
    };
    const everyOnce = (reads) => Object.values(reads).every((n) => n === 1);
    // Each way a document is refused after its entries were read: a bad value later on, an
    // id that appears twice, a grant total over 2^53 - 1, a consumption that cannot be funded.
    const cases = [
      [
        (r) => doc([counting(grant('g0', 5), r, 'g0'), grant('g1', -1)], []),
        'fromJSON: grants[1].amount must be an integer in [1, 2^53 - 1], got -1',
      ],
      [(r) => doc([counting(grant('g', 5), r, 'g0'), grant('g', 5)], []), 'fromJSON: grants[1].grantId "g" appears twice'],
      [(r) => doc([counting(grant('g0', 2 ** 53 - 1), r, 'g0'), grant('g1', 1)], []), null],
      [
        (r) => doc([counting(grant('g0', 1), r, 'g0')], [counting({ eventId: 'c', amount: 2, timestamp: 1 }, r, 'c')]),
        'fromJSON: consumptions[0] ("c") cannot be funded: the rules would have rejected it',
      ],
    ];
    for (const [make, message] of cases) {
      const reads = {};
      const [code, text] = refusal(make(reads));
      expect(code).toBe('INVALID_SNAPSHOT');
      if (message !== null) expect(text).toBe(message);
      expect([text, everyOnce(reads), Object.keys(reads).length > 0]).toEqual([text, true, true]);
    }
    // A getter that throws at a second read, or answers otherwise: the refusal is the
    // document's, about the value that was read.
    const reads = {};
    const flipping = counting({ grantId: 'g0', amount: (n) => (n === 1 ? 1 : -7), startTime: 0, endTime: 9 }, reads, 'g0');
    expect(refusal(doc([flipping], [{ eventId: 'c', amount: 2, timestamp: 1 }]))).toEqual([
      'INVALID_SNAPSHOT',
      'fromJSON: consumptions[0] ("c") cannot be funded: the rules would have rejected it',
    ]);
    const throwing = counting(
      {
        grantId: 'g0',
        amount: (n) => {
          if (n > 1) throw new Error('read twice');
          return 1;
        },
        startTime: 0,
        endTime: 9,
      },
      {},
      'g0',
    );
    expect(refusal(doc([throwing, grant('g1', 0)], []))?.[0]).toBe('INVALID_SNAPSHOT');
  });

  it("fromJSON: an entry's fields are its own too (an inherited one is missing)", () => {
    const grant = { grantId: 'g', amount: 5, startTime: 0, endTime: 9 };
    const consumption = { eventId: 'c', amount: 2, timestamp: 3 };
    const doc = (grants, consumptions) => ({ format: 'gpu-credit-ledger', version: 2, horizon: 0, grants, consumptions });
    const refusal = (document) => {
      const error = thrown(() => GPULedger.fromJSON(document));
      return error && [error.code, error.message];
    };
    const withoutEndTime = Object.assign(Object.create({ endTime: 9 }), { grantId: 'g', amount: 5, startTime: 0 });
    expect(refusal(doc([withoutEndTime], []))).toEqual(['INVALID_SNAPSHOT', 'fromJSON: grants[0].endTime must be a number, got undefined']);
    const withoutTimestamp = Object.assign(Object.create({ timestamp: 3 }), { eventId: 'c', amount: 2 });
    expect(refusal(doc([grant], [withoutTimestamp]))).toEqual([
      'INVALID_SNAPSHOT',
      'fromJSON: consumptions[0].timestamp must be a number, got undefined',
    ]);
    // Fields on Object.prototype, enumerable or not, are no entry's.
    const { endTime: _endTime, ...partial } = grant;
    const { amount: _amount, ...noAmount } = consumption;
    try {
      Object.prototype.endTime = 9;
      Object.defineProperty(Object.prototype, 'amount', { value: 2, configurable: true, writable: true });
      expect(refusal(doc([partial], []))).toEqual(['INVALID_SNAPSHOT', 'fromJSON: grants[0].endTime must be a number, got undefined']);
      expect(refusal(doc([grant], [noAmount]))).toEqual([
        'INVALID_SNAPSHOT',
        'fromJSON: consumptions[0].amount must be a number, got undefined',
      ]);
    } finally {
      delete Object.prototype.endTime;
      delete Object.prototype.amount;
    }
    // Own fields on another prototype, or on none, are read as they are.
    class Grant {
      constructor() {
        Object.assign(this, grant);
      }
    }
    const restored = GPULedger.fromJSON(doc([new Grant()], [Object.assign(Object.create(null), consumption)]));
    expect(restored.toJSON()).toEqual(doc([grant], [consumption]));
    restored.dispose();
  });

  it('fromJSON: a field is an own enumerable property, at every level (as JSON.stringify writes it)', () => {
    const refusal = (document) => {
      const error = thrown(() => GPULedger.fromJSON(document));
      return error && [error.code, error.message];
    };
    const hidden = (object, key, value) => Object.defineProperty(object, key, { value, enumerable: false });
    const doc = (grants, consumptions) => ({ format: 'gpu-credit-ledger', version: 2, horizon: 0, grants, consumptions });
    // A non-enumerable field is missing: on the document and on an entry alike.
    const noHorizon = hidden({ format: 'gpu-credit-ledger', version: 2, grants: [], consumptions: [] }, 'horizon', 0);
    expect(refusal(noHorizon)?.[0]).toBe('INVALID_SNAPSHOT');
    expect(refusal(doc([hidden({ grantId: 'g', amount: 5, startTime: 0 }, 'endTime', 9)], []))).toEqual([
      'INVALID_SNAPSHOT',
      'fromJSON: grants[0].endTime must be a number, got undefined',
    ]);
    const grant = { grantId: 'g', amount: 5, startTime: 0, endTime: 9 };
    expect(refusal(doc([grant], [hidden({ eventId: 'c', amount: 2 }, 'timestamp', 3)]))).toEqual([
      'INVALID_SNAPSHOT',
      'fromJSON: consumptions[0].timestamp must be a number, got undefined',
    ]);
    // An unknown non-enumerable property is not a field, at either level.
    const document = hidden(
      doc([hidden({ ...grant }, 'note', 1)], [hidden({ eventId: 'c', amount: 2, timestamp: 3 }, 'note', 1)]),
      'note',
      1,
    );
    const restored = GPULedger.fromJSON(document);
    expect(restored.toJSON()).toEqual(JSON.parse(JSON.stringify(document)));
    restored.dispose();
  });
});
