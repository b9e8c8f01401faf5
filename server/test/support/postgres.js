// Starts a throw-away PostgreSQL 15 server for tests and benchmarks: a fresh cluster in a
// temporary folder, listening on 127.0.0.1 on a free port, its socket in that folder.
// initdb and the server refuse to run as root, so both run as the `postgres` user
// (created by Debian's package). `stop()` stops it (`-m fast`) and removes the folder;
// it also runs when the process exits, so a failing test does not leave a server behind.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = '/usr/lib/postgresql/15/bin';

function sh(command, what) {
  const r = spawnSync('sh', ['-c', command], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) {
    throw new Error(`${what} failed (${r.status}): ${r.stderr || r.stdout}`);
  }
  return r.stdout;
}

function asPostgres(command, what) {
  // su needs a quoted single argument; the commands below contain no single quotes.
  return sh(`su postgres -s /bin/sh -c '${command}'`, what);
}

function ensureInstalled() {
  if (existsSync(`${BIN}/postgres`)) return;
  sh('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15', 'installing PostgreSQL 15 with apt');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * @param {{ fsync?: boolean, maxConnections?: number }} [options]
 *   fsync: false (the default for tests) skips flushing to disk: the tests kill service
 *   processes, never the database, so its durability is not what they check. The
 *   benchmark passes fsync: true to measure real commits.
 * @returns {Promise<{ url: string, port: number, dir: string, stop: () => void }>}
 */
export async function startPostgres({ fsync = false, maxConnections = 200 } = {}) {
  ensureInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'gcl-pg-'));
  const uid = Number(sh('id -u postgres', 'id').trim());
  const gid = Number(sh('id -g postgres', 'id').trim());
  chownSync(dir, uid, gid);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', `${BIN}/pg_ctl -D ${dir}/data -m fast -w -t 30 stop`], {
      stdio: 'ignore',
      timeout: 40_000,
    });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  try {
    asPostgres(`${BIN}/initdb -D ${dir}/data -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >${dir}/initdb.log 2>&1`, 'initdb');
    const port = await freePort();
    const opts =
      `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=${fsync ? 'on' : 'off'} ` +
      `-c synchronous_commit=${fsync ? 'on' : 'off'} -c full_page_writes=${fsync ? 'on' : 'off'} ` +
      `-c max_connections=${maxConnections}`;
    asPostgres(`${BIN}/pg_ctl -D ${dir}/data -l ${dir}/server.log -w -t 60 -o "${opts}" start >/dev/null`, 'pg_ctl start');
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, dir, stop };
  } catch (err) {
    stop();
    throw err;
  }
}

/**
 * Every customer's log entries straight from the database (archive, then log, in seq
 * order), as Map customer → [{ seq, kind, id, amount, t1, t2 }]: the test's own view of
 * what the instances committed, checked for gaps and duplicates.
 */
export async function readPgLogs(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT customer_id, seq::float8 AS seq, kind, id, amount::float8 AS amount, t1::float8 AS t1, t2::float8 AS t2 FROM archive
       UNION ALL
       SELECT customer_id, seq::float8, kind, id, amount::float8, t1::float8, t2::float8 FROM log
       ORDER BY customer_id, seq`,
    );
    const logs = new Map();
    for (const { customer_id: customer, ...row } of rows) {
      if (!logs.has(customer)) logs.set(customer, []);
      const list = logs.get(customer);
      const expected = list.length === 0 ? 1 : list[list.length - 1].seq + 1;
      if (row.seq !== expected) throw new Error(`log of ${customer}: seq ${row.seq} where ${expected} was due (a gap or a duplicate)`);
      list.push(row);
    }
    return logs;
  } finally {
    await client.end();
  }
}

/**
 * The LEDGER_STORE a parameterised test runs on: `sqlitePath`, or, when the environment
 * says LEDGER_TEST_STORE=postgres, the URL of a fresh PostgreSQL (stopped on exit).
 */
export async function storeUnderTest(sqlitePath) {
  if (process.env.LEDGER_TEST_STORE !== 'postgres') return sqlitePath;
  const server = await startPostgres();
  return server.url;
}
