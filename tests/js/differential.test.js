// Random call sequences run against the package and the brute-force oracle.
// Every result and every thrown error code must match, and so must the full
// observable state at checkpoints. Failures print the seed and the calls made.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { OracleLedger } from './oracle.js';
import { mulberry32, outcome } from './helpers.js';

const BASE_SEED = Number(process.env.GCL_DIFF_SEED ?? 20240601);

function normalize(result) {
  if (!('error' in result)) return { value: result.value };
  const { error } = result;
  return { threw: error.code ?? error.constructor.name };
}

const formatArg = (value) => (typeof value === 'string' ? JSON.stringify(value) : String(value));
const formatCall = ({ method, args }) => `${method}(${args.map(formatArg).join(', ')})`;

// Drives one package ledger and one oracle side by side, keeping a call log.
class Pair {
  constructor(seed) {
    this.seed = seed;
    this.ledger = new GPULedger();
    this.oracle = new OracleLedger();
    this.log = [];
  }

  context(note) {
    const calls = this.log
      .slice(-60)
      .map((line) => `  ${line}`)
      .join('\n');
    const skipped = this.log.length > 60 ? `  ... ${this.log.length - 60} earlier calls\n` : '';
    return `seed ${this.seed} (rerun with GCL_DIFF_SEED=${this.seed}): ${note}\n${skipped}${calls}`;
  }

  // Runs a call on both sides and requires identical outcomes.
  call(method, ...args) {
    const actual = normalize(outcome(() => this.ledger[method](...args)));
    const expected = normalize(outcome(() => this.oracle[method](...args)));
    this.log.push(`${formatCall({ method, args })} // ${JSON.stringify(expected)}`);
    expect(actual, this.context(`call #${this.log.length}`)).toEqual(expected);
    return expected;
  }

  // Runs an invalid call on the package only: it must throw and change nothing
  // (the checkpoints that follow compare against the untouched oracle).
  invalid(method, args, errorClass) {
    this.log.push(`${formatCall({ method, args })} // throws ${errorClass.name}`);
    const result = outcome(() => this.ledger[method](...args));
    expect(result.error, this.context(`call #${this.log.length}`)).toBeInstanceOf(errorClass);
  }

  checkState({ times, eventIds, from, to }) {
    const note = (what) => this.context(`checkpoint after call #${this.log.length}: ${what}`);
    expect(this.ledger.grantCount, note('grantCount')).toBe(this.oracle.grantCount);
    expect(this.ledger.consumptionCount, note('consumptionCount')).toBe(this.oracle.consumptionCount);
    for (const t of times) expect(this.ledger.getBalance(t), note(`getBalance(${t})`)).toBe(this.oracle.getBalance(t));
    for (const id of eventIds) {
      expect(this.ledger.allocations(id), note(`allocations(${formatArg(id)})`)).toEqual(this.oracle.allocations(id));
    }
    expect(this.ledger.balanceCurve(from, to), note(`balanceCurve(${from}, ${to})`)).toEqual(this.oracle.balanceCurve(from, to));
  }

  dispose() {
    this.ledger.dispose();
  }
}

describe('differential: small colliding time ranges', () => {
  // Small pools make retries, duplicates, equal windows and id reuse across the
  // two namespaces frequent. The astral and U+FF5E ids exercise code point order.
  const GRANT_IDS = ['a', 'b', 'ab', '\uFF5E', '\u{1F600}', 'g'];
  const EVENT_IDS = ['a', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', '\u{1F600}'];
  const TIMES = Array.from({ length: 23 }, (_, t) => t);

  function runSmallSequence(seed) {
    const random = mulberry32(seed);
    const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
    const pick = (items) => items[int(0, items.length - 1)];
    const lastArgs = new Map();
    const pair = new Pair(seed);
    const length = int(10, 40);
    for (let i = 0; i < length; i++) {
      const roll = random();
      if (roll < 0.3) {
        const id = pick(GRANT_IDS);
        const key = `grant:${id}`;
        const startTime = int(0, 20);
        const args = lastArgs.has(key) && random() < 0.4 ? lastArgs.get(key) : [id, int(1, 20), startTime, int(startTime, 20)];
        lastArgs.set(key, args);
        pair.call('addGrant', ...args);
      } else if (roll < 0.75) {
        const id = pick(EVENT_IDS);
        const key = `event:${id}`;
        const args = lastArgs.has(key) && random() < 0.4 ? lastArgs.get(key) : [id, int(1, 6), int(0, 20)];
        lastArgs.set(key, args);
        pair.call('consume', ...args);
      } else if (roll < 0.85) {
        pair.call('getBalance', int(0, 21));
      } else if (roll < 0.9) {
        pair.call('allocations', pick([...EVENT_IDS, ...GRANT_IDS]));
      } else if (roll < 0.95) {
        const from = int(0, 22);
        pair.call('balanceCurve', from, int(from, 22));
      } else {
        const [method, args, errorClass] = pick([
          ['addGrant', [pick(GRANT_IDS), 0, 1, 2], RangeError],
          ['addGrant', ['fresh', 5, 9, 8], RangeError],
          ['consume', [pick(EVENT_IDS), 1.5, 3], RangeError],
          ['consume', [pick(EVENT_IDS), 1, -1], RangeError],
          ['getBalance', ['5'], TypeError],
          ['balanceCurve', [9, 8], RangeError],
        ]);
        pair.invalid(method, args, errorClass);
      }
    }
    pair.checkState({ times: TIMES, eventIds: [...EVENT_IDS, ...GRANT_IDS], from: 0, to: 22 });
    pair.dispose();
  }

  it('matches the oracle on 600 random sequences with retries and duplicates', () => {
    for (let n = 0; n < 600; n++) runSmallSequence(BASE_SEED + n);
  });
});

describe('differential: long sequences with large times and amounts', () => {
  const HORIZON = 1e9;
  const CALLS = 2000;
  const CHECK_EVERY = 500;

  function runLongSequence(seed) {
    const random = mulberry32(seed);
    const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
    const pick = (items) => items[int(0, items.length - 1)];
    // Log-uniform in [1, max]: small and huge values both occur.
    const logUniform = (max) => Math.min(max, Math.max(1, Math.floor(Math.exp(random() * Math.log(max)))));
    const pair = new Pair(seed);
    const grants = []; // argument lists of added grants
    const attempts = []; // argument lists of every consume attempted
    const accepted = new Set();
    const breakpoints = [];
    let now = 0;

    const chooseTime = () => {
      if (breakpoints.length && random() < 0.1) return pick(breakpoints); // collide on purpose
      if (random() < 0.3) return int(0, now); // backdated
      return Math.max(0, now - int(0, 1e6));
    };

    for (let i = 0; i < CALLS; i++) {
      now = Math.min(HORIZON, now + int(0, 1e6));
      const roll = random();
      if (roll < 0.3) {
        let args;
        const special = random();
        if (grants.length && special < 0.05) {
          args = pick(grants); // identical retry
        } else if (grants.length && special < 0.07) {
          const [id, amount, startTime, endTime] = pick(grants);
          args = [id, amount + 1, startTime, endTime]; // DUPLICATE_ID
        } else {
          const startTime = Math.max(0, now - int(0, 5e7));
          const sharedEnd = grants.length && random() < 0.1 ? pick(grants)[3] : -1;
          const endTime = sharedEnd >= startTime ? sharedEnd : Math.min(HORIZON, startTime + logUniform(3e8));
          args = [`g${i}`, logUniform(1e9), startTime, endTime];
          grants.push(args);
          breakpoints.push(startTime, endTime, endTime + 1);
        }
        pair.call('addGrant', ...args);
      } else if (roll < 0.9) {
        let args;
        const special = random();
        if (attempts.length && special < 0.1) {
          args = pick(attempts); // retry: of an accepted one (no double charge) or a rejected one
        } else if (accepted.size && special < 0.12) {
          const [id, amount, timestamp] = pick(attempts.filter(([id]) => accepted.has(id)));
          args = [id, amount, timestamp + 1]; // DUPLICATE_ID
        } else {
          args = [`c${i}`, logUniform(1e9), chooseTime()];
          attempts.push(args);
          breakpoints.push(args[2]);
        }
        const { value } = pair.call('consume', ...args);
        if (value === true) accepted.add(args[0]);
      } else {
        pair.call('getBalance', chooseTime());
      }

      if ((i + 1) % CHECK_EVERY === 0) {
        const times = [...Array.from({ length: 20 }, () => int(0, HORIZON)), ...Array.from({ length: 20 }, () => pick(breakpoints))];
        pair.checkState({ times, eventIds: [...accepted, 'never-used'], from: 0, to: HORIZON + 1 });
      }
    }
    const acceptedShare = accepted.size / attempts.length;
    pair.dispose();
    return acceptedShare;
  }

  for (let n = 0; n < 5; n++) {
    const seed = BASE_SEED + 1000 + n;
    it(`matches the oracle on ${CALLS} calls (seed ${seed})`, () => {
      const acceptedShare = runLongSequence(seed);
      // Both outcomes must be exercised for the comparison to mean anything.
      expect(acceptedShare).toBeGreaterThan(0.1);
      expect(acceptedShare).toBeLessThan(0.9);
    });
  }
});
