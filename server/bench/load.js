// One measured autocannon run (after an unreported warm-up of the same requests), summed
// up as the figures the benchmark table prints.
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far, from /proc; null elsewhere. */
function cpuSecondsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * options: url, connections, duration (s), warmup (s), headers, `request(i)` returning
 * { method, path, body? } for the i-th request (so every request can carry a fresh id), and
 * `pid` of the server process, whose CPU use is sampled over the measured run.
 * Resolves to { requestsPerSecond, p50, p99, total, ok, non2xx, errors, timeouts, seconds,
 * statusCounts, serverCpu, loadCpu } (CPU as a fraction of one core).
 */
export async function measure({ url, connections, duration, warmup = 2, headers = {}, request, pid }) {
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
  const warm = warmup > 0 ? await autocannon({ url, connections, duration: warmup, requests }) : null;
  const started = process.hrtime.bigint();
  const serverCpuBefore = pid === undefined ? null : cpuSecondsOf(pid);
  const loadCpuBefore = process.cpuUsage();
  const result = await autocannon({ url, connections, duration, requests });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const loadCpu = process.cpuUsage(loadCpuBefore);
  const serverCpuAfter = pid === undefined ? null : cpuSecondsOf(pid);
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    ok: result['2xx'],
    warmupOk: warm === null ? 0 : warm['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration ?? seconds,
    serverCpu: serverCpuBefore === null || serverCpuAfter === null ? null : (serverCpuAfter - serverCpuBefore) / seconds,
    loadCpu: (loadCpu.user + loadCpu.system) / 1e6 / seconds,
    statusCounts: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, v.count])),
  };
}
