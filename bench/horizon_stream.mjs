// The finality-horizon memory workload, shared by `npm run bench` (bench/horizon_bench.mjs)
// and the Vitest bound (tests/js/horizon-memory.test.js): a long-lived customer's stream of
// events with times increasing (one time unit per event) and some backdating, compacted at
// `latest - window` every `every` events.
//   20% grants: 50-500 credits, starting now, valid for 2,000-20,000 time units;
//   80% consumptions: 1-20 credits, now, or (1 in 10) backdated up to 1,000 units.
// Deterministic (a fixed-seed generator), so every run sees the same calls.
import { mulberry32 } from './generators.mjs';

/**
 * Feeds `events` events into `ledger`, calling compact(latest - window) every `every`
 * events (never, when `every` is 0), `beforeCompact(i)` before each compact (and every
 * `every` events when there is none) and `observe(i, compactResult, seconds)` after it. Stops early, returning the error, if the ledger throws (e.g. OUT_OF_MEMORY).
 * Returns { accepted, compactSeconds, dropped, error }.
 */
export function runHorizonStream(
  ledger,
  { events, every, window, seed = 7, beforeCompact = () => {}, observe = () => {}, sampleEvery = every },
) {
  const random = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  let accepted = 0;
  let compactSeconds = 0;
  let dropped = 0;
  try {
    for (let i = 0; i < events; i++) {
      if (random() < 0.2) {
        ledger.addGrant(`g${i}`, int(50, 500), i, i + int(2000, 20000));
      } else {
        const t = random() < 0.1 ? Math.max(ledger.horizon, i - int(0, 1000)) : i;
        if (ledger.consume(`c${i}`, int(1, 20), t)) accepted++;
      }
      if (sampleEvery > 0 && (i + 1) % sampleEvery === 0) beforeCompact(i);
      if (every > 0 && (i + 1) % every === 0 && i >= window) {
        const start = process.hrtime.bigint();
        const result = ledger.compact(i - window);
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        compactSeconds += seconds;
        dropped += result.droppedGrants + result.droppedConsumptions;
        observe(i, result, seconds);
      }
    }
  } catch (error) {
    return { accepted, compactSeconds, dropped, error };
  }
  return { accepted, compactSeconds, dropped, error: null };
}
