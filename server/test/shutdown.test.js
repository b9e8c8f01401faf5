// Stopping: requests that arrive on an open connection while the app closes are answered
// 503 UNAVAILABLE in the API's error body, with Retry-After, and run nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { ADMIN, startApp } from './helpers.js';

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
