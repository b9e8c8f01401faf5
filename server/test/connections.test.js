// What one connection may hold of the server: pipelined requests not answered yet, and
// answers its client does not read.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ADMIN, client, startApp, tempDir } from './helpers.js';
import { MAX_PIPELINED, STOPPING_SEND_TIMEOUT_MS } from '../app.js';
import { SqliteStore } from '../store/sqlite.js';

const services = [];
after(() => Promise.all(services.map((s) => s.close())));

async function start(options) {
  const service = await startApp(options);
  services.push(service);
  return service;
}

const connectTo = (url) =>
  new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });

function request(method, path, body) {
  const text = body === undefined ? '' : JSON.stringify(body);
  return (
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\n` +
    (body === undefined ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n`) +
    `\r\n${text}`
  );
}

// The answers in a connection's bytes, in order: [{status, headers, body}].
function answers(bytes) {
  const list = [];
  let at = 0;
  while (at < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    assert.ok(headEnd > 0, `an answer's head at byte ${at}`);
    const [statusLine, ...fields] = bytes.subarray(at, headEnd).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length']);
    const body = bytes.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
    list.push({ status: Number(statusLine.split(' ')[1]), headers, body });
    at = headEnd + 4 + length;
  }
  return list;
}

// What the server has sent on a connection so far, and when the connection has closed.
function record(socket) {
  const chunks = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  return { chunks, closed: new Promise((resolve) => socket.on('close', resolve)) };
}

// Every byte the server sends on a connection, once it closes it.
const allBytes = (socket) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });

async function until(condition, ms, what) {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test(`requests pipelined past ${MAX_PIPELINED} unanswered on one connection are not acted on: the first of them gets 503, then the connection closes`, async () => {
  const service = await start();
  const socket = await connectTo(service.url);
  const received = allBytes(socket);
  const count = MAX_PIPELINED + 4;
  let bytes = '';
  for (let i = 1; i <= count; i++)
    bytes += request('POST', '/v1/customers/pipe/grants', { grantId: `p${i}`, amount: 1, startTime: 0, endTime: 10 });
  socket.write(bytes); // one write: the server parses them all before it answers the first
  const list = answers(await received);
  assert.equal(list.length, MAX_PIPELINED + 1);
  for (const answer of list.slice(0, MAX_PIPELINED)) assert.equal(answer.status, 201, answer.body);
  const refused = list[MAX_PIPELINED];
  assert.equal(refused.status, 503);
  assert.equal(JSON.parse(refused.body).error.code, 'UNAVAILABLE');
  assert.match(JSON.parse(refused.body).error.message, /pipelined/);
  assert.equal(refused.headers.connection, 'close');
  assert.ok(Number(refused.headers['retry-after']) >= 0);
  // The grants of the requests refused, and of those after, are not in the ledger.
  const ledger = (await client(service.url).get('/v1/customers/pipe/ledger')).body;
  assert.deepEqual(ledger.grants.map((g) => g.grantId).sort(), Array.from({ length: MAX_PIPELINED }, (_, i) => `p${i + 1}`).sort());
  // Pipelining up to the limit answers every request.
  const again = await connectTo(service.url);
  const all = allBytes(again);
  let some = '';
  for (let i = 1; i <= MAX_PIPELINED; i++) some += request('GET', '/v1/customers/pipe/balance?at=5');
  again.end(some);
  const balances = answers(await all);
  assert.equal(balances.length, MAX_PIPELINED);
  for (const answer of balances) assert.equal(JSON.parse(answer.body).balance, MAX_PIPELINED);
});

// A customer whose ledger document is large (about 1.8 MB): a few answers fill the
// loopback's buffers.
async function seedBig(url) {
  const c = client(url);
  for (let batch = 0; batch < 20; batch++) {
    const events = Array.from({ length: 1000 }, (_, i) => ({
      type: 'grant',
      grantId: `grant-with-a-long-name-${batch}-${i}`,
      amount: 1000 + i,
      startTime: i,
      endTime: 100_000 + i,
    }));
    assert.equal((await c.post('/v1/customers/big/events', { events })).status, 200);
  }
}

// The server's side of the next connection, and the client's.
async function connectWatched(service) {
  let serverSide;
  service.app.server.once('connection', (s) => (serverSide = s));
  const socket = await connectTo(service.url);
  socket.on('error', () => {});
  await until(() => serverSide !== undefined, 2000, 'the connection seen');
  return { socket, serverSide };
}

test('a connection whose client does not read its answers is closed once they have stalled for the send timeout', async () => {
  const service = await start({ limits: { sendTimeoutMs: 1000 } });
  await seedBig(service.url);
  let serverSide;
  service.app.server.once('connection', (s) => (serverSide = s));
  const stalled = await connectTo(service.url);
  stalled.pause();
  stalled.on('error', () => {});
  let bytes = '';
  for (let i = 0; i < MAX_PIPELINED; i++) bytes += request('GET', '/v1/customers/big/ledger');
  stalled.write(bytes);
  await until(() => serverSide?.writableLength > 0, 20_000, 'answers waiting for the client');
  const since = Date.now();
  await until(() => serverSide.destroyed, 10_000, 'the stalled connection closed');
  const waited = Date.now() - since;
  assert.ok(waited >= 500, `closed after ${waited} ms of a 1,000 ms timeout`);
  stalled.destroy();
});

test('a request whose answer takes longer than the send timeout still gets it', async () => {
  const dir = tempDir();
  const store = new SqliteStore(join(dir, 'ledger.db'));
  const commit = store.commit.bind(store);
  store.commit = async (groups) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return commit(groups);
  };
  const service = await start({ store, dir, limits: { sendTimeoutMs: 400 } });
  const socket = await connectTo(service.url);
  const received = allBytes(socket);
  socket.end(request('POST', '/v1/customers/slow/grants', { grantId: 's1', amount: 5, startTime: 0, endTime: 10 }));
  const [answer] = answers(await received);
  assert.equal(answer.status, 201, answer.body);
  assert.equal((await client(service.url).get('/v1/customers/slow/balance?at=1')).body.balance, 5);
});

test('an idle kept-alive connection still closes at the keep-alive timeout', async () => {
  const service = await start({ limits: { sendTimeoutMs: 60_000 } });
  service.app.server.keepAliveTimeout = 300;
  const socket = await connectTo(service.url);
  const received = allBytes(socket);
  socket.write(request('GET', '/v1/customers/idle/balance?at=0'));
  const since = Date.now();
  const [answer] = answers(await received);
  assert.equal(answer.status, 200);
  assert.ok(Date.now() - since < 5000);
});

test('a request whose head is still arriving is left to the request timeout: 408, not closed at the send timeout', async () => {
  const service = await start({ limits: { sendTimeoutMs: 300, requestTimeoutMs: 1500 } });
  const socket = await connectTo(service.url);
  const received = allBytes(socket);
  socket.write('GET /v1/customers/slow/balance?at=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  const list = answers(await received);
  assert.equal(list.length, 1);
  assert.equal(list[0].status, 408);
  assert.equal(JSON.parse(list[0].body).error.code, 'REQUEST_TIMEOUT');
});

test('bytes that never become a request do not hold a connection: the request timeout answers them', async () => {
  const service = await start({ limits: { sendTimeoutMs: 300, requestTimeoutMs: 500 } });
  const socket = await connectTo(service.url);
  const received = allBytes(socket);
  socket.write('\r\n'); // a request may start after empty lines
  const since = Date.now();
  const list = answers(await received);
  assert.deepEqual(
    list.map((answer) => answer.status),
    [408],
  );
  assert.ok(Date.now() - since < 5000, `closed after ${Date.now() - since} ms`);
});

test('a client that sends bytes but reads none of its answers is closed at the send timeout all the same', async () => {
  const service = await start({ limits: { sendTimeoutMs: 1000, requestTimeoutMs: 60_000 } });
  await seedBig(service.url);
  const { socket, serverSide } = await connectWatched(service);
  socket.pause(); // never reads
  socket.write(request('GET', '/v1/customers/big/ledger').repeat(MAX_PIPELINED));
  await until(() => serverSide.writableLength > 0, 20_000, 'answers waiting for the client');
  const since = Date.now();
  const head = 'GET /v1/customers/big/balance?at=1 HTTP/1.1\r\nX-Pad: ' + 'a'.repeat(100);
  let sent = 0;
  const trickle = setInterval(() => socket.write(head[sent++ % head.length]), 100);
  try {
    await until(() => serverSide.destroyed, 10_000, 'the stalled connection closed');
  } finally {
    clearInterval(trickle);
    socket.destroy();
  }
  const waited = Date.now() - since;
  assert.ok(waited < 3000, `closed after ${waited} ms of a 1,000 ms timeout`);
});

test('a client that reads its answers slowly but steadily keeps its connection', async () => {
  // The kernel takes bytes in bursts, once half its send buffer is free: at 3 MB/s one
  // every second at most here, well within 2 s.
  const service = await start({ limits: { sendTimeoutMs: 2000 } });
  await seedBig(service.url);
  const socket = await connectTo(service.url);
  const reads = 4;
  const chunks = [];
  let size = 0;
  // About 3 MB/s.
  socket.on('data', (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
    socket.pause();
    setTimeout(() => socket.resume(), Math.max(5, chunk.length / 3000));
  });
  const ended = new Promise((resolve, reject) => {
    socket.on('end', resolve);
    socket.on('error', reject);
    socket.on('close', resolve);
  });
  let bytes = '';
  for (let i = 0; i < reads; i++) bytes += request('GET', '/v1/customers/big/ledger');
  socket.end(bytes);
  await ended;
  const list = answers(Buffer.concat(chunks));
  assert.equal(list.length, reads, `${size} bytes`);
  for (const answer of list) {
    assert.equal(answer.status, 200);
    assert.equal(Buffer.byteLength(answer.body), Number(answer.headers['content-length']));
  }
});

test('after an answer that closes the connection, a request sent on it is not acted on', async () => {
  const service = await start({ limits: { sendTimeoutMs: 5000 } });
  await seedBig(service.url);
  const socket = await connectTo(service.url);
  const { chunks, closed: ended } = record(socket);
  socket.pause();
  socket.write(request('GET', '/v1/customers/big/ledger').repeat(MAX_PIPELINED) + request('GET', '/v1/customers/big/balance?at=1'));
  await new Promise((resolve) => setTimeout(resolve, 500));
  socket.resume(); // takes some answers, so fewer than 16 are unanswered
  await until(() => chunks.reduce((n, c) => n + c.length, 0) > 8_000_000, 10_000, 'some answers taken');
  socket.write(request('POST', '/v1/customers/after/grants', { grantId: 'late', amount: 7, startTime: 0, endTime: 10 }));
  await ended;
  const list = answers(Buffer.concat(chunks));
  assert.deepEqual(
    list.map((answer) => answer.status),
    [...Array(MAX_PIPELINED).fill(200), 503],
  );
  const ledger = (await client(service.url).get('/v1/customers/after/ledger')).body;
  assert.deepEqual(ledger.grants, []);
});

test('a client that reads none of its answers does not hold up a stopping server, even sending bytes', async () => {
  const service = await startApp(); // the default send timeout, 60 s
  await seedBig(service.url);
  const { socket, serverSide } = await connectWatched(service);
  socket.pause();
  socket.write(request('GET', '/v1/customers/big/ledger').repeat(MAX_PIPELINED));
  await until(() => serverSide.writableLength > 0, 20_000, 'answers waiting for the client');
  let sent = 0;
  const head = 'GET /v1/customers/big/balance?at=1 HTTP/1.1\r\nX-Pad: ' + 'a'.repeat(100);
  const trickle = setInterval(() => socket.write(head[sent++ % head.length]), 100);
  await new Promise((resolve) => setTimeout(resolve, 500)); // a head has begun to arrive
  const since = Date.now();
  let timer;
  try {
    const closed = await Promise.race([
      service.app.close().then(() => true),
      new Promise((resolve) => (timer = setTimeout(resolve, STOPPING_SEND_TIMEOUT_MS + 5000, false))),
    ]);
    assert.ok(closed, `the app had not closed after ${STOPPING_SEND_TIMEOUT_MS + 5000} ms`);
  } finally {
    clearTimeout(timer);
    clearInterval(trickle);
    socket.destroy();
  }
  const waited = Date.now() - since;
  assert.ok(waited < STOPPING_SEND_TIMEOUT_MS + 3000, `closed after ${waited} ms`);
});

test('requests pipelined on one connection run one at a time: a client that reads nothing makes the server build only the answers the network takes, and the next', async () => {
  const service = await start({ limits: { sendTimeoutMs: 60_000 } });
  await seedBig(service.url);
  // Counts the answers the server builds for the big ledger (each about 1.8 MB).
  const built = [];
  const end = http.ServerResponse.prototype.end;
  http.ServerResponse.prototype.end = function (...args) {
    if (this.req?.url === '/v1/customers/big/ledger') built.push(Date.now());
    return end.apply(this, args);
  };
  try {
    const { socket, serverSide } = await connectWatched(service);
    socket.pause(); // never reads
    socket.write(request('GET', '/v1/customers/big/ledger').repeat(MAX_PIPELINED));
    await until(() => serverSide.writableLength > 0, 20_000, 'answers waiting for the client');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // The loopback's buffers take a few of them (about 10 MB here); all 16 at once held
    // 29 MB in the server for this one connection.
    assert.ok(built.length < MAX_PIPELINED / 2, `${built.length} answers built`);
    socket.resume(); // reads: every answer comes, in order
    const chunks = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    const ends = new Promise((resolve) => socket.on('end', resolve));
    socket.end(); // the server closes after the last answer
    await ends;
    assert.deepEqual(
      answers(Buffer.concat(chunks)).map((answer) => answer.status),
      Array(MAX_PIPELINED).fill(200),
    );
  } finally {
    http.ServerResponse.prototype.end = end;
  }
  assert.equal(built.length, MAX_PIPELINED);
});

test('a request pipelined behind one that asks to close the connection is not acted on', async () => {
  const service = await start();
  const socket = await connectTo(service.url);
  const received = allBytes(socket);
  const last = request('GET', '/v1/customers/close/balance?at=1').replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n');
  socket.write(last + request('POST', '/v1/customers/close/grants', { grantId: 'after', amount: 1, startTime: 0, endTime: 10 }));
  const list = answers(await received);
  assert.deepEqual(
    list.map((answer) => answer.status),
    [200],
  );
  assert.deepEqual((await client(service.url).get('/v1/customers/close/ledger')).body.grants, []);
});

test('a write pipelined behind answers the client is slow to read is still read, acted on and answered (no 408)', async () => {
  const service = await start({ limits: { requestTimeoutMs: 1500 } });
  await seedBig(service.url);
  const socket = await connectTo(service.url);
  const { chunks, closed: ended } = record(socket);
  socket.pause(); // reads nothing for a while
  const events = Array.from({ length: 1000 }, (_, i) => ({
    type: 'grant',
    grantId: `slow-${i}-${'x'.repeat(800)}`,
    amount: 1,
    startTime: 0,
    endTime: 10,
  }));
  socket.write(request('GET', '/v1/customers/big/ledger').repeat(10) + request('POST', '/v1/customers/behind/events', { events }));
  await new Promise((resolve) => setTimeout(resolve, 3000)); // twice the request timeout
  socket.resume();
  socket.end();
  await ended;
  assert.deepEqual(
    answers(Buffer.concat(chunks)).map((answer) => answer.status),
    Array(11).fill(200),
  );
  assert.equal((await client(service.url).get('/v1/customers/behind/ledger')).body.grants.length, 1000);
});

test('a body that arrives after its 408 is not acted on', async () => {
  const service = await start({ limits: { requestTimeoutMs: 500 } });
  const socket = connect({ port: Number(new URL(service.url).port), host: '127.0.0.1', allowHalfOpen: true });
  await new Promise((resolve) => socket.once('connect', resolve));
  const received = allBytes(socket);
  const text = JSON.stringify({ grantId: 'late', amount: 5, startTime: 0, endTime: 10 });
  const head = request('POST', '/v1/customers/late408/grants', { grantId: 'late', amount: 5, startTime: 0, endTime: 10 });
  const whole = head.slice(0, head.length - text.length);
  socket.write(whole + text.slice(0, 5));
  const bytes = await received; // the 408, then the server's FIN
  socket.end(text.slice(5)); // the client goes on sending, as uploaders do
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(
    answers(bytes).map((answer) => answer.status),
    [408],
  );
  assert.deepEqual((await client(service.url).get('/v1/customers/late408/ledger')).body.grants, []);
});

test('the requests that arrived whole on a connection when the server begins to stop are all answered, whole', async () => {
  const service = await startApp();
  await seedBig(service.url);
  const socket = await connectTo(service.url);
  const chunks = [];
  let closed = null;
  socket.on('data', (chunk) => {
    chunks.push(chunk);
    if (closed === null) closed = service.app.close(); // stops as the first bytes arrive
  });
  const ended = new Promise((resolve) => socket.on('close', resolve));
  socket.write(request('GET', '/v1/customers/big/ledger').repeat(MAX_PIPELINED));
  await ended;
  await closed;
  const list = answers(Buffer.concat(chunks));
  assert.deepEqual(
    list.map((answer) => answer.status),
    Array(MAX_PIPELINED).fill(200),
  );
  for (const answer of list) assert.equal(Buffer.byteLength(answer.body), Number(answer.headers['content-length']));
});

test('a connection refused 408 is not held after it, even if its client keeps its side open', async () => {
  const service = await start({ limits: { requestTimeoutMs: 500, sendTimeoutMs: 1000 } });
  let serverSide;
  service.app.server.once('connection', (s) => (serverSide = s));
  const socket = connect({ port: Number(new URL(service.url).port), host: '127.0.0.1', allowHalfOpen: true });
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  const received = allBytes(socket);
  socket.write(request('POST', '/v1/customers/held/grants', { grantId: 'g', amount: 1, startTime: 0, endTime: 10 }).slice(0, -10));
  assert.deepEqual(
    answers(await received).map((answer) => answer.status),
    [408],
  );
  const since = Date.now();
  await until(() => serverSide.destroyed, 10_000, 'the refused connection closed');
  assert.ok(Date.now() - since < 5000);
  socket.destroy();
});

test('a kept-alive connection is not held by empty lines its client sends after an answer', async () => {
  const service = await start({ limits: { requestTimeoutMs: 500, sendTimeoutMs: 1000 } });
  service.app.server.keepAliveTimeout = 500;
  const { socket, serverSide } = await connectWatched(service);
  const received = allBytes(socket);
  socket.write(request('GET', '/v1/customers/idle/balance?at=0'));
  await until(() => serverSide.bytesWritten > 0, 5000, 'the answer');
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.write('\r\n'); // skipped by the parser between messages: no request begins
  await until(() => serverSide.destroyed, 10_000, 'the connection closed');
  assert.deepEqual(
    answers(await received).map((answer) => answer.status),
    [200],
  );
});
