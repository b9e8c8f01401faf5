// Backdated rejections on long chains (docs/algorithms.md, facts 8 and 18): the package
// against the brute-force HorizonOracle on chains long enough that a backdated call runs
// past the engine's re-draw budget, with retries of rejected calls interleaved with writes
// of every kind (grants, in-order and backdated consumptions, submit, voidGrant,
// setGrantEnd, compact). Every result, thrown code, reallocated() answer and, at the end,
// every observable view must match the oracle. Retries also ask for more at a rejected
// time. That the bound answers retries without re-drawing is held to counters in
// tests/cpp/rejection_test.cpp.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { HorizonOracle } from './horizon-oracle.js';
import { expectedReallocations, mulberry32, outcome } from './helpers.js';

const BASE_SEED = Number(process.env.GCL_DIFF_SEED ?? 20261130);

function normalize(result) {
  if (!('error' in result)) return { value: result.value };
  return { threw: result.error.code ?? result.error.constructor.name };
}

const writes = ['addGrant', 'consume', 'submit', 'voidGrant', 'setGrantEnd', 'cancelPending'];

// n unit grants g_i on [i, i + 1], consumptions of 1 at i + 1, and `spare` credit after it.
function chainEvents(n, spare) {
  const calls = [];
  for (let i = 0; i < n; i++) calls.push(['addGrant', `g${i}`, 1, i, i + 1]);
  calls.push(['addGrant', 'later', spare, n + 1, 10 * n]);
  for (let i = 0; i < n; i++) calls.push(['consume', `c${i}`, 1, i + 1]);
  return calls;
}

function runSequence(seed, counts, { chain, length }) {
  const random = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const ledger = new GPULedger();
  const oracle = new HorizonOracle();
  for (const [method, ...args] of chainEvents(chain, 50)) {
    ledger[method](...args);
    oracle[method](...args);
  }
  const log = [];
  const context = (note) => `seed ${seed} (rerun with GCL_DIFF_SEED=${seed}): ${note}\n${log.slice(-40).join('\n')}`;
  let reallocated = [];
  const call = (method, ...args) => {
    const before = new Map(oracle.accepted.map((c) => [c.eventId, oracle.allocations(c.eventId)]));
    const actual = normalize(outcome(() => ledger[method](...args)));
    const expected = normalize(outcome(() => oracle[method](...args)));
    log.push(`  ${method}(${args.map((a) => JSON.stringify(a)).join(', ')}) // ${JSON.stringify(expected)}`);
    expect(actual, context(`call #${log.length}`)).toEqual(expected);
    const changes = writes.includes(method) || method === 'compact' || (method === 'tryConsume' && !args[3]?.dryRun);
    if (!expected.threw && changes) reallocated = method === 'compact' ? [] : expectedReallocations(oracle, before);
    expect(ledger.reallocated(), context(`reallocated() after call #${log.length}`)).toEqual(reallocated);
    let key = `${method}:${expected.threw ?? 'ok'}`;
    if (!expected.threw && method === 'tryConsume') key = `tryConsume:${expected.value.reason ?? 'accepted'}`;
    if (!expected.threw && method === 'consume') key = `consume:${expected.value}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return expected;
  };

  const rejected = []; // backdated calls to retry
  let head = chain + 1;
  let next = 0;
  const backdated = () => [`b${next++}`, int(1, 2), int(oracle.horizon, chain)];
  for (let i = 0; i < length; i++) {
    const roll = random();
    if (roll < 0.4 && rejected.length) {
      const [id, amount, t] = rejected[int(0, rejected.length - 1)];
      const how = int(0, 4);
      if (how === 0) call('consume', id, amount, t);
      else if (how === 1) call('tryConsume', id, amount, t, { dryRun: true });
      else if (how === 2) call('tryConsume', id, amount, t);
      else if (how === 3) call('submit', id, amount, t);
      // More at the same time (a kept blocker rejects it at once, fact 23).
      else call(random() < 0.5 ? 'consume' : 'tryConsume', `m${next++}`, amount + int(0, 2), t);
    } else if (roll < 0.55) {
      const args = backdated();
      const { value } = call('consume', ...args);
      if (value === false) rejected.push(args);
    } else if (roll < 0.62) {
      const args = backdated();
      call('tryConsume', ...args, { dryRun: random() < 0.5 });
    } else if (roll < 0.75) {
      call('consume', `h${next++}`, 1, head);
      head += int(0, 2);
    } else if (roll < 0.83) {
      const start = int(oracle.horizon, chain + 2);
      call('addGrant', `n${next++}`, int(1, 2), start, start + int(0, 4));
    } else if (roll < 0.89) {
      const g = `g${int(0, chain - 1)}`;
      call('setGrantEnd', g, int(0, chain + 3));
    } else if (roll < 0.94) {
      call('voidGrant', `g${int(0, chain - 1)}`);
    } else if (roll < 0.97) {
      call('cancelPending', rejected.length ? rejected[int(0, rejected.length - 1)][0] : 'none');
    } else {
      call('compact', Math.min(chain, oracle.horizon + int(0, chain >> 3)));
    }
  }
  const note = (what) => context(`final state: ${what}`);
  for (let t = oracle.horizon; t <= head + 1; t += int(1, 97)) {
    expect(ledger.getBalance(t), note(`getBalance(${t})`)).toBe(oracle.getBalance(t));
    expect(ledger.headroom(t), note(`headroom(${t})`)).toBe(oracle.headroom(t));
  }
  for (const c of oracle.accepted)
    expect(ledger.allocations(c.eventId), note(`allocations(${c.eventId})`)).toEqual(oracle.allocations(c.eventId));
  expect(ledger.pending(), note('pending()')).toEqual(oracle.pending());
  ledger.dispose();
}

describe('backdated rejections on long chains', () => {
  it('match the oracle with retries between writes of every kind', () => {
    const counts = new Map();
    // Past the re-draw budget (at least 256 consumptions, an eighth of the events).
    for (let n = 0; n < 6; n++) runSequence(BASE_SEED + n, counts, { chain: 1200, length: 90 });
    if (process.env.GCL_PRINT_COUNTS) console.log(JSON.stringify([...counts].sort()));
    for (const key of [
      'consume:false',
      'consume:true',
      'tryConsume:WOULD_UNFUND',
      'tryConsume:accepted',
      'submit:ok',
      'setGrantEnd:ok',
      'voidGrant:ok',
      'compact:ok',
    ]) {
      expect(counts.get(key) ?? 0, `outcome ${key} never came up: ${JSON.stringify([...counts])}`).toBeGreaterThan(3);
    }
  }, 120_000);
});
