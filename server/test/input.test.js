// Bad input and auth: a table of malformed requests, each with the status and code it
// must get, each followed by a check that nothing changed; then keys and roles.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACME_WRITER, ADMIN, READER, WRITER, call, client, serverDir, startApp, tempDir } from './helpers.js';
import { BODY_LIMIT } from '../app.js';

let service;
let c;
const base = '/v1/customers/acme';

before(async () => {
  service = await startApp();
  c = client(service.url);
  await c.post(`${base}/grants`, { grantId: 'g1', amount: 100, startTime: 0, endTime: 10 });
  await c.post(`${base}/grants`, { grantId: 'late', amount: 1, startTime: 3, endTime: 8 });
  await c.post(`${base}/consumptions`, { eventId: 'c1', amount: 30, timestamp: 5 });
  await c.post(`${base}/consumptions`, { eventId: 'q1', amount: 500, timestamp: 6, queue: true });
});

after(() => service?.close());

/** Everything a client could observe of acme (and of the customer a bad request aimed at). */
// Sends bytes as they are on a new connection (then half-closes it, with halfClose);
// resolves to all the server answered on it once it closes the connection (every request
// this file sends this way ends with one).
async function send(request, { halfClose = false } = {}) {
  const { connect } = await import('node:net');
  const { port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => (halfClose ? socket.end(request) : socket.write(request)));
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

async function state() {
  return {
    ledger: (await c.get(`${base}/ledger`)).body,
    pending: (await c.get(`${base}/pending`)).body,
    curve: (await c.get(`${base}/balance-curve?from=0&to=20`)).body,
    other: (await c.get('/v1/customers/other/ledger')).body,
  };
}

const grant = { grantId: 'g9', amount: 5, startTime: 0, endTime: 9 };
const consumption = { eventId: 'c9', amount: 5, timestamp: 1 };
const MAX = Number.MAX_SAFE_INTEGER;

// [name, method, path, options, status, code, field the message must name]
const BAD = [
  ['bad JSON', 'POST', `${base}/grants`, { raw: '{"grantId": "g9",' }, 400, 'INVALID_ARGUMENT'],
  [
    'body as text/plain',
    'POST',
    `${base}/consumptions`,
    { raw: JSON.stringify(consumption), type: 'text/plain' },
    400,
    'INVALID_ARGUMENT',
    'JSON',
  ],
  ['body of another media type', 'POST', `${base}/consumptions`, { raw: '<c/>', type: 'application/xml' }, 400, 'INVALID_ARGUMENT', 'JSON'],
  [
    'JSON declared in another charset (its bytes would be read as UTF-8)',
    'POST',
    `${base}/grants`,
    { raw: JSON.stringify(grant), type: 'application/json; charset=iso-8859-1' },
    400,
    'INVALID_ARGUMENT',
    'charset=iso-8859-1',
  ],
  ['JSON that is not an object', 'POST', `${base}/grants`, { raw: '[1, 2]' }, 400, 'INVALID_ARGUMENT', 'body'],
  ['empty JSON body', 'POST', `${base}/consumptions`, { raw: '' }, 400, 'INVALID_ARGUMENT', 'body'],
  ['string for a number', 'POST', `${base}/grants`, { body: { ...grant, amount: '5' } }, 400, 'INVALID_ARGUMENT', 'amount'],
  ['null amount', 'POST', `${base}/consumptions`, { body: { ...consumption, amount: null } }, 400, 'INVALID_ARGUMENT', 'amount'],
  ['number for an id', 'POST', `${base}/consumptions`, { body: { ...consumption, eventId: 7 } }, 400, 'INVALID_ARGUMENT', 'eventId'],
  ['missing field', 'POST', `${base}/grants`, { body: { grantId: 'g9', amount: 5, startTime: 0 } }, 400, 'INVALID_ARGUMENT', 'endTime'],
  ['unknown field', 'POST', `${base}/consumptions`, { body: { ...consumption, dryrun: true } }, 400, 'INVALID_ARGUMENT', 'dryrun'],
  ['negative amount', 'POST', `${base}/consumptions`, { body: { ...consumption, amount: -5 } }, 400, 'INVALID_ARGUMENT', 'amount'],
  ['zero amount', 'POST', `${base}/grants`, { body: { ...grant, amount: 0 } }, 400, 'INVALID_ARGUMENT', 'amount'],
  ['fractional amount', 'POST', `${base}/consumptions`, { body: { ...consumption, amount: 1.5 } }, 400, 'INVALID_ARGUMENT', 'amount'],
  [
    '2^53 amount',
    'POST',
    `${base}/grants`,
    { raw: JSON.stringify(grant).replace('"amount":5', '"amount":9007199254740992') },
    400,
    'INVALID_ARGUMENT',
    'amount',
  ],
  [
    '2^53 timestamp',
    'POST',
    `${base}/consumptions`,
    { raw: JSON.stringify(consumption).replace('"timestamp":1', '"timestamp":9007199254740992') },
    400,
    'INVALID_ARGUMENT',
    'timestamp',
  ],
  ['negative time', 'POST', `${base}/grants`, { body: { ...grant, startTime: -1 } }, 400, 'INVALID_ARGUMENT', 'startTime'],
  ['start after end', 'POST', `${base}/grants`, { body: { ...grant, startTime: 10, endTime: 9 } }, 400, 'INVALID_ARGUMENT', 'startTime'],
  ['grant total above 2^53 - 1', 'POST', `${base}/grants`, { body: { ...grant, amount: MAX } }, 400, 'INVALID_ARGUMENT', 'amount'],
  ['empty id', 'POST', `${base}/grants`, { body: { ...grant, grantId: '' } }, 400, 'INVALID_ARGUMENT', 'grantId'],
  [
    'id over 1024 UTF-8 bytes',
    'POST',
    `${base}/consumptions`,
    { body: { ...consumption, eventId: 'é'.repeat(513) } },
    400,
    'INVALID_ARGUMENT',
    'eventId',
  ],
  [
    'lone surrogate id',
    'POST',
    `${base}/consumptions`,
    { raw: JSON.stringify(consumption).replace('"c9"', '"\\ud800"') },
    400,
    'INVALID_ARGUMENT',
    'eventId',
  ],
  [
    'boolean dryRun as string',
    'POST',
    `${base}/consumptions`,
    { body: { ...consumption, dryRun: 'yes' } },
    400,
    'INVALID_ARGUMENT',
    'dryRun',
  ],
  [
    'customer id of 129 characters',
    'POST',
    `/v1/customers/${'a'.repeat(129)}/grants`,
    { body: grant },
    400,
    'INVALID_ARGUMENT',
    'customerId',
  ],
  ['customer id with a space', 'POST', '/v1/customers/a%20b/grants', { body: grant }, 400, 'INVALID_ARGUMENT', 'customerId'],
  ['customer id with a comma', 'GET', '/v1/customers/a,b/balance?at=1', {}, 400, 'INVALID_ARGUMENT', 'customerId'],
  ['customer id with non-ASCII', 'GET', '/v1/customers/%C3%A9/ledger', {}, 400, 'INVALID_ARGUMENT', 'customerId'],
  ['missing query time', 'GET', `${base}/balance`, {}, 400, 'INVALID_ARGUMENT', 'at'],
  ['negative query time', 'GET', `${base}/balance?at=-1`, {}, 400, 'INVALID_ARGUMENT', 'at'],
  ['fractional query time', 'GET', `${base}/headroom?at=1.5`, {}, 400, 'INVALID_ARGUMENT', 'at'],
  ['query time 2^53', 'GET', `${base}/balance?at=9007199254740992`, {}, 400, 'INVALID_ARGUMENT', 'at'],
  ['query time with leading zero', 'GET', `${base}/grants?at=01`, {}, 400, 'INVALID_ARGUMENT', 'at'],
  ['unknown query field', 'GET', `${base}/balance?at=1&x=2`, {}, 400, 'INVALID_ARGUMENT', 'x'],
  ['curve from after to', 'GET', `${base}/balance-curve?from=5&to=4`, {}, 400, 'INVALID_ARGUMENT', 'from'],
  ['PATCH without endTime', 'PATCH', `${base}/grants/g1`, { body: {} }, 400, 'INVALID_ARGUMENT', 'endTime'],
  ['PATCH end before start', 'PATCH', `${base}/grants/late`, { body: { endTime: 2 } }, 400, 'INVALID_ARGUMENT', 'endTime'],
  ['PATCH refused: it would unfund c1', 'PATCH', `${base}/grants/g1`, { body: { endTime: 0 } }, 200, null],
  ['PATCH of an unknown grant', 'PATCH', `${base}/grants/nope`, { body: { endTime: 9 } }, 404, 'NOT_FOUND'],
  ['void of an unknown grant', 'POST', `${base}/grants/nope/void`, {}, 404, 'NOT_FOUND'],
  // The void takes no body: a field, JSON that is not an object or a text body is refused
  // (voiding `late` would show in the state).
  ['void with a field', 'POST', `${base}/grants/late/void`, { body: { unknownField: 123 } }, 400, 'INVALID_ARGUMENT', 'unknownField'],
  ['void with a JSON array', 'POST', `${base}/grants/late/void`, { raw: '[1,2,3]' }, 400, 'INVALID_ARGUMENT', 'body'],
  ['void with a text body', 'POST', `${base}/grants/late/void`, { raw: 'garbage', type: 'text/plain' }, 400, 'INVALID_ARGUMENT', 'JSON'],
  ['cancel with a body field', 'DELETE', `${base}/pending/q1`, { body: { x: 1 } }, 400, 'INVALID_ARGUMENT', 'body.x'],
  ['void with a JSON string', 'POST', `${base}/grants/late/void`, { raw: '"x"' }, 400, 'INVALID_ARGUMENT', 'body'],
  ['a "__proto__" field', 'POST', `${base}/grants`, { raw: '{"__proto__": {"x": 1}}' }, 400, 'INVALID_ARGUMENT', '__proto__'],
  // The router's own refusals, in the API's error body.
  ['path of bad percent-encoding', 'GET', `${base}/grants/%E0%A4`, {}, 400, 'INVALID_ARGUMENT', 'percent-encoding'],
  ['path with %ZZ', 'POST', `${base}/grants/%ZZ/void`, {}, 400, 'INVALID_ARGUMENT', 'percent-encoding'],
  ['customer id over 4096 characters', 'GET', `/v1/customers/${'a'.repeat(5000)}/balance?at=1`, {}, 400, 'INVALID_ARGUMENT', 'customerId'],
  ['grant id over 4096 characters', 'GET', `${base}/grants/${'g'.repeat(5000)}`, {}, 400, 'INVALID_ARGUMENT', 'grantId'],
  ['cancel of a consumption not queued', 'DELETE', `${base}/pending/c1`, {}, 404, 'NOT_FOUND'],
  // An unknown field in the query string is one too, on every route.
  ['unknown query field on a write', 'POST', `${base}/grants?foo=1`, { body: grant }, 400, 'INVALID_ARGUMENT', 'foo'],
  [
    'consistency on a write',
    'POST',
    `${base}/consumptions?consistency=cached`,
    { body: consumption },
    400,
    'INVALID_ARGUMENT',
    'consistency',
  ],
  [
    'unknown query field on a batch',
    'POST',
    `${base}/events?x=1`,
    { body: { events: [{ type: 'grant', ...grant }] } },
    400,
    'INVALID_ARGUMENT',
    'x',
  ],
  ['unknown query field on a void', 'POST', `${base}/grants/late/void?x=1`, {}, 400, 'INVALID_ARGUMENT', 'x'],
  ['unknown query field on an end change', 'PATCH', `${base}/grants/late?x=1`, { body: { endTime: 9 } }, 400, 'INVALID_ARGUMENT', 'x'],
  ['unknown query field on a cancel', 'DELETE', `${base}/pending/q1?x=1`, {}, 400, 'INVALID_ARGUMENT', 'x'],
  ['unknown query field on a read', 'GET', `${base}/ledger?x=1`, {}, 400, 'INVALID_ARGUMENT', 'x'],
  // The void refuses an id the package refuses in its own words.
  ['void of an id over 1,024 bytes', 'POST', `${base}/grants/${'v'.repeat(1025)}/void`, {}, 400, 'INVALID_ARGUMENT', 'voidGrant: grantId'],
  ['batch without events', 'POST', `${base}/events`, { body: { events: [] } }, 400, 'INVALID_ARGUMENT', 'events'],
  [
    'batch of 1,001 events',
    'POST',
    `${base}/events`,
    { body: { events: Array.from({ length: 1001 }, (_, i) => ({ type: 'consumption', eventId: `b${i}`, amount: 1, timestamp: 1 })) } },
    400,
    'INVALID_ARGUMENT',
    'events',
  ],
  [
    'batch with an unknown type',
    'POST',
    `${base}/events`,
    { body: { events: [{ type: 'refund', eventId: 'x' }] } },
    400,
    'INVALID_ARGUMENT',
    'type',
  ],
  [
    'batch with one bad event',
    'POST',
    `${base}/events`,
    {
      body: {
        events: [
          { type: 'grant', ...grant },
          { type: 'consumption', ...consumption, amount: '5' },
        ],
      },
    },
    400,
    'INVALID_ARGUMENT',
    'events[1].amount',
  ],
  [
    'body over 1 MiB',
    'POST',
    `${base}/events`,
    { raw: JSON.stringify({ events: [{ type: 'grant', ...grant, grantId: 'x'.repeat(BODY_LIMIT) }] }) },
    413,
    'PAYLOAD_TOO_LARGE',
  ],
  [
    'body not in UTF-8 (two such ids would be one after a replacement)',
    'POST',
    `${base}/consumptions`,
    { raw: Buffer.concat([Buffer.from('{"eventId":"job-'), Buffer.from([0xff]), Buffer.from('","amount":1,"timestamp":1}')]) },
    400,
    'INVALID_ARGUMENT',
    'UTF-8',
  ],
  [
    'an amount that parsing would round to an integer',
    'POST',
    `${base}/grants`,
    { raw: JSON.stringify(grant).replace('"amount":5', '"amount":9007199254740990.5') },
    400,
    'INVALID_ARGUMENT',
    'body.amount: every number must be an integer; 9007199254740990.5 is not',
  ],
  [
    'a timestamp that parsing would round to an integer',
    'POST',
    `${base}/consumptions`,
    { raw: JSON.stringify(consumption).replace('"timestamp":1', '"timestamp":1.0000000000000001') },
    400,
    'INVALID_ARGUMENT',
    'body.timestamp: every number must be an integer',
  ],
  [
    "a batch event's number that parsing would round to an integer, named with its event",
    'POST',
    `${base}/events`,
    {
      raw: JSON.stringify({
        events: [
          { type: 'grant', ...grant },
          { type: 'consumption', ...consumption },
        ],
      }).replace('"amount":5,"timestamp":1', '"amount":1e-400,"timestamp":1'),
    },
    400,
    'INVALID_ARGUMENT',
    'body.events[1].amount: every number must be an integer; 1e-400 is not',
  ],
  ['unknown route', 'GET', '/v1/customers/acme/nothing-here', {}, 404, 'NOT_FOUND'],
  ['wrong method', 'DELETE', `${base}/grants`, {}, 404, 'NOT_FOUND'],
];

test('every malformed request gets its status and code and changes nothing', async () => {
  const initial = await state();
  assert.equal(initial.ledger.consumptions.length, 1);
  for (const [name, method, path, options, status, code, field] of BAD) {
    const answer = await call(service.url, method, path, options);
    assert.equal(answer.status, status, `${name}: ${JSON.stringify(answer.body)}`);
    if (code !== null) {
      assert.equal(answer.body.error.code, code, name);
      assert.equal(typeof answer.body.error.message, 'string', name);
      if (field) assert.ok(answer.body.error.message.includes(field), `${name}: "${answer.body.error.message}" names ${field}`);
    }
    assert.deepEqual(await state(), initial, `${name} changed nothing`);
  }
});

test("what Node's HTTP parser refuses before any route gets the API's error body", async () => {
  const parse = (text) => [Number(text.split(' ')[1]), JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error.code];
  const long = `GET ${base}/grants/${'g'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
  assert.deepEqual(parse(await send(long)), [431, 'HEADERS_TOO_LARGE']);
  assert.deepEqual(parse(await send('GET / HTTP/1.1\r\nno colon here\r\n\r\n')), [400, 'INVALID_ARGUMENT']);
  // A URL's dot segments as a customer id (clients and proxies rewrite such paths; fetch
  // cannot send them): refused, not served as customers "." and "..".
  for (const id of ['.', '..', '%2E', '%2E%2E']) {
    const request = `GET /v1/customers/${id}/balance?at=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\nConnection: close\r\n\r\n`;
    assert.deepEqual(parse(await send(request)), [400, 'INVALID_ARGUMENT'], id);
  }
});

test('a write followed on its connection by bytes that are not HTTP gets its own answer first, then the refusal', async () => {
  // The write is committed: its client must hear so before the connection's 400 (an
  // answer out of order would read as the write refused). Pipelined requests before the
  // bad bytes are answered too, in order.
  const statuses = (text) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  const post = (eventId) => {
    const body = JSON.stringify({ eventId, amount: 1, timestamp: 1 });
    return (
      `POST /v1/customers/ordered/consumptions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
    );
  };
  const cases = [
    ['a body longer than its Content-Length', ['ord-long'], 'XYZ\r\n\r\n'],
    ['a garbage line after the write', ['ord-garbage'], 'NOT HTTP AT ALL\r\n\r\n'],
    ['two pipelined writes, then a header without a colon', ['ord-p1', 'ord-p2'], 'GET / HTTP/1.1\r\nno colon\r\n\r\n'],
  ];
  // An expectation refused (417, answered by Node's checkExpectation) is an answer too:
  // it goes out after the write's; it closes the connection, so no refusal follows it.
  const expecting = `GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n`;
  const refusedExpectation = await send(post('ord-expect') + expecting + 'NOT HTTP\r\n\r\n');
  assert.deepEqual(statuses(refusedExpectation), [200, 417], refusedExpectation);
  // Its own customer: the other tests read acme's state.
  await call(service.url, 'POST', '/v1/customers/ordered/grants', { body: { grantId: 'g', amount: 100, startTime: 0, endTime: 100 } });
  // The same when the client half-closes its side after sending (FIN): Node's default
  // cancels the requests in flight then, and the client would hear nothing.
  const fin = await send(post('ord-fin'), { halfClose: true });
  assert.deepEqual(statuses(fin), [200], `a write, then FIN: ${fin}`);
  const withFin = cases.map(([name, ids, tail]) => [`${name}, then FIN`, ids.map((id) => `${id}-fin`), tail, true]);
  for (const [name, ids, tail, halfClose = false] of [...cases, ...withFin]) {
    const text = await send(ids.map(post).join('') + tail, { halfClose });
    const expected = [...ids.map(() => 200), 400];
    assert.deepEqual(statuses(text), expected, `${name}: ${text}`);
    const last = text.slice(text.lastIndexOf('HTTP/1.1 400'));
    assert.equal(JSON.parse(last.slice(last.indexOf('\r\n\r\n') + 4)).error.code, 'INVALID_ARGUMENT', name);
    const ledger = (await call(service.url, 'GET', '/v1/customers/ordered/ledger')).body;
    for (const id of ids)
      assert.ok(
        ledger.consumptions.some((c) => c.eventId === id),
        `${name}: ${id} committed`,
      );
  }
});

test("what Node's parser lets through but HTTP/1.1 refuses gets a 400 with the API's body, and changes nothing", async () => {
  // Node answers a missing Host and an unknown expectation itself (an empty body, no
  // cross-origin headers), and lets two Host lines, a content or transfer coding the
  // service does not decode, and a raw "#" in the path through.
  const initial = await state();
  const body = JSON.stringify({ eventId: 'coded', amount: 1, timestamp: 1 });
  const head = (lines) => lines.join('\r\n') + '\r\n\r\n';
  const auth = `Authorization: Bearer ${ADMIN}`;
  const post = (extra, target = `${base}/consumptions`) =>
    head([
      `POST ${target} HTTP/1.1`,
      ...extra,
      auth,
      'Origin: https://app.test',
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
    ]) + body;
  const cases = [
    ['no Host', post([]), 400, 'Host'],
    ['two Host lines', post(['Host: a.test', 'Host: b.test']), 400, 'Host'],
    ['a gzip Content-Encoding', post(['Host: x', 'Content-Encoding: gzip']), 400, 'Content-Encoding'],
    ['an unknown Content-Encoding', post(['Host: x', 'Content-Encoding: x-unknown']), 400, 'Content-Encoding'],
    ['an unknown expectation', post(['Host: x', 'Expect: 200-ok']), 417, 'Expect'],
    ['100-continue with another expectation', post(['Host: x', 'Expect: 100-continue', 'Expect: foo']), 417, 'Expect'],
    ['an unknown expectation over HTTP/1.0', post(['Host: x', 'Expect: foo']).replace('HTTP/1.1', 'HTTP/1.0'), 417, 'Expect'],
    ['a raw "#" in the path', post(['Host: x'], `${base}/consumptions#x`), 400, '#'],
    [
      'a grant id with a raw "#"',
      head([`DELETE ${base}/pending/q# HTTP/1.1`, 'Host: x', auth, 'Origin: https://app.test', 'Connection: close']),
      400,
      '#',
    ],
  ];
  const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  for (const coding of ['gzip, chunked', 'x-custom, chunked']) {
    cases.push([
      `Transfer-Encoding: ${coding}`,
      head([
        `POST ${base}/consumptions HTTP/1.1`,
        'Host: x',
        auth,
        'Origin: https://app.test',
        'Content-Type: application/json',
        `Transfer-Encoding: ${coding}`,
      ]) + chunked,
      400,
      'Transfer-Encoding',
    ]);
  }
  for (const [name, request, status, named] of cases) {
    const text = await send(request);
    // The final answer, after any 100 Continue.
    const final = text.slice([...text.matchAll(/^HTTP\/1\.1 \d{3} /gm)].pop()?.index ?? 0);
    assert.equal(Number(final.split(' ')[1]), status, `${name}: ${text}`);
    assert.match(final, /\r\naccess-control-allow-origin: /i, `${name}: cross-origin headers`);
    const error = JSON.parse(final.slice(final.indexOf('\r\n\r\n') + 4)).error;
    assert.equal(error.code, status === 417 ? 'EXPECTATION_FAILED' : 'INVALID_ARGUMENT', name);
    assert.ok(error.message.includes(named), `${name}: "${error.message}" names ${named}`);
    assert.deepEqual(await state(), initial, `${name} changed nothing`);
  }
});

test('missing and wrong keys are 401; roles and customer lists are 403', async () => {
  const initial = await state();
  const cases = [
    ['no key', null, 'GET', `${base}/balance?at=1`, undefined, 401, 'UNAUTHENTICATED'],
    ['wrong key', 'not-a-key-0123456789abcdef', 'GET', `${base}/balance?at=1`, undefined, 401, 'UNAUTHENTICATED'],
    ['a key with one character off', ADMIN.slice(0, -1) + 'x', 'POST', `${base}/grants`, grant, 401, 'UNAUTHENTICATED'],
    ['reader adding a grant', READER, 'POST', `${base}/grants`, grant, 403, 'FORBIDDEN'],
    ['reader consuming', READER, 'POST', `${base}/consumptions`, consumption, 403, 'FORBIDDEN'],
    ['reader queueing', READER, 'POST', `${base}/consumptions`, { ...consumption, queue: true }, 403, 'FORBIDDEN'],
    ['reader sending a batch', READER, 'POST', `${base}/events`, { events: [{ type: 'grant', ...grant }] }, 403, 'FORBIDDEN'],
    [
      'reader sending a batch with one real consumption',
      READER,
      'POST',
      `${base}/events`,
      {
        events: [
          { type: 'consumption', ...consumption, dryRun: true },
          { type: 'consumption', ...consumption, eventId: 'c10' },
        ],
      },
      403,
      'FORBIDDEN',
    ],
    ['reader voiding a grant', READER, 'POST', `${base}/grants/g1/void`, undefined, 403, 'FORBIDDEN'],
    ['reader changing an end', READER, 'PATCH', `${base}/grants/g1`, { endTime: 20 }, 403, 'FORBIDDEN'],
    ['acme key on another customer', ACME_WRITER, 'POST', '/v1/customers/other/grants', grant, 403, 'FORBIDDEN'],
    ['acme key reading another customer', ACME_WRITER, 'GET', '/v1/customers/other/ledger', undefined, 403, 'FORBIDDEN'],
  ];
  for (const [name, key, method, path, body, status, code] of cases) {
    const answer = await call(service.url, method, path, { key, body });
    assert.equal(answer.status, status, `${name}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.error.code, code, name);
    assert.deepEqual(await state(), initial, `${name} changed nothing`);
  }
  const anonymous = await call(service.url, 'GET', `${base}/ledger`, { key: null });
  assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
  const lowercase = await call(service.url, 'GET', `${base}/balance?at=5`, { key: null, headers: { authorization: `bearer ${READER}` } });
  assert.equal(lowercase.status, 200, 'the scheme is case-insensitive');
  // What they may do.
  const dry = await call(service.url, 'POST', `${base}/consumptions`, { key: READER, body: { ...consumption, dryRun: true } });
  assert.equal(dry.status, 200);
  const dryBatch = await call(service.url, 'POST', `${base}/events`, {
    key: READER,
    body: { events: [{ type: 'consumption', ...consumption, dryRun: true }] },
  });
  assert.equal(dryBatch.status, 200, "a batch of dry runs is a reader's too");
  assert.deepEqual(dryBatch.body.results[0].allocations, dry.body.allocations);
  assert.deepEqual(dry.body, {
    eventId: 'c9',
    accepted: true,
    queued: false,
    allocations: [{ grantId: 'g1', amount: 5 }],
    reason: null,
    blockingEventId: null,
  });
  assert.equal((await call(service.url, 'GET', `${base}/balance?at=5`, { key: READER })).body.balance, 71);
  assert.deepEqual(await state(), initial, 'a dry run changes nothing');
  assert.equal((await call(service.url, 'POST', `${base}/grants`, { key: ACME_WRITER, body: grant })).status, 201);
  assert.equal(
    (await call(service.url, 'POST', `${base}/events`, { key: WRITER, body: { events: [{ type: 'consumption', ...consumption }] } }))
      .status,
    200,
  );
});

test('a key file that is not valid JSON stops the server without printing its keys', () => {
  const dir = tempDir();
  const keysPath = join(dir, 'keys.json');
  writeFileSync(keysPath, '[{"key": "a-secret-key-of-the-operator", "role": "admin"},]');
  const run = spawnSync(process.execPath, [join(serverDir, 'server.js')], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LEDGER_STORE: join(dir, 'ledger.db'), LEDGER_KEYS: keysPath },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /LEDGER_KEYS: .*keys\.json is not valid JSON/);
  assert.doesNotMatch(run.stdout + run.stderr, /a-secret-key/);
});

test('a key file with a key listed twice, one a Bearer header cannot carry, or a field it does not know, is refused without quoting it', async () => {
  const { parseKeys } = await import('../plugins/app/auth.js');
  const secret = 'a-secret-key-of-the-operator';
  for (const [list, message] of [
    [
      [
        { key: secret, role: 'reader' },
        { key: secret, role: 'admin' },
      ],
      'keys[1].key is keys[0].key again: each key must be listed once',
    ],
    [[{ key: `${secret} x`, role: 'admin' }], 'keys[0].key must be printable ASCII without spaces'],
    [[{ key: `${secret}\u00e9`, role: 'admin' }], 'keys[0].key must be printable ASCII without spaces'],
    [[{ key: `${secret}\n`, role: 'admin' }], 'keys[0].key must be printable ASCII without spaces'],
    // A misspelt "customers" would leave the key acting for every customer.
    [
      [
        { key: secret, role: 'admin' },
        { key: `${secret}2`, role: 'writer', customer: ['acme'] },
      ],
      'keys[1] has an unknown field "customer": the fields are key, role and customers',
    ],
    [[{ key: secret, role: 'reader', customers: ['acme', 'bad id!'] }], 'keys[0].customers must be an array of customer ids'],
    [[{ key: secret, role: 'reader', customers: ['..'] }], 'keys[0].customers must be an array of customer ids'],
    [[[secret, 'admin']], 'keys[0] must be an object'],
  ]) {
    let error;
    try {
      parseKeys(list);
    } catch (thrown) {
      error = thrown;
    }
    assert.ok(error?.message.startsWith(message), `${JSON.stringify(list)}: ${error?.message}`);
    assert.doesNotMatch(error.message, /a-secret-key/);
  }
  assert.equal(
    parseKeys([
      { key: secret, role: 'admin' },
      { key: `${secret}2`, role: 'reader', customers: ['acme', 'a.b:c-1_2'] },
    ]).length,
    2,
  );
});

test('LEDGER_CORS_ORIGINS must list origins as browsers write them, and LEDGER_REQUEST_TIMEOUT_MS must be positive: else the server does not start', () => {
  const dir = tempDir();
  for (const [name, value, message] of [
    ['LEDGER_CORS_ORIGINS', 'foo', /LEDGER_CORS_ORIGINS: "foo" is not an origin such as https:\/\/app\.example\.com$/m],
    [
      'LEDGER_CORS_ORIGINS',
      'https://app.example, https://billing.example/',
      /LEDGER_CORS_ORIGINS: "https:\/\/billing\.example\/" is not an origin .*\(did you mean "https:\/\/billing\.example"\?\)/,
    ],
    ['LEDGER_CORS_ORIGINS', 'HTTPS://App.example', /did you mean "https:\/\/app\.example"/],
    ['LEDGER_REQUEST_TIMEOUT_MS', '0', /LEDGER_REQUEST_TIMEOUT_MS must be a positive integer, got "0"/],
    // 0 ms would run the cleanup pass, or count the rate limit's window, in a busy loop.
    ['LEDGER_CLEANUP_INTERVAL_MS', '0', /LEDGER_CLEANUP_INTERVAL_MS must be a positive integer, got "0"/],
    ['LEDGER_RATE_WINDOW_MS', '0', /LEDGER_RATE_WINDOW_MS must be a positive integer, got "0"/],
  ]) {
    const run = spawnSync(process.execPath, [join(serverDir, 'server.js')], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LEDGER_STORE: join(dir, 'never.db'), [name]: value },
      cwd: dir,
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.notEqual(run.status, 0, `${name}=${value}`);
    assert.match(run.stderr, message);
  }
});

test('the PostgreSQL settings must be positive integers: anything else stops the server at start', () => {
  const dir = tempDir();
  for (const [name, value, message] of [
    ['LEDGER_PG_POOL', 'abc', /LEDGER_PG_POOL must be a non-negative integer, got "abc"/],
    ['LEDGER_PG_POOL', '0', /LEDGER_PG_POOL must be a positive integer, got "0"/],
    ['LEDGER_PG_TIMEOUT_MS', '-3', /LEDGER_PG_TIMEOUT_MS must be a non-negative integer, got "-3"/],
  ]) {
    const run = spawnSync(process.execPath, [join(serverDir, 'server.js')], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LEDGER_STORE: 'postgres://127.0.0.1:1/none', [name]: value },
      cwd: dir,
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.notEqual(run.status, 0, `${name}=${value}`);
    assert.match(run.stderr, message);
  }
});
