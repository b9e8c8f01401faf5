// Set-up and read-outs for the service benchmark.
import { makeClient } from '../test/support/http-client.js';

const BATCH_LIMIT = 1000; // the batch route's maximum events per request
const GRANTS = 10;
const GRANT_AMOUNT = 100_000_000_000;

/**
 * Writes `events` events to one customer through the batch route: 10 large grants first
 * (alone, so they are in before anything draws on them), then consumptions of 1 credit at
 * timestamps 10, 11, 12, … in batches of 1,000, `inFlight` requests at a time (they may
 * arrive a little out of order; every one is accepted either way). Resolves to
 * { ms, expectedBalance }: the balance after all of them.
 */
export async function fillCustomer(client, customer, events, inFlight = 4) {
  const started = Date.now();
  const send = async (batch) => {
    const answer = await client.untilAnswered('POST', `/v1/customers/${customer}/events`, { events: batch });
    if (answer.status !== 200) throw new Error(`fill ${customer}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    const refused = answer.body.results.find((r) => r.status >= 300 || r.accepted === false);
    if (refused) throw new Error(`fill ${customer}: ${JSON.stringify(refused)}`);
  };
  const grants = Math.min(GRANTS, events);
  await send(
    Array.from({ length: grants }, (_, i) => ({
      type: 'grant',
      grantId: `big-g${i}`,
      amount: GRANT_AMOUNT,
      startTime: 0,
      endTime: Number.MAX_SAFE_INTEGER,
    })),
  );
  let next = grants;
  const worker = async () => {
    while (next < events) {
      const from = next;
      next = Math.min(events, from + BATCH_LIMIT);
      const batch = [];
      for (let i = from; i < next; i += 1) batch.push({ type: 'consumption', eventId: `big-e${i}`, amount: 1, timestamp: i });
      await send(batch);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { ms: Date.now() - started, expectedBalance: grants * GRANT_AMOUNT - (events - grants) };
}

/**
 * The histograms and counters of GET /metrics whose names contain `word`, as "name:
 * count N, mean M" (sums over label sets): where the service's time goes.
 */
export async function readMetric(target, word) {
  const client = makeClient({ target });
  try {
    // Retried: right after a long rebuild the service may still shed load (503).
    const answer = await client.untilAnswered('GET', '/metrics', undefined, { deadline: Date.now() + 10_000 });
    if (answer.status !== 200) return `GET /metrics: ${answer.status}`;
    const sums = new Map();
    for (const line of String(answer.body).split('\n')) {
      if (line.startsWith('#') || !line.includes(word)) continue;
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
      if (!match || match[1].endsWith('_bucket')) continue;
      sums.set(match[1], (sums.get(match[1]) ?? 0) + Number(match[3]));
    }
    const parts = [];
    for (const [name, value] of sums) {
      if (name.endsWith('_sum')) {
        const base = name.slice(0, -4);
        const count = sums.get(`${base}_count`) ?? 0;
        parts.push(`${base}: count ${count}, mean ${count ? (value / count).toPrecision(3) : '-'}`);
      } else if (!name.endsWith('_count')) {
        parts.push(`${name}: ${value}`);
      }
    }
    return parts.length ? parts.join('; ') : `no metric named *${word}*`;
  } finally {
    client.close();
  }
}
