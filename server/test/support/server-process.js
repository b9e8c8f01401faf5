// Starts `node server/server.js` as a child process on 127.0.0.1 and stops it: the
// black-box tests drive the service exactly as an operator would, over HTTP.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// LEDGER_TEST_SERVER_ENTRY runs the black-box tests against another build of the service
// (e.g. a copy with a deliberate bug, to see that the tests catch it).
export const serverEntry = process.env.LEDGER_TEST_SERVER_ENTRY || join(repoRoot, 'server', 'server.js');

const live = new Set();
// A test runner that dies must not leave servers behind.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

const LISTENING = /listening on (http:\/\/[0-9.]+:\d+)/;

/**
 * Starts a server and resolves once it prints its `listening on http://HOST:PORT` line.
 * options: store (SQLite path), keys (key file path), env (extra variables), port
 * (default 0: any free port), entry (default server/server.js), startTimeoutMs.
 * Resolves to { url, port, child, kill(signal), stop(), exited, output() }.
 */
export function startServer({ store, keys, env = {}, port = 0, entry = serverEntry, startTimeoutMs = 30_000 } = {}) {
  const childEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env };
  if (store !== undefined) childEnv.LEDGER_STORE = store;
  if (keys !== undefined) childEnv.LEDGER_KEYS = keys;
  const child = spawn(process.execPath, [entry], { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);

  // Keep the last lines of output for failure messages; always drain the pipes, or a
  // chatty server would block on a full pipe.
  const tail = [];
  const remember = (line) => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
  };
  let exitInfo = null;
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      live.delete(child);
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
  });
  const output = () => tail.join('\n');

  const handle = {
    child,
    pid: child.pid,
    exited,
    output,
    url: null,
    port: null,
    /** Sends a signal (default SIGKILL) and waits until the process is gone. */
    async kill(signal = 'SIGKILL') {
      if (exitInfo === null) child.kill(signal);
      return exited;
    },
    /** A clean stop (SIGTERM); SIGKILL if it has not exited within `graceMs`. */
    async stop(graceMs = 10_000) {
      if (exitInfo !== null) return exitInfo;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const info = await exited;
      clearTimeout(timer);
      return info;
    },
  };

  return new Promise((resolve, reject) => {
    let buffered = '';
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`server did not print "listening on" within ${startTimeoutMs} ms\n${output()}`));
    }, startTimeoutMs);
    const onLine = (line) => {
      remember(line);
      const match = !settled && LISTENING.exec(line);
      if (match) {
        settled = true;
        clearTimeout(timer);
        handle.url = match[1];
        handle.port = Number(new URL(match[1]).port);
        resolve(handle);
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        onLine(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      for (const line of chunk.split('\n')) if (line) remember(`[stderr] ${line}`);
    });
    exited.then((info) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`server exited before listening (${JSON.stringify(info)})\n${output()}`));
    });
  });
}

/** SIGKILLs every server this process started that is still running (for `after` hooks). */
export async function killAllServers() {
  const waits = [];
  for (const child of live) {
    waits.push(new Promise((resolve) => child.once('exit', resolve)));
    child.kill('SIGKILL');
  }
  await Promise.all(waits);
}
