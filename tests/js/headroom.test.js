// headroom(t): the largest amount consume(_, amount, t) would accept now, exactly
// (docs/algorithms.md gives the formula and the chain counterexample).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { OracleLedger } from './oracle.js';
import { mulberry32 } from './helpers.js';

const MAX = Number.MAX_SAFE_INTEGER;

let ledger;
beforeEach(() => {
  ledger = new GPULedger();
});
afterEach(() => {
  if (!ledger.disposed) ledger.dispose();
});

describe('headroom', () => {
  it('is lower than the balance when a later consumption reserves credit', () => {
    ledger.addGrant('g', 4, 0, 2);
    ledger.consume('c', 1, 1);
    expect(ledger.getBalance(0)).toBe(4);
    expect(ledger.headroom(0)).toBe(3);
    expect(ledger.headroom(2)).toBe(3);
    expect(ledger.headroom(3)).toBe(0);
    expect(ledger.consume('x', 4, 0)).toBe(false);
    expect(ledger.consume('x', 3, 0)).toBe(true);
  });

  it('sees chains of times that no single window shows (docs/algorithms.md, fact 5)', () => {
    ledger.addGrant('g1', 1, 0, 2);
    ledger.addGrant('g2', 2, 1, 1);
    ledger.consume('a', 1, 0);
    expect([0, 1, 2].map((t) => ledger.headroom(t))).toEqual([0, 2, 0]);
  });

  it('is exact at the largest amounts', () => {
    expect(ledger.headroom(0)).toBe(0);
    ledger.addGrant('all', MAX, 0, MAX);
    expect(ledger.headroom(MAX)).toBe(MAX);
    ledger.consume('c', MAX - 1, MAX);
    expect(ledger.headroom(0)).toBe(1);
  });

  // A ledger growing at its latest times, asked about earlier times after each write: the
  // engine answers most of these from the suffix after the time asked (docs/algorithms.md,
  // fact 20) and rebuilds its index for the rest. Every answer against the brute-force oracle.
  it('follows writes at the latest times when asked about earlier times', () => {
    const random = mulberry32(20261130);
    const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
    const oracle = new OracleLedger();
    let now = 0;
    let checked = 0;
    for (let i = 0; i < 240; i++) {
      now += int(0, 3);
      let args;
      if (i % 6 === 0) {
        args = ['addGrant', `g${i}`, int(5, 40), now + int(0, 4), now + int(10, 60)];
      } else if (i % 6 === 1) {
        const start = int(0, now); // a grant reaching back: the left part changes
        args = ['addGrant', `g${i}`, int(1, 10), start, start + int(0, 30)];
      } else {
        args = ['consume', `c${i}`, int(1, 8), random() < 0.1 ? int(0, now) : now];
      }
      const [method, ...rest] = args;
      expect(ledger[method](...rest), `${method}(${rest.join(', ')})`).toBe(oracle[method](...rest));
      for (let q = 0; q < 3; q++) {
        const t = int(0, now);
        expect(ledger.headroom(t), `headroom(${t}) after call ${i}`).toBe(oracle.headroom(t));
        checked += 1;
      }
    }
    expect(checked).toBe(720);
  });
});
