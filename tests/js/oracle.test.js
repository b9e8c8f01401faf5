// Checks the test oracle itself, so the differential suite compares against
// something trustworthy. Needs no WASM.
import { describe, expect, it } from 'vitest';
import { OracleLedger, compareCodePoints } from './oracle.js';
import { mulberry32, thrown } from './helpers.js';
import { SEED_EXAMPLE_1, SEED_EXAMPLE_2, runSeed, seedResults } from './fixtures/seed.js';

// Independent feasibility check: can the consumptions be funded by *any*
// allocation? Max flow source -> consumption -> valid grant -> sink.
function fundableByAnyAllocation(grants, consumptions) {
  const n = 2 + consumptions.length + grants.length;
  const source = 0;
  const sink = n - 1;
  const capacity = Array.from({ length: n }, () => new Array(n).fill(0));
  consumptions.forEach((c, i) => {
    capacity[source][1 + i] = c.amount;
    grants.forEach((g, j) => {
      if (g.startTime <= c.timestamp && c.timestamp <= g.endTime) capacity[1 + i][1 + consumptions.length + j] = Infinity;
    });
  });
  grants.forEach((g, j) => (capacity[1 + consumptions.length + j][sink] = g.amount));
  let flow = 0;
  for (;;) {
    const parent = new Array(n).fill(-1);
    parent[source] = source;
    const queue = [source];
    while (queue.length && parent[sink] === -1) {
      const u = queue.shift();
      for (let v = 0; v < n; v++) {
        if (parent[v] === -1 && capacity[u][v] > 0) {
          parent[v] = u;
          queue.push(v);
        }
      }
    }
    if (parent[sink] === -1) break;
    let push = Infinity;
    for (let v = sink; v !== source; v = parent[v]) push = Math.min(push, capacity[parent[v]][v]);
    for (let v = sink; v !== source; v = parent[v]) {
      capacity[parent[v]][v] -= push;
      capacity[v][parent[v]] += push;
    }
    flow += push;
  }
  return flow === consumptions.reduce((sum, c) => sum + c.amount, 0);
}

describe('oracle', () => {
  it.each([
    ['1', SEED_EXAMPLE_1],
    ['2', SEED_EXAMPLE_2],
  ])('reproduces seed example %s', (_, example) => {
    const ledger = new OracleLedger();
    expect(runSeed(ledger, example)).toEqual(seedResults(example));
    for (const [t, balance] of example.balances) expect(ledger.getBalance(t)).toBe(balance);
    for (const [id, allocations] of example.allocations) expect(ledger.allocations(id)).toEqual(allocations);
    expect(ledger.balanceCurve(example.curve.from, example.curve.to)).toEqual(example.curve.points);
  });

  it('orders ids by code point, not by UTF-16 code unit', () => {
    expect('\u{1F600}' < '\uFF5E').toBe(true); // the trap: UTF-16 disagrees
    expect(compareCodePoints('\uFF5E', '\u{1F600}')).toBeLessThan(0);
    expect(compareCodePoints('a', 'ab')).toBeLessThan(0);
    expect(compareCodePoints('b', 'ab')).toBeGreaterThan(0);
    expect(compareCodePoints('x', 'x')).toBe(0);
  });

  it('treats retries and duplicates as the contract says', () => {
    const ledger = new OracleLedger();
    ledger.addGrant('g', 10, 0, 5);
    ledger.addGrant('g', 10, 0, 5);
    expect(thrown(() => ledger.addGrant('g', 11, 0, 5)).code).toBe('DUPLICATE_ID');
    expect(ledger.consume('e', 4, 1)).toBe(true);
    expect(ledger.consume('e', 4, 1)).toBe(true);
    expect(ledger.getBalance(1)).toBe(6);
    expect(thrown(() => ledger.consume('e', 4, 2)).code).toBe('DUPLICATE_ID');
    expect(ledger.consume('big', 7, 1)).toBe(false);
    ledger.addGrant('topup', 1, 1, 1);
    expect(ledger.consume('big', 7, 1)).toBe(true);
  });

  it('accepts a consumption iff some allocation funds all of them, on 300 random ledgers', () => {
    const random = mulberry32(1234);
    const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
    for (let round = 0; round < 300; round++) {
      const ledger = new OracleLedger();
      const grants = [];
      for (let i = 0; i < int(1, 5); i++) {
        const startTime = int(0, 10);
        const grant = { grantId: `g${i}`, amount: int(1, 8), startTime, endTime: int(startTime, 10) };
        grants.push(grant);
        ledger.addGrant(grant.grantId, grant.amount, grant.startTime, grant.endTime);
      }
      const accepted = [];
      for (let i = 0; i < 8; i++) {
        const c = { eventId: `c${i}`, amount: int(1, 6), timestamp: int(0, 10) };
        const expected = fundableByAnyAllocation(grants, [...accepted, c]);
        expect(ledger.consume(c.eventId, c.amount, c.timestamp), `round ${round}`).toBe(expected);
        if (expected) accepted.push(c);
      }
    }
  });

  it('computes balances and curves equal to the literal prefix-replay definition', () => {
    const random = mulberry32(99);
    const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
    for (let round = 0; round < 100; round++) {
      const ledger = new OracleLedger();
      for (let i = 0; i < 30; i++) {
        if (random() < 0.3) {
          const startTime = int(0, 20);
          ledger.addGrant(`g${i}`, int(1, 10), startTime, int(startTime, 20));
        } else {
          ledger.consume(`c${i}`, int(1, 10), int(0, 20));
        }
      }
      const literal = [];
      for (let t = 0; t <= 22; t++) {
        expect(ledger.getBalance(t)).toBe(ledger.getBalanceByPrefixReplay(t));
        literal.push(ledger.getBalanceByPrefixReplay(t));
      }
      const expectedCurve = [[3, literal[3]]];
      for (let t = 4; t <= 22; t++) {
        if (literal[t] !== expectedCurve[expectedCurve.length - 1][1]) expectedCurve.push([t, literal[t]]);
      }
      expect(ledger.balanceCurve(3, 22)).toEqual(expectedCurve);
    }
  });
});
