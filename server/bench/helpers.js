// Set-up and read-outs for the service benchmark.
import { makeClient } from '../test/support/http-client.js';

const BATCH_LIMIT = 1000; // the batch route's maximum events per request
const GRANTS = 10;
const GRANT_AMOUNT = 100_000_000_000;

/**
 * Writes `events` events to one customer through the batch route, in time order: 10
 * large grants, then consumptions of 1 credit at timestamps 1, 2, 3, … Sequential
 * requests, so the log holds them in that order. Resolves to { ms, expectedBalance }.
 */
export async function fillCustomer(client, customer, events) {
  const started = Date.now();
  let written = 0;
  let consumed = 0;
  while (written < events) {
    const batch = [];
    while (batch.length < BATCH_LIMIT && written + batch.length < events) {
      const i = written + batch.length;
      if (i < GRANTS) batch.push({ type: 'grant', grantId: `big-g${i}`, amount: GRANT_AMOUNT, startTime: 0, endTime: Number.MAX_SAFE_INTEGER });
      else batch.push({ type: 'consumption', eventId: `big-e${i}`, amount: 1, timestamp: i });
    }
    const answer = await client.untilAnswered('POST', `/v1/customers/${customer}/events`, { events: batch });
    if (answer.status !== 200) throw new Error(`fill ${customer}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    consumed += batch.filter((e) => e.type === 'consumption').length;
    written += batch.length;
  }
  return { ms: Date.now() - started, expectedBalance: Math.min(GRANTS, events) * GRANT_AMOUNT - consumed };
}

/**
 * The histograms and counters of GET /metrics whose names contain `word`, as "name:
 * count N, mean M" (sums over label sets): where the service's time goes.
 */
export async function readMetric(target, word) {
  const client = makeClient({ target });
  try {
    const answer = await client.request('GET', '/metrics');
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
