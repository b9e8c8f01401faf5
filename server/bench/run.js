// `npm run bench:server`: the service under autocannon on loopback, against the HTTP
// floor of a no-op Fastify route (measured before and after the service), in one run.
// Prints a table with the command and date, and checks that what was answered 2xx was
// committed.
//
//   node server/bench/run.js [--duration 10] [--connections 64] [--customers 1000]
//     [--batch 100] [--rebuild-events 1000000] [--store PATH | --store postgres://…]
//     [--only floor,single,batch,reads,cached-reads,rebuild] [--store postgres [--instances 3]]
//
// --store is passed to the service as LEDGER_STORE (default: a SQLite file in a temp
// folder), so another store implementation is benchmarked by naming it there.
// `--store postgres` starts a throw-away PostgreSQL 15 (fsync on) for the run, and
// `--instances N` runs N service instances on it, each loaded by its own autocannon with
// its own share of the customers (what a proxy hashing on the customer path does).
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { startServer, killAllServers, repoRoot } from '../test/support/server-process.js';
import { makeClient } from '../test/support/http-client.js';
import { makeTempDir, writeKeyFile } from '../test/support/tmp.js';
import { measure } from './load.js';
import { fillCustomer, readMetric } from './helpers.js';
import { mapConcurrent } from '../test/support/ledger-state.js';
import { startPostgres } from '../test/support/postgres.js';

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' },
    customers: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '100' },
    'rebuild-events': { type: 'string', default: '1000000' },
    store: { type: 'string' },
    only: { type: 'string', default: 'floor,single,batch,reads,rebuild' },
    instances: { type: 'string', default: '1' },
  },
});
const duration = Number(opts.duration);
const connections = Number(opts.connections);
const customers = Number(opts.customers);
const batchSize = Number(opts.batch);
const rebuildEvents = Number(opts['rebuild-events']);
const only = new Set(opts.only.split(','));

const instances = Number(opts.instances);
const tmp = makeTempDir('ledger-bench');
const postgres = opts.store === 'postgres' ? await startPostgres({ fsync: true }) : null;
const store = postgres?.url ?? opts.store ?? join(tmp.path, 'bench.db');
if (instances > 1 && !/^postgres/.test(store)) throw new Error('--instances above 1 needs a shared store: --store postgres');
const { path: keysPath, keys } = writeKeyFile(tmp.path);
const auth = { authorization: `Bearer ${keys.admin}` };
const customerId = (i) => `bench-${i}`;
const FAR = 1_000_000_000_000; // grants last far beyond every timestamp the bench uses

const rows = [];
const notes = [];
function row(name, r, { eventsPerRequest = 1, target = '' } = {}) {
  const failed = r.non2xx + r.errors + r.timeouts;
  rows.push({
    name,
    rps: r.requestsPerSecond,
    p50: r.p50,
    p99: r.p99,
    eventsPerSecond: eventsPerRequest === null ? null : (r.ok * eventsPerRequest) / r.seconds,
    failed,
    serverCpu: r.serverCpu,
    loadCpu: r.loadCpu,
    target,
  });
  if (failed > 0)
    notes.push(
      `${name}: ${r.non2xx} non-2xx answers (by status: ${JSON.stringify(r.statusCounts ?? {})}), ${r.errors} errors, ${r.timeouts} timeouts`,
    );
}

async function main() {
  console.log(`# service benchmark, ${new Date().toISOString()}`);
  console.log(`# command: node server/bench/run.js ${process.argv.slice(2).join(' ')}`.trimEnd());
  console.log(
    `# node ${process.version}, ${cpus().length} cores shared by the server and the load generator (autocannon, same machine, loopback)`,
  );
  console.log(`# load average before the run: ${loadavg()[0].toFixed(2)} (anything else running on the machine takes from both)`);
  console.log(
    `# ${connections} connections, ${duration} s per measurement after a 2 s warm-up; store ${postgres ? 'PostgreSQL 15 (temp cluster, fsync on)' : (opts.store ?? 'SQLite (temp file)')}, ${instances} service instance(s)`,
  );

  const service = ['single', 'batch', 'reads', 'cached-reads', 'rebuild'].some((name) => only.has(name));
  try {
    if (only.has('floor')) await measureFloor('no-op Fastify POST (floor)');
    if (service) await measureService();
    // Measured again at the end: on a shared machine the floor moves with everything else.
    if (only.has('floor') && service) await measureFloor('no-op Fastify POST (floor, again)');
  } finally {
    printTable(); // what was measured before a failure is still worth seeing
  }
}

async function measureFloor(name) {
  const noop = await startServer({ entry: join(repoRoot, 'server', 'bench', 'noop-server.js') });
  const r = await measure({
    url: noop.url,
    pid: noop.pid,
    connections,
    duration,
    request: (i) => ({
      method: 'POST',
      path: `/v1/customers/${customerId(i % customers)}/consumptions`,
      body: { eventId: `n-${i}`, amount: 1, timestamp: i },
    }),
  });
  row(name, r, { eventsPerRequest: null });
  await noop.stop();
}

/**
 * `measure` against every instance at once, `connections` split between them; instance k
 * gets request(i, k). Rates add up, the p50 is the mean, the p99 the worst.
 */
async function measureAll(servers, options) {
  const n = servers.length;
  const parts = await Promise.all(
    servers.map((s, k) =>
      measure({
        ...options,
        url: s.url,
        pid: s.pid,
        connections: Math.max(1, Math.round(options.connections / n)),
        request: (i) => options.request(i, k),
      }),
    ),
  );
  const sum = (f) => parts.reduce((a, r) => a + r[f], 0);
  return {
    requestsPerSecond: sum('requestsPerSecond'),
    p50: sum('p50') / n,
    p99: Math.max(...parts.map((r) => r.p99)),
    total: sum('total'),
    ok: sum('ok'),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    seconds: Math.max(...parts.map((r) => r.seconds)),
    warmupOk: sum('warmupOk'),
    // Every instance's CPU adds up; the autocannons share this process, so each saw it all.
    serverCpu: parts.some((r) => r.serverCpu === null) ? null : sum('serverCpu'),
    loadCpu: Math.max(...parts.map((r) => r.loadCpu)),
    statusCounts: parts.reduce((all, r) => {
      for (const [code, count] of Object.entries(r.statusCounts)) all[code] = (all[code] ?? 0) + count;
      return all;
    }, {}),
  };
}

/** Instance k's share of the customers: k, k + n, k + 2n, … (i-th request → one of them). */
const shareOf = (k, n, i) => k + n * (i % Math.floor(customers / n));

async function measureService() {
  let server = await startServer({ store, keys: keysPath });
  const servers = [server];
  for (let k = 1; k < instances; k++) servers.push(await startServer({ store, keys: keysPath }));
  const client = makeClient({ target: server, key: keys.admin, maxSockets: 16 });

  if (only.has('single') || only.has('batch') || only.has('reads') || only.has('cached-reads')) {
    // One long grant per customer, so that every consumption below is accepted.
    const started = Date.now();
    for (let i = 0; i < customers; i += 1) {
      const answer = await client.untilAnswered('POST', `/v1/customers/${customerId(i)}/grants`, {
        grantId: 'bench-grant',
        amount: FAR,
        startTime: 0,
        endTime: FAR,
      });
      if (answer.status !== 201 && answer.status !== 200) throw new Error(`grant: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    notes.push(`set-up: ${customers} customers granted in ${Date.now() - started} ms`);
  }

  // Consumptions answered 2xx so far (all of 1 credit, all accepted), to compare with what
  // the customers' balances say was committed.
  let answered = 0;

  if (only.has('single')) {
    // Request i goes to customer i mod N, at a timestamp that grows per customer.
    const r = await measureAll(servers, {
      connections,
      duration,
      headers: auth,
      request: (i, k) => ({
        method: 'POST',
        path: `/v1/customers/${customerId(shareOf(k, instances, i))}/consumptions`,
        body: { eventId: `s-${k}-${i}`, amount: 1, timestamp: 1 + Math.floor(i / customers) },
      }),
    });
    row(`single consumptions, ${customers} customers`, r, { target: '>= 50% of floor, p99 < 25 ms' });
    answered += r.ok + r.warmupOk;
    notes.push(`single consumptions: ${await checkCommitted(client, answered)}`);
    notes.push(`after single consumptions: ${await readMetric(server, 'commit')}`);
  }

  if (only.has('batch')) {
    const r = await measureAll(servers, {
      connections,
      duration,
      headers: auth,
      request: (i, k) => {
        const events = [];
        for (let j = 0; j < batchSize; j += 1)
          events.push({ type: 'consumption', eventId: `b-${k}-${i}-${j}`, amount: 1, timestamp: 10_000_000 + i });
        return { method: 'POST', path: `/v1/customers/${customerId(shareOf(k, instances, i))}/events`, body: { events } };
      },
    });
    row(`batches of ${batchSize} consumptions`, r, { eventsPerRequest: batchSize, target: '>= 200,000 events/s' });
    answered += (r.ok + r.warmupOk) * batchSize;
    notes.push(`batches: ${await checkCommitted(client, answered)}`);
    notes.push(`after batches: ${await readMetric(server, 'commit')}`);
  }

  if (only.has('reads')) {
    const r = await measureAll(servers, {
      connections,
      duration,
      headers: auth,
      request: (i, k) => ({ method: 'GET', path: `/v1/customers/${customerId(shareOf(k, instances, i))}/balance?at=${i % 100_000}` }),
    });
    row('balance reads', r, { eventsPerRequest: null, target: '>= 80% of floor' });
  }

  if (only.has('cached-reads')) {
    // ?consistency=cached: no catch-up query (the same as a strong read on SQLite).
    const r = await measureAll(servers, {
      connections,
      duration,
      headers: auth,
      request: (i, k) => ({
        method: 'GET',
        path: `/v1/customers/${customerId(shareOf(k, instances, i))}/balance?at=${i % 100_000}&consistency=cached`,
      }),
    });
    row('balance reads, ?consistency=cached', r, { eventsPerRequest: null });
  }

  if (only.has('rebuild')) {
    const big = 'bench-big';
    const filled = await fillCustomer(client, big, rebuildEvents);
    notes.push(
      `rebuild set-up: ${rebuildEvents} events written to ${big} through the batch route in ${filled.ms} ms (${Math.round(rebuildEvents / (filled.ms / 1000))} events/s, 4 requests of 1,000 events in flight)`,
    );
    await server.stop();
    server = await startServer({ store, keys: keysPath });
    servers[0] = server;
    // The first read waits for the whole rebuild: a generous timeout on a busy machine.
    const fresh = makeClient({ target: server, key: keys.admin, maxSockets: 1, timeoutMs: 300_000 });
    const t0 = process.hrtime.bigint();
    const first = await fresh.request('GET', `/v1/customers/${big}/balance?at=${FAR}`);
    const firstMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const t1 = process.hrtime.bigint();
    await fresh.request('GET', `/v1/customers/${big}/balance?at=${FAR}`);
    const secondMs = Number(process.hrtime.bigint() - t1) / 1e6;
    fresh.close();
    if (first.status !== 200 || first.body.balance !== filled.expectedBalance) {
      throw new Error(`rebuilt balance: ${first.status} ${JSON.stringify(first.body)}, expected ${filled.expectedBalance}`);
    }
    rows.push({
      name: `rebuild of ${rebuildEvents.toLocaleString('en')} events (fresh server, first read)`,
      rps: null,
      p50: firstMs,
      p99: null,
      eventsPerSecond: rebuildEvents / (firstMs / 1000),
      failed: 0,
      target: '<= 1 s',
    });
    notes.push(
      `rebuild: first read ${firstMs.toFixed(0)} ms (store read + replay), the next read ${secondMs.toFixed(1)} ms; ${await readMetric(server, 'rebuild')}`,
    );
  }

  client.close();
  for (const s of servers) await s.stop();
}

/**
 * The consumptions the customers' balances say were committed (every one takes 1 credit
 * from a grant of FAR), against those answered 2xx: at least as many (requests still in
 * flight when autocannon stops are committed but not counted), never fewer.
 */
async function checkCommitted(client, answeredCount) {
  const balances = await mapConcurrent(
    Array.from({ length: customers }, (_, i) => i),
    16,
    async (i) => {
      const answer = await client.untilAnswered('GET', `/v1/customers/${customerId(i)}/balance?at=${FAR}`);
      if (answer.status !== 200) throw new Error(`balance of ${customerId(i)}: ${answer.status}`);
      return answer.body.balance;
    },
  );
  const committed = balances.reduce((sum, b) => sum + (FAR - b), 0);
  if (committed < answeredCount) throw new Error(`only ${committed} consumptions committed, ${answeredCount} answered`);
  return `${answeredCount} consumptions answered 2xx (warm-up included), ${committed} committed by the balances`;
}

function printTable() {
  // The better of the floor's two runs: the ratios are then the less flattering ones.
  const floors = rows.filter((r) => r.name.includes('floor')).map((r) => r.rps);
  const floor = floors.length > 0 ? Math.max(...floors) : undefined;
  const fmt = (n, digits = 0) =>
    n === null || n === undefined ? '' : Number(n).toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const header = ['workload', 'requests/s', 'p50 ms', 'p99 ms', 'events/s', 'vs floor', 'failed', 'CPU server / load', 'target'];
  const percent = (x) => (x === null || x === undefined ? '?' : `${Math.round(100 * x)}%`);
  const lines = rows.map((r) => [
    r.name,
    fmt(r.rps),
    fmt(r.p50, r.rps === null ? 0 : 1),
    fmt(r.p99, 1),
    fmt(r.eventsPerSecond),
    floor && r.rps !== null && !r.name.includes('floor') ? `${Math.round((100 * r.rps) / floor)}%` : '',
    String(r.failed),
    r.serverCpu === undefined ? '' : `${percent(r.serverCpu)} / ${percent(r.loadCpu)}`,
    r.target,
  ]);
  console.log('');
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const l of lines) console.log(`| ${l.join(' | ')} |`);
  console.log('');
  console.log('# CPU: of one core, over the measured seconds: the server process(es) / the autocannon process (2 cores in all)');
  console.log(`# load average after the run: ${loadavg()[0].toFixed(2)}`);
  for (const n of notes) console.log(`# ${n}`);
}

try {
  await main();
} finally {
  await killAllServers();
  postgres?.stop();
  tmp.remove();
}
