// Finality-horizon half of `npm run bench`: WASM heap in use for the horizon workload
// (bench/horizon_stream.mjs) with compact(latest - 10^5) every 10^5 events and without
// compaction, and what compact itself costs.   node bench/horizon_bench.mjs [--quick]
// --quick runs 10^6 events instead of 10^7.
import { GPULedger } from 'gpu-credit-ledger';
import { runHorizonStream } from './horizon_stream.mjs';

const quick = process.argv.includes('--quick');
const events = quick ? 1e6 : 1e7;
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const us = (seconds, count) => (count > 0 ? ((seconds * 1e6) / count).toFixed(3) : '-');

// Peak heap in use, sampled before and after every compact (every 10^5 events without).
function stream(every) {
  const ledger = new GPULedger();
  let peak = 0;
  let compacts = 0;
  let kept = 0;
  const sample = () => {
    peak = Math.max(peak, GPULedger.wasmHeapBytes());
  };
  const start = process.hrtime.bigint();
  const run = runHorizonStream(ledger, {
    events,
    every,
    window: 1e5,
    sampleEvery: 1e5,
    beforeCompact: sample,
    observe: () => {
      sample();
      compacts++;
      kept += ledger.grantCount + ledger.consumptionCount;
    },
  });
  sample();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const reached = run.error ? `refused (${run.error.code ?? run.error.message}) after ${run.accepted} accepted` : 'all';
  ledger.dispose();
  return { ...run, peak, compacts, kept, seconds, reached };
}

console.log(
  `\nfinality horizon: ${events.toExponential(0)} events (20% grants, 80% consumptions, 1 in 10 backdated up to 1,000), WASM heap in use (peak of samples every 10^5 events)`,
);
const compacted = stream(1e5);
console.log(
  `compact(latest - 10^5) every 10^5 events: peak ${mib(compacted.peak)}, ${compacted.seconds.toFixed(1)} s, events: ${compacted.reached}`,
);
const whole = stream(0);
console.log(`no compaction:                              peak ${mib(whole.peak)}, ${whole.seconds.toFixed(1)} s, events: ${whole.reached}`);
console.log(
  `compact itself: ${compacted.compacts} calls, ${us(compacted.compactSeconds, compacted.compacts)} us per call, ` +
    `${us(compacted.compactSeconds, compacted.dropped)} us per dropped event, ` +
    `${us(compacted.compactSeconds, compacted.kept)} us per kept event (the kept state is rebuilt)`,
);

// What a kept grant costs: many long grants, a compact that drops one consumption.
{
  const ledger = new GPULedger();
  const grants = quick ? 2e4 : 1e5;
  for (let i = 0; i < grants; i++) ledger.addGrant(`g${i}`, 10, i, 10 * grants + i);
  ledger.consume('first', 1, 0);
  const start = process.hrtime.bigint();
  const result = ledger.compact(1);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(
    `compact keeping ${grants} grants and dropping ${result.droppedConsumptions} consumption: ${(seconds * 1e3).toFixed(1)} ms, ${us(seconds, grants)} us per kept grant`,
  );
  ledger.dispose();
}
