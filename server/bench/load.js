// One measured autocannon run (after an unreported warm-up of the same requests), summed
// up as the figures the benchmark table prints.
import autocannon from 'autocannon';

/**
 * options: url, connections, duration (s), warmup (s), headers, and `request(i)` returning
 * { method, path, body? } for the i-th request (so every request can carry a fresh id).
 * Resolves to { requestsPerSecond, p50, p99, total, non2xx, errors, timeouts, seconds }.
 */
export async function measure({ url, connections, duration, warmup = 2, headers = {}, request }) {
  let counter = 0;
  const requests = [
    {
      setupRequest: (req) => {
        const next = request(counter++);
        return {
          ...req,
          method: next.method,
          path: next.path,
          body: next.body === undefined ? undefined : JSON.stringify(next.body),
          headers: next.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        };
      },
    },
  ];
  if (warmup > 0) await autocannon({ url, connections, duration: warmup, requests });
  const started = process.hrtime.bigint();
  const result = await autocannon({ url, connections, duration, requests });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration ?? seconds,
    statusCounts: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, v.count])),
  };
}
