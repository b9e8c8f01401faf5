// Previews, grant lifecycle and pending queue on random call sequences: the package against the brute-force oracle
// (PendingOracle = OracleLedger + queue). Every result, every thrown error code, every
// listener notification, reallocated() after every call, and, at the end, every
// observable view must match. Failures print the seed and the calls made.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { PendingOracle } from './pending-oracle.js';
import { expectedReallocations, mulberry32, outcome } from './helpers.js';

const BASE_SEED = Number(process.env.GCL_DIFF_SEED ?? 20240606);

function normalize(result) {
  if (!('error' in result)) return { value: result.value };
  const { error } = result;
  return { threw: error.code ?? error.constructor.name };
}

// The calls reallocated() describes when they return normally (a dry run changes nothing).
const reportsReallocations = (method, args) =>
  ['addGrant', 'consume', 'submit', 'voidGrant', 'setGrantEnd', 'cancelPending'].includes(method) ||
  (method === 'tryConsume' && args[3]?.dryRun !== true);

// Every accepted consumption's allocations, by id, as the oracle replays them.
const oracleAllocations = (oracle) => new Map(oracle.accepted.map((c) => [c.eventId, oracle.allocations(c.eventId)]));

const formatArg = (value) => (typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value)));

class Pair {
  constructor(seed) {
    this.seed = seed;
    this.ledger = new GPULedger();
    this.oracle = new PendingOracle();
    this.heard = [];
    this.ledger.onPendingAccepted((accepted) => this.heard.push(...accepted));
    this.log = [];
    this.reallocated = [];
    this.moves = 0; // calls that re-routed something, so that the check is not vacuous
  }

  context(note) {
    const calls = this.log
      .slice(-80)
      .map((line) => `  ${line}`)
      .join('\n');
    return `seed ${this.seed} (rerun with GCL_DIFF_SEED=${this.seed}): ${note}\n${calls}`;
  }

  call(method, ...args) {
    this.heard = [];
    const before = oracleAllocations(this.oracle);
    const actual = normalize(outcome(() => this.ledger[method](...args)));
    const expected = normalize(outcome(() => this.oracle[method](...args)));
    this.log.push(`${method}(${args.map(formatArg).join(', ')}) // ${JSON.stringify(expected)}`);
    expect(actual, this.context(`call #${this.log.length}`)).toEqual(expected);
    // A call that throws, and a call that only reads, leave reallocated() as it was.
    if (!expected.threw && reportsReallocations(method, args)) {
      this.reallocated = expectedReallocations(this.oracle, before);
      this.moves += this.reallocated.length > 0 ? 1 : 0;
    }
    expect(this.ledger.reallocated(), this.context(`reallocated() after call #${this.log.length}`)).toEqual(this.reallocated);
    if (method === 'addGrant' || method === 'setGrantEnd') {
      const letIn = 'error' in expected || expected.threw ? [] : this.oracle.lastAccepted;
      expect(this.heard, this.context(`listener after call #${this.log.length}`)).toEqual(letIn);
    } else {
      expect(this.heard, this.context(`no listener call after #${this.log.length}`)).toEqual([]);
    }
    return expected;
  }

  checkState({ times, eventIds, grantIds }) {
    const note = (what) => this.context(`final state: ${what}`);
    for (const t of times) {
      expect(this.ledger.getBalance(t), note(`getBalance(${t})`)).toBe(this.oracle.getBalance(t));
      expect(this.ledger.headroom(t), note(`headroom(${t})`)).toBe(this.oracle.headroom(t));
      expect(this.ledger.grantsAt(t), note(`grantsAt(${t})`)).toEqual(this.oracle.grantsAt(t));
    }
    for (const id of eventIds) expect(this.ledger.allocations(id), note(`allocations(${id})`)).toEqual(this.oracle.allocations(id));
    for (const id of grantIds) expect(this.ledger.burnDown(id), note(`burnDown(${id})`)).toEqual(this.oracle.burnDown(id));
    expect(this.ledger.pending(), note('pending()')).toEqual(this.oracle.pending());
    expect(this.ledger.consumptionCount, note('consumptionCount')).toBe(this.oracle.consumptionCount);
    expect(this.ledger.grantCount, note('grantCount')).toBe(this.oracle.grantCount);
  }

  dispose() {
    this.ledger.dispose();
  }
}

// Tallies outcomes across a suite so that a generator drift cannot make it vacuous.
function tally(counts, method, expected) {
  const { value, threw } = expected;
  let key = `${method}:${threw ?? 'ok'}`;
  if (!threw && method === 'tryConsume') key = `tryConsume:${value.reason ?? 'accepted'}`;
  if (!threw && (method === 'voidGrant' || method === 'setGrantEnd')) key = `${method}:${value.applied}`;
  if (!threw && method === 'submit') key = `submit:${value}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function runSequence(seed, counts, { horizon, maxGrant, maxDraw, length }) {
  const random = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = (items) => items[int(0, items.length - 1)];
  const time = () => int(0, horizon);
  const pair = new Pair(seed);
  const grantIds = [];
  const eventIds = Array.from({ length: 12 }, (_, i) => (i === 11 ? '\u{1F600}' : `e${i}`));
  const lastGrant = new Map();
  const lastEvent = new Map();
  const call = (method, ...args) => {
    const expected = pair.call(method, ...args);
    tally(counts, method, expected);
    if (pair.heard.length) counts.set('listener', (counts.get('listener') ?? 0) + 1);
    return expected;
  };

  for (let i = 0; i < length; i++) {
    const roll = random();
    if (roll < 0.2 || grantIds.length === 0) {
      let args;
      if (lastGrant.size && random() < 0.15) {
        const [id, prev] = pick([...lastGrant]);
        args = random() < 0.5 ? prev : [id, prev[1] + 1, prev[2], prev[3]]; // retry or DUPLICATE_ID
      } else {
        const id = random() < 0.1 && grantIds.length ? pick(grantIds) : `g${i}`; // maybe a voided id reused
        const startTime = time();
        args = [id, int(1, maxGrant), startTime, int(startTime, horizon)];
      }
      const { threw } = call('addGrant', ...args);
      if (!threw && !lastGrant.has(args[0])) lastGrant.set(args[0], args);
      if (!grantIds.includes(args[0])) grantIds.push(args[0]);
    } else if (roll < 0.4) {
      const id = pick(eventIds);
      const args = lastEvent.has(id) && random() < 0.3 ? lastEvent.get(id) : [id, int(1, maxDraw), time()];
      lastEvent.set(id, args);
      const options = pick([undefined, { dryRun: true }, { dryRun: false }, {}]);
      call('tryConsume', ...args, ...(options === undefined ? [] : [options]));
    } else if (roll < 0.5) {
      const id = pick(eventIds);
      const args = lastEvent.has(id) && random() < 0.3 ? lastEvent.get(id) : [id, int(1, maxDraw), time()];
      lastEvent.set(id, args);
      call('consume', ...args);
    } else if (roll < 0.62) {
      const id = pick(eventIds);
      const args = lastEvent.has(id) && random() < 0.3 ? lastEvent.get(id) : [id, int(1, maxDraw * 2), time()];
      lastEvent.set(id, args);
      call('submit', ...args);
    } else if (roll < 0.65) {
      call('cancelPending', pick(eventIds));
    } else if (roll < 0.71) {
      const id = random() < 0.9 ? pick(grantIds) : 'never';
      const { value } = call('voidGrant', id);
      if (value?.applied) lastGrant.delete(id);
    } else if (roll < 0.8) {
      const id = random() < 0.95 ? pick(grantIds) : 'never';
      const start = pair.oracle.grants.get(id)?.startTime ?? 0;
      const end = random() < 0.05 ? Math.max(0, start - 1) : int(start, horizon + 2);
      const { value } = call('setGrantEnd', id, end);
      if (value?.applied) lastGrant.delete(id); // its parameters changed: no identical retry
    } else if (roll < 0.86) {
      call('headroom', time());
    } else if (roll < 0.9) {
      call('grantsAt', time());
    } else if (roll < 0.93) {
      call('burnDown', pick([...grantIds, 'never']));
    } else if (roll < 0.97) {
      call('nextBelow', int(1, maxGrant * 2), time());
    } else {
      call('pending');
    }
  }
  const times = [...new Set([0, horizon, horizon + 1, ...Array.from({ length: 12 }, time)])];
  pair.checkState({ times, eventIds, grantIds: [...grantIds, 'never'] });
  counts.set('reallocated', (counts.get('reallocated') ?? 0) + pair.moves);
  pair.dispose();
}

function expectCovered(counts, keys) {
  if (process.env.GCL_PRINT_COUNTS) console.log(JSON.stringify([...counts].sort()));
  for (const key of keys) expect(counts.get(key) ?? 0, `outcome ${key} never came up: ${JSON.stringify([...counts])}`).toBeGreaterThan(5);
}

describe('previews differential: small colliding ranges', () => {
  it('matches the oracle on 400 random sequences', () => {
    const counts = new Map();
    for (let n = 0; n < 400; n++) runSequence(BASE_SEED + n, counts, { horizon: 20, maxGrant: 10, maxDraw: 6, length: 50 });
    expectCovered(counts, [
      'tryConsume:accepted',
      'tryConsume:INSUFFICIENT_CREDIT',
      'tryConsume:WOULD_UNFUND',
      'voidGrant:true',
      'voidGrant:false',
      'voidGrant:UNKNOWN_ID',
      'setGrantEnd:true',
      'setGrantEnd:false',
      'setGrantEnd:RangeError',
      'submit:queued',
      'submit:accepted',
      'consume:DUPLICATE_ID',
      'addGrant:DUPLICATE_ID',
      'listener',
      'reallocated',
    ]);
  });
});

describe('previews differential: large times and amounts', () => {
  it('matches the oracle on 20 sequences with values up to 1e9', () => {
    const counts = new Map();
    for (let n = 0; n < 20; n++) runSequence(BASE_SEED + 5000 + n, counts, { horizon: 1e9, maxGrant: 1e9, maxDraw: 4e8, length: 150 });
    expectCovered(counts, ['tryConsume:accepted', 'tryConsume:INSUFFICIENT_CREDIT', 'submit:queued', 'setGrantEnd:true', 'reallocated']);
  });
});
