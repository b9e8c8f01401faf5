// Stopping: requests that arrive on an open connection while the app closes are answered
// 503 UNAVAILABLE in the API's error body, with Retry-After, and run nothing; the answers
// given while it closes close their connections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { ADMIN, client, startApp, startProcess, tempDir } from './helpers.js';
import { SqliteStore } from '../store/sqlite.js';

test('requests arriving while the app closes get the API 503 with Retry-After', async () => {
  const server = await startApp();
  const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
  // A read whose head is still arriving when close() starts (its connection is not idle,
  // so close() leaves it open); the rest of it follows, with more reads behind it.
  const read = `GET /v1/customers/a/balance?at=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`;
  let data = '';
  socket.on('data', (chunk) => (data += chunk));
  await new Promise((resolve) => socket.write(read.slice(0, 20), resolve));
  await new Promise((resolve) => setTimeout(resolve, 50)); // the first bytes have arrived
  const closed = server.app.close();
  socket.write(read.slice(20) + read.repeat(9));
  await new Promise((resolve) => socket.on('close', resolve));
  await closed;
  const answers = data.split(/(?=HTTP\/1\.1 )/).filter((part) => part.startsWith('HTTP/1.1 '));
  const refused = answers.filter((answer) => answer.startsWith('HTTP/1.1 503'));
  assert.ok(refused.length > 0, `some reads arrived while closing (${answers.length} answers)`);
  for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 503 /);
  for (const answer of refused) {
    assert.match(answer, /\r\nretry-after: 1\r\n/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(body, { error: { code: 'UNAVAILABLE', message: 'the service is stopping; retry' } });
  }
});

// A request in flight when SIGTERM arrives is answered, on a keep-alive connection that its
// client keeps open (as pooled clients do), and the process still exits at once: that
// answer closes its connection, instead of the connection holding the process until its
// keep-alive timeout (72 s).
test('SIGTERM during a request on a kept-alive connection: answered, connection closed, exit 0 at once', async () => {
  const server = await startProcess({ dbPath: join(tempDir(), 'stop.db') });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { port } = new URL(server.url);
    const send = (method, path, body) =>
      new Promise((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            method,
            path,
            agent,
            headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, text }));
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    assert.equal((await send('GET', '/v1/customers/stop/balance?at=1')).status, 200); // the connection is open
    const events = Array.from({ length: 1000 }, (_, j) => ({ type: 'grant', grantId: `g${j}`, amount: 1, startTime: 0, endTime: 10 }));
    const batch = send('POST', '/v1/customers/stop/events', JSON.stringify({ events }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const answer = await batch;
    assert.ok(answer.status === 200 || answer.status === 503, `answered ${answer.status}`);
    assert.equal(answer.headers.connection, 'close');
    const exit = await Promise.race([server.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000))]);
    assert.deepEqual(exit, { code: 0, signal: null }, `10 s after SIGTERM: ${JSON.stringify(exit)}`);
    assert.ok(Date.now() - signalled < 10_000);
  } finally {
    agent.destroy();
    server.child.kill('SIGKILL');
  }
});

// Clients that stop sending: one after part of its body, one after part of its head.
function stall(port, request) {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(request);
  let data = '';
  socket.on('data', (chunk) => (data += chunk));
  const closed = new Promise((resolve) => socket.on('close', () => resolve(data)));
  socket.on('error', () => {});
  return { socket, closed };
}
const partialBody = `POST /v1/customers/slow/grants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"gr`;
const partialHead = `GET /v1/customers/slow/balance?at=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n`;

test('a request that stops arriving gets 408 after LEDGER_REQUEST_TIMEOUT_MS, mid-body or mid-head', async () => {
  const server = await startProcess({ dbPath: join(tempDir(), 'slow.db'), env: { LEDGER_REQUEST_TIMEOUT_MS: '1000' } });
  try {
    const port = Number(new URL(server.url).port);
    const started = Date.now();
    const stalled = [stall(port, partialBody), stall(port, partialHead)];
    const bound = setTimeout(() => stalled.forEach(({ socket }) => socket.destroy()), 10_000); // no answer: closed unanswered
    const answers = await Promise.all(stalled.map(({ closed }) => closed));
    clearTimeout(bound);
    const elapsed = Date.now() - started;
    for (const answer of answers) {
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), {
        error: { code: 'REQUEST_TIMEOUT', message: 'the request took too long to arrive' },
      });
    }
    assert.ok(elapsed >= 900 && elapsed < 5000, `answered after ${elapsed} ms`);
    const balance = await fetch(`${server.url}/v1/customers/slow/balance?at=1`, { headers: { authorization: `Bearer ${ADMIN}` } });
    assert.equal(balance.status, 200, 'nothing was applied, and the server still answers');
    assert.equal((await balance.json()).balance, 0);
  } finally {
    server.child.kill('SIGKILL');
  }
});

// An answer given before the body has arrived (the key refused, a body that is not JSON):
// the rest of the request is never read, so the connection closes with the answer instead
// of waiting for the request timeout and answering it a second time (408).
test('an answer given before the body arrived closes the connection: one answer, no 408 after it', async () => {
  const server = await startProcess({ dbPath: join(tempDir(), 'early.db'), env: { LEDGER_REQUEST_TIMEOUT_MS: '1500' } });
  try {
    const port = Number(new URL(server.url).port);
    const half = (head) => `${head}Content-Length: 100\r\n\r\n{"gr`;
    const cases = [
      [401, half('POST /v1/customers/early/grants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n')],
      [
        401,
        half(
          `POST /v1/customers/early/grants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer nope\r\nContent-Type: application/json\r\n`,
        ),
      ],
      [
        400,
        half(`POST /v1/customers/early/grants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: text/csv\r\n`),
      ],
    ];
    const started = Date.now();
    const stalled = cases.map(([, request]) => stall(port, request));
    const bound = setTimeout(() => stalled.forEach(({ socket }) => socket.destroy()), 10_000);
    const answers = await Promise.all(stalled.map(({ closed }) => closed));
    clearTimeout(bound);
    const elapsed = Date.now() - started;
    answers.forEach((answer, i) => {
      assert.match(answer, new RegExp(`^HTTP/1\\.1 ${cases[i][0]} `), `case ${i}`);
      assert.equal(answer.match(/HTTP\/1\.1 /g).length, 1, `case ${i}: one answer, got ${JSON.stringify(answer)}`);
      assert.match(answer, /\r\nconnection: close\r\n/i);
    });
    assert.ok(elapsed < 1000, `closed with the answer, after ${elapsed} ms, not at the request timeout`);
    const balance = await fetch(`${server.url}/v1/customers/early/balance?at=1`, { headers: { authorization: `Bearer ${ADMIN}` } });
    assert.equal((await balance.json()).balance, 0, 'nothing was applied');
  } finally {
    server.child.kill('SIGKILL');
  }
});

// The timeout is 30 s by default: a stopping server does not wait for it, nor for its
// clients to hang up. Nothing of those requests was acted on, and nothing acknowledged is lost.
test('SIGTERM while clients hold requests half-sent: the answers in flight go out, then exit 0 at once', async () => {
  const dbPath = join(tempDir(), 'stall.db');
  const server = await startProcess({ dbPath });
  const port = Number(new URL(server.url).port);
  const stalled = [stall(port, partialBody), stall(port, partialHead)];
  try {
    const events = Array.from({ length: 1000 }, (_, j) => ({ type: 'grant', grantId: `g${j}`, amount: 1, startTime: 0, endTime: 10 }));
    const batch = fetch(`${server.url}/v1/customers/stall/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const exit = await Promise.race([server.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000))]);
    assert.deepEqual(exit, { code: 0, signal: null }, `10 s after SIGTERM: ${JSON.stringify(exit)}`);
    assert.ok(Date.now() - signalled < 5000, `exited ${Date.now() - signalled} ms after SIGTERM`);
    const answer = await batch.then(
      (response) => response.status,
      (error) => error.message,
    );
    for (const { closed } of stalled) assert.equal(await closed, '', 'a half-sent request is not answered: its connection closes');
    // The batch was answered 200 before the exit, or was refused 503; what was acknowledged is there.
    const restarted = await startProcess({ dbPath });
    try {
      const grants = await fetch(`${restarted.url}/v1/customers/stall/grants?at=1`, { headers: { authorization: `Bearer ${ADMIN}` } });
      const listed = (await grants.json()).grants.length;
      if (answer === 200) assert.equal(listed, 1000);
      else assert.ok(listed === 0 || listed === 1000, `${listed} grants after answer ${answer}`);
    } finally {
      restarted.child.kill('SIGKILL');
    }
  } finally {
    for (const { socket } of stalled) socket.destroy();
    server.child.kill('SIGKILL');
  }
});

// Requests pipelined behind a slow write, all arrived whole before the app began to close:
// each gets its answer, in order (the write behind is committed: its answer must not be
// lost), and a parser refusal held back behind them goes out last.
test('while the app closes, the requests that arrived whole before on a connection all get their answers, then a held-back refusal', async () => {
  const dir = tempDir();
  const store = new SqliteStore(join(dir, 'ledger.db'));
  const commit = store.commit.bind(store);
  let slow = true;
  store.commit = async (groups) => {
    if (slow) await new Promise((resolve) => setTimeout(resolve, 600));
    return commit(groups);
  };
  const server = await startApp({ store, dir });
  slow = false;
  await client(server.url).post('/v1/customers/s/grants', { grantId: 'g', amount: 100, startTime: 0, endTime: 100 });
  slow = true;
  const post = (id) => {
    const body = JSON.stringify({ eventId: id, amount: 1, timestamp: 1 });
    return (
      `POST /v1/customers/s/consumptions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
    );
  };
  const read = `GET /v1/customers/s/balance?at=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`;
  const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
  let data = '';
  socket.on('data', (chunk) => (data += chunk));
  const ended = new Promise((resolve) => socket.on('close', resolve));
  socket.write(post('c1') + read + post('c2') + 'NOT HTTP\r\n\r\n');
  await new Promise((resolve) => setTimeout(resolve, 200)); // the first commit is under way
  const closed = server.app.close();
  await ended;
  await closed;
  const statuses = [...data.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  assert.deepEqual(statuses, [200, 200, 200, 400], data);
  const reopened = await startApp({ dir });
  try {
    for (const id of ['c1', 'c2']) assert.equal((await client(reopened.url).get(`/v1/customers/s/consumptions/${id}`)).status, 200, id);
  } finally {
    await reopened.close();
  }
});
