// `npm run serve`, as the README starts the service: a signal to npm reaches the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KEYS, serverDir, tempDir } from './helpers.js';

test('SIGTERM to `npm run serve` stops the server it started', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'keys.json'), JSON.stringify(KEYS));
  const npm = spawn('npm', ['run', '--silent', 'serve'], {
    cwd: join(serverDir, '..'),
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      LEDGER_STORE: join(dir, 'ledger.db'),
      LEDGER_KEYS: join(dir, 'keys.json'),
      LOG_LEVEL: 'info', // its lines carry the server's pid
      LEDGER_MAX_EVENT_LOOP_DELAY_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout.on('data', (chunk) => (output += chunk));
  npm.stderr.on('data', (chunk) => (output += chunk));
  const npmExited = new Promise((resolve) => npm.on('exit', resolve));
  let serverPid;
  try {
    const deadline = Date.now() + 60_000;
    while (!/listening on http:\/\/127\.0\.0\.1:\d+/.test(output) || !/"pid":\d+/.test(output)) {
      assert.ok(Date.now() < deadline, `no "listening on" within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)[1];
    serverPid = Number(/"pid":(\d+)/.exec(output)[1]);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    npm.kill('SIGTERM');
    await npmExited;
    const gone = Date.now() + 10_000;
    while (isRunning(serverPid)) {
      assert.ok(Date.now() < gone, `the server (pid ${serverPid}) still runs 10 s after npm exited:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(output, /"signal":"SIGTERM","msg":"stopping"/);
  } finally {
    if (serverPid !== undefined && isRunning(serverPid)) process.kill(serverPid, 'SIGKILL');
    npm.kill('SIGKILL');
  }
});

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
