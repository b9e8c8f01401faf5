// The headroom at every time, after every write, of ledgers that grow mostly at their latest
// times (as a service's customers do), through the package against the brute-force oracle.
// Previews at earlier times that keep coming after writes are answered from the ledger's
// copy in reversed time (docs/algorithms.md, fact 24): built on the second such preview, fed
// by every later grant and consumption, dropped by an end change and built again.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { OracleLedger } from './oracle.js';
import { mulberry32 } from './helpers.js';

describe('headroom of a ledger growing at its latest times', () => {
  it('matches the oracle at every time after every write, 40 random ledgers', () => {
    let compared = 0;
    let belowBalance = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const random = mulberry32(seed);
      const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
      const ledger = new GPULedger();
      const oracle = new OracleLedger();
      const log = [];
      let head = 0;
      const both = (method, ...args) => {
        log.push(`${method}(${args.map((a) => JSON.stringify(a)).join(', ')})`);
        const expected = oracle[method](...args);
        expect(ledger[method](...args), `seed ${seed}: ${log.join('; ')}`).toEqual(expected);
      };
      for (let step = 0; step < 50; step++) {
        const roll = int(0, 99);
        if (roll < 25 || oracle.grants.size === 0) {
          const start = Math.max(0, head + int(-6, 4));
          both('addGrant', `g${step}`, int(1, 8), start, start + int(0, 10));
        } else if (roll < 90) {
          const backdated = roll >= 78 && head > 0;
          const t = backdated ? int(0, head) : head + int(0, 2);
          both('consume', `c${step}`, int(1, 4), t);
          if (!backdated) head = t;
        } else {
          const grants = [...oracle.grants.values()];
          const grant = grants[int(0, grants.length - 1)];
          const end = grant.startTime + int(0, 12);
          log.push(`setGrantEnd(${JSON.stringify(grant.grantId)}, ${end})`);
          expect(ledger.setGrantEnd(grant.grantId, end).applied).toBe(oracle.setGrantEnd(grant.grantId, end).applied);
        }
        for (let t = 0; t <= head + 2; t++) {
          const headroom = ledger.headroom(t);
          expect(headroom, `seed ${seed}, headroom(${t}) after ${log.join('; ')}`).toBe(oracle.headroom(t));
          compared += 1;
          if (headroom < oracle.getBalance(t)) belowBalance += 1;
        }
      }
      ledger.dispose();
    }
    expect(compared).toBeGreaterThan(20000);
    expect(belowBalance).toBeGreaterThan(1000); // the cases where headroom is not the balance
  });
});
