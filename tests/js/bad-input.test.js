// Every kind of bad input for every argument of every method: the right error class, a
// message naming the argument, an unchanged ledger, and a ledger that still works.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { SEED_EXAMPLE_1, runSeed } from './fixtures/seed.js';
import { fullState, snapshot, thrown } from './helpers.js';

const MAX = Number.MAX_SAFE_INTEGER;

const WRONG_TYPES = [
  ['a numeric string', '5'],
  ['null', null],
  ['undefined', undefined],
  ['an object', { value: 5 }],
  ['an array', [5]],
  ['a BigInt', 5n],
  ['a boolean', true],
  ['a Number object', new Number(5)],
  ['a function', () => 5],
  ['a symbol', Symbol('five')],
];

const NUMBERS_OUT_OF_RANGE = [
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['-Infinity', -Infinity],
  ['-1', -1],
  ['1.5', 1.5],
  ['-0.5', -0.5],
  ['2**53', 2 ** 53],
  ['Number.MAX_VALUE', Number.MAX_VALUE],
];

const ID_WRONG_TYPES = [
  ['a number', 5],
  ['null', null],
  ['undefined', undefined],
  ['an object', { id: 'a' }],
  ['an array', ['a']],
  ['a BigInt', 5n],
  ['a boolean', true],
  ['a String object', new String('a')],
  ['a symbol', Symbol('a')],
];

const IDS_OUT_OF_RANGE = [
  ['an empty id', ''],
  ['a lone high surrogate', '\uD800'],
  ['a lone low surrogate inside text', 'a\uDC00b'],
  ['1025 ASCII bytes', 'x'.repeat(1025)],
  ['1026 UTF-8 bytes in 513 UTF-16 units', '\u00e9'.repeat(513)],
  ['1028 UTF-8 bytes in 514 UTF-16 units', '\u{1F600}'.repeat(257)],
];

// Each method with a valid argument list; `kind` says which table applies.
const METHODS = {
  addGrant: {
    args: [
      ['grantId', 'id', 'fresh-grant'],
      ['amount', 'amount', 5],
      ['startTime', 'time', 2],
      ['endTime', 'time', 8],
    ],
    call: (ledger, args) => ledger.addGrant(...args),
  },
  consume: {
    args: [
      ['eventId', 'id', 'fresh-event'],
      ['amount', 'amount', 1],
      ['timestamp', 'time', 5],
    ],
    call: (ledger, args) => ledger.consume(...args),
  },
  getBalance: {
    args: [['timestamp', 'time', 5]],
    call: (ledger, args) => ledger.getBalance(...args),
  },
  allocations: {
    args: [['eventId', 'id', 'c1']],
    call: (ledger, args) => ledger.allocations(...args),
  },
  balanceCurve: {
    args: [
      ['from', 'time', 0],
      ['to', 'time', 20],
    ],
    call: (ledger, args) => ledger.balanceCurve(...args),
  },
};

function badValuesFor(kind) {
  if (kind === 'id') return [...ID_WRONG_TYPES.map((c) => [...c, TypeError]), ...IDS_OUT_OF_RANGE.map((c) => [...c, RangeError])];
  const outOfRange = kind === 'amount' ? [...NUMBERS_OUT_OF_RANGE, ['0', 0]] : NUMBERS_OUT_OF_RANGE;
  return [...WRONG_TYPES.map((c) => [...c, TypeError]), ...outOfRange.map((c) => [...c, RangeError])];
}

const SNAPSHOT = { times: [0, 1, 5, 6, 10, 11, 15, 16, 20], eventIds: ['c1', 'c3', 'c2', 'fresh-event'], to: 30 };

let ledger;
beforeEach(() => {
  ledger = new GPULedger();
  runSeed(ledger, SEED_EXAMPLE_1); // c2 rejected, c1 and c3 accepted
});
afterEach(() => ledger.dispose());

// A valid mutation after the error must take effect exactly as on a fresh ledger.
function expectStillWorks() {
  expect(ledger.consume('after-error', 5, 12)).toBe(true);
  expect(ledger.getBalance(12)).toBe(5);
  expect(ledger.allocations('after-error')).toEqual([{ grantId: 'g2', amount: 5 }]);
  ledger.addGrant('after-error-grant', 7, 12, 12);
  expect(ledger.getBalance(12)).toBe(12);
}

function expectRejected(call, errorClass, namePattern) {
  const before = snapshot(ledger, SNAPSHOT);
  const error = thrown(call);
  expect(error).toBeInstanceOf(errorClass);
  expect(error.message).toMatch(namePattern);
  expect(snapshot(ledger, SNAPSHOT)).toEqual(before);
  expectStillWorks();
}

for (const [method, { args, call }] of Object.entries(METHODS)) {
  describe(`${method} argument checks`, () => {
    args.forEach(([argName, kind], position) => {
      for (const [label, value, errorClass] of badValuesFor(kind)) {
        it(`throws ${errorClass.name} naming ${argName} when it is ${label}`, () => {
          const values = args.map(([, , valid]) => valid);
          values[position] = value;
          expectRejected(() => call(ledger, values), errorClass, new RegExp(`\\b${argName}\\b`));
        });
      }

      it(`throws TypeError naming ${argName} when it is missing`, () => {
        const values = args.slice(0, position).map(([, , valid]) => valid);
        expectRejected(() => call(ledger, values), TypeError, new RegExp(`\\b${argName}\\b`));
      });
    });
  });
}

describe('cross-argument checks', () => {
  it('throws RangeError when startTime > endTime', () => {
    expectRejected(() => ledger.addGrant('backwards', 5, 9, 8), RangeError, /startTime|endTime/);
  });

  it('throws RangeError when from > to in balanceCurve', () => {
    expectRejected(() => ledger.balanceCurve(9, 8), RangeError, /\bfrom\b|\bto\b/);
  });
});

describe('total grant amount bound', () => {
  // The fixture holds 150 credits in grants.
  it('refuses a grant that would push the total past 2^53-1, adding nothing', () => {
    expectRejected(() => ledger.addGrant('too-much', MAX - 149, 0, 10), RangeError, /\bamount\b/);
    expect(ledger.grantCount).toBe(3); // g1, g2 and the grant added by expectStillWorks
  });

  it('accepts a grant that brings the total to exactly 2^53-1', () => {
    ledger.addGrant('just-enough', MAX - 150, 20, 20);
    expect(ledger.getBalance(20)).toBe(MAX - 150);
    expect(thrown(() => ledger.addGrant('one-more', 1, 20, 20))).toBeInstanceOf(RangeError);
    expect(ledger.grantCount).toBe(3);
  });

  it('still treats an identical retry as a no-op when the total is at the bound', () => {
    ledger.addGrant('just-enough', MAX - 150, 20, 20);
    expect(ledger.addGrant('just-enough', MAX - 150, 20, 20)).toBeUndefined();
    expect(ledger.grantCount).toBe(3);
  });

  it('refuses a grant whose total overflows even when spread over time', () => {
    const fresh = new GPULedger();
    try {
      fresh.addGrant('a', 2 ** 52, 0, 1);
      fresh.addGrant('b', 2 ** 52 - 1, 100, 200);
      expect(thrown(() => fresh.addGrant('c', 1, 500, 600))).toBeInstanceOf(RangeError);
      expect(fresh.grantCount).toBe(2);
      expect(fresh.getBalance(550)).toBe(0);
    } finally {
      fresh.dispose();
    }
  });
});

describe('boundary values that are valid', () => {
  it('accepts ids of exactly 1024 UTF-8 bytes in any width of character', () => {
    const ids = ['x'.repeat(1024), '\u00e9'.repeat(512), '\u{1F600}'.repeat(256), '\u0800'.repeat(341) + 'x'];
    ids.forEach((id, i) => {
      ledger.addGrant(id, 1, 30 + i, 30 + i);
      expect(ledger.consume(id, 1, 30 + i)).toBe(true);
      expect(ledger.allocations(id)).toEqual([{ grantId: id, amount: 1 }]);
    });
    expect(ledger.grantCount).toBe(6);
  });

  it('accepts time 0 and time 2^53-1', () => {
    ledger.addGrant('edges', 3, 0, MAX);
    expect(ledger.consume('at-zero', 1, 0)).toBe(true);
    expect(ledger.consume('at-max', 1, MAX)).toBe(true);
    expect(ledger.allocations('at-zero')).toEqual([{ grantId: 'g1', amount: 1 }]);
    expect(ledger.allocations('at-max')).toEqual([{ grantId: 'edges', amount: 1 }]);
    expect(ledger.getBalance(MAX)).toBe(2);
    expect(ledger.balanceCurve(MAX, MAX)).toEqual([[MAX, 2]]);
  });

  it('accepts an amount of 2^53-1 in consume and rejects it as unfunded', () => {
    expect(ledger.consume('huge', MAX, 5)).toBe(false);
    expect(ledger.allocations('huge')).toBeNull();
  });

  it('accepts negative zero as time zero, and names it as an amount it refuses', () => {
    expect(ledger.getBalance(-0)).toBe(ledger.getBalance(0));
    expect(thrown(() => ledger.consume('z', -0, 1)).message).toBe('consume: amount must be an integer in [1, 2^53 - 1], got -0');
  });
});

const PROBE = { times: [0, 1, 2, 5, 6, 8, 10, 11, 15, 16, 30], eventIds: ['c1', 'c2', 'c3', 'p', 'x'], from: 0, to: 40 };

describe('bad input to the preview, grant-lifecycle and pending-queue methods', () => {
  const WRONG_NUMBERS = ['5', null, undefined, {}, [5], 5n, true];
  const BAD_NUMBERS = [NaN, Infinity, -1, 1.5, 2 ** 53];
  const WRONG_IDS = [5, null, undefined, {}, ['a'], 5n];
  const BAD_IDS = ['', '\uD800', 'x'.repeat(1025)];

  function expectRefused(call, errorClass) {
    const before = fullState(ledger, PROBE);
    const error = thrown(call);
    expect(error).toBeInstanceOf(errorClass);
    expect(fullState(ledger, PROBE)).toEqual(before);
    return error;
  }

  beforeEach(() => {
    ledger.submit('p', 500, 8); // queued
  });

  it('refuses wrong types with TypeError and bad values with RangeError, naming the argument', () => {
    for (const value of WRONG_NUMBERS) {
      expect(expectRefused(() => ledger.headroom(value), TypeError).message).toMatch(/timestamp/);
      expectRefused(() => ledger.tryConsume('x', value, 1), TypeError);
      expectRefused(() => ledger.tryConsume('x', 1, value, { dryRun: true }), TypeError);
      expectRefused(() => ledger.grantsAt(value), TypeError);
      expect(expectRefused(() => ledger.nextBelow(value, 0), TypeError).message).toMatch(/threshold/);
      expectRefused(() => ledger.nextBelow(1, value), TypeError);
      expect(expectRefused(() => ledger.setGrantEnd('g1', value), TypeError).message).toMatch(/endTime/);
      expectRefused(() => ledger.submit('x', value, 1), TypeError);
    }
    for (const value of BAD_NUMBERS) {
      expectRefused(() => ledger.headroom(value), RangeError);
      expectRefused(() => ledger.tryConsume('x', value, 1), RangeError);
      expectRefused(() => ledger.grantsAt(value), RangeError);
      expectRefused(() => ledger.nextBelow(value, 0), RangeError);
      expectRefused(() => ledger.nextBelow(1, value), RangeError);
      expectRefused(() => ledger.setGrantEnd('g1', value), RangeError);
      expectRefused(() => ledger.submit('x', 1, value), RangeError);
    }
    expect(expectRefused(() => ledger.nextBelow(0, 0), RangeError).message).toMatch(/threshold/);
    const idCalls = [
      (id) => ledger.tryConsume(id, 1, 1),
      (id) => ledger.burnDown(id),
      (id) => ledger.voidGrant(id),
      (id) => ledger.setGrantEnd(id, 5),
      (id) => ledger.submit(id, 1, 1),
      (id) => ledger.cancelPending(id),
    ];
    for (const [ids, kind] of [
      [WRONG_IDS, TypeError],
      [BAD_IDS, RangeError],
    ]) {
      for (const id of ids) {
        for (const call of idCalls) expectRefused(() => call(id), kind);
      }
    }
  });

  it('refuses bad tryConsume options with TypeError, so a typo cannot charge', () => {
    // A key counts whether enumerable or not, a string or a symbol.
    const hidden = Object.defineProperty({}, 'dryrun', { value: true, enumerable: false });
    const symbol = { [Symbol('dryRun')]: true };
    const unknown = [
      null,
      5,
      'dry',
      [true],
      { dryrun: true },
      { dryRun: 1 },
      { dryRun: 'true' },
      { dryRun: true, extra: 1 },
      hidden,
      symbol,
    ];
    for (const options of unknown) {
      expect(expectRefused(() => ledger.tryConsume('x', 1, 1, options), TypeError).message).toMatch(/option/);
    }
    expect(expectRefused(() => ledger.tryConsume('x', 1, 1, symbol), TypeError).message).toBe('tryConsume: unknown option Symbol(dryRun)');
    expect(ledger.consumptionCount).toBe(SEED_EXAMPLE_1.consumptionCount);
  });

  it('refuses unknown grants, windows and listeners', () => {
    expect(expectRefused(() => ledger.voidGrant('nope'), LedgerError).code).toBe('UNKNOWN_ID');
    expect(expectRefused(() => ledger.setGrantEnd('nope', 5), LedgerError).code).toBe('UNKNOWN_ID');
    expect(expectRefused(() => ledger.setGrantEnd('g2', 4), RangeError).message).toMatch(/startTime/);
    expect(expectRefused(() => ledger.onPendingAccepted('not a function'), TypeError).message).toMatch(/listener/);
    expect(expectRefused(() => ledger.submit('p', 500, 9), LedgerError).code).toBe('DUPLICATE_ID');
  });
});
