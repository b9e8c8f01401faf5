// A seeded pseudo-random generator, so that a failing run can be replayed exactly:
// every test prints its seed, and `TEST_SEED=<n>` reruns it with the same choices.
export function seedFromEnv(name) {
  const fromEnv = process.env.TEST_SEED;
  const seed = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) >>> 0 : (Math.random() * 2 ** 32) >>> 0;
  console.log(`# ${name}: seed ${seed} (rerun with TEST_SEED=${seed})`);
  return seed;
}

// mulberry32: small, fast, good enough to pick workloads.
export function makeRng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** integer in [lo, hi] */
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    /** a fresh generator derived from this one (one per concurrent client) */
    fork: () => makeRng((next() * 2 ** 32) >>> 0),
  };
}
