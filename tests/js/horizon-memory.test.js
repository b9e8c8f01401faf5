// Memory stays bounded under compaction: the horizon workload of `npm run bench`
// (bench/horizon_stream.mjs, README "Finality horizon": a stream of events with
// compact(latest - window) every interval) at a tenth of its scale in every dimension:
// 10^6 events instead of 10^7, compacting every 10^4 events with a window of 10^4 events
// instead of 10^5, so the bound is a tenth of 64 MiB. The same stream without compaction
// must grow far past it, or the bound would prove nothing. `npm run bench` prints the
// full-scale figures.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { runHorizonStream } from '../../bench/horizon_stream.mjs';

const BOUND = (64 * 2 ** 20) / 10;

describe('memory under compaction', () => {
  it('keeps a 10^6-event stream under a tenth of 64 MiB, and grows far past it without compaction', () => {
    const compacted = new GPULedger();
    let peak = 0;
    const sample = () => {
      peak = Math.max(peak, GPULedger.wasmHeapBytes());
    };
    const run = runHorizonStream(compacted, { events: 1e6, every: 1e4, window: 1e4, beforeCompact: sample, observe: sample });
    expect(run.error).toBeNull();
    expect(run.dropped).toBeGreaterThan(0.9e6);
    expect(peak, `peak ${(peak / 2 ** 20).toFixed(1)} MiB`).toBeLessThan(BOUND);
    compacted.dispose();

    const whole = new GPULedger();
    const plain = runHorizonStream(whole, { events: 1e6, every: 0, window: 0 });
    expect(plain.error).toBeNull();
    expect(plain.accepted).toBe(run.accepted); // compaction changed no decision
    expect(GPULedger.wasmHeapBytes()).toBeGreaterThan(10 * BOUND);
    whole.dispose();
  }, 60_000);
});
