// Stopping: requests that arrive on an open connection while the app closes are answered
// 503 UNAVAILABLE in the API's error body, with Retry-After, and run nothing; the answers
// given while it closes close their connections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { ADMIN, startApp, startProcess, tempDir } from './helpers.js';

test('requests arriving while the app closes get the API 503 with Retry-After', async () => {
  const server = await startApp();
  const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
  // Many reads pipelined on one connection: close() starts after the first answer, while
  // the rest are still waiting in the connection.
  const read = `GET /v1/customers/a/balance?at=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`;
  let data = '';
  let closed = null;
  socket.on('data', (chunk) => {
    data += chunk;
    if (closed === null && data.includes('\r\n\r\n')) closed = server.app.close();
  });
  socket.write(read.repeat(3000));
  await new Promise((resolve) => socket.on('close', resolve));
  await closed;
  const answers = data.split(/(?=HTTP\/1\.1 )/).filter((part) => part.startsWith('HTTP/1.1 '));
  const refused = answers.filter((answer) => answer.startsWith('HTTP/1.1 503'));
  assert.ok(refused.length > 0, `some reads arrived while closing (${answers.length} answers)`);
  for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 (200|503) /);
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
