// Long reads (GET .../ledger, a grant's burn-down, a balance curve) answered again from the
// read cache while the customer's ledger is as it was, and made anew after anything that
// changes it: a logged write, the cleanup job's compaction, a failed commit's reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GPULedger } from 'gpu-credit-ledger';
import net from 'node:net';
import { ADMIN, appWithCleanup } from './helpers.js';

// Counts the package's calls behind the three reads, in this process.
function counting() {
  const counts = { toJSON: 0, burnDown: 0, balanceCurve: 0 };
  const originals = {};
  for (const name of Object.keys(counts)) {
    originals[name] = GPULedger.prototype[name];
    GPULedger.prototype[name] = function (...args) {
      counts[name]++;
      return originals[name].apply(this, args);
    };
  }
  const restore = () => Object.assign(GPULedger.prototype, originals);
  return { counts, restore };
}

test('a long read asked again of an unchanged ledger is answered from the cache; every change makes it anew', async () => {
  const { counts, restore } = counting();
  const { app, inject } = await appWithCleanup(10, undefined, { readCacheMinBytes: 0 });
  try {
    const base = '/v1/customers/acme';
    let from = 0; // the curve's start: at or after the horizon
    const reads = async () => {
      const answers = await Promise.all([
        inject('GET', `${base}/ledger`),
        inject('GET', `${base}/grants/g1`),
        inject('GET', `${base}/balance-curve?from=${from}&to=100`),
      ]);
      for (const answer of answers) {
        assert.equal(answer.statusCode, 200, answer.body);
        assert.match(answer.headers['content-type'], /^application\/json; charset=utf-8/);
        assert.ok(answer.headers['x-ledger-seq'] !== undefined);
      }
      return answers.map((answer) => answer.json());
    };
    // The package's calls the reads made (writes make some of their own: a grant's add looks
    // its id up with burnDown).
    let made = {};
    const counted = async () => {
      const before = { ...counts };
      const answers = await reads();
      made = Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, n - before[name]]));
      return answers;
    };
    assert.equal((await inject('POST', `${base}/grants`, { grantId: 'g1', amount: 100, startTime: 0, endTime: 50 })).statusCode, 201);
    const first = await counted();
    assert.deepEqual(made, { toJSON: 1, burnDown: 1, balanceCurve: 1 });
    assert.deepEqual(await counted(), first, 'the same answers again');
    assert.deepEqual(made, { toJSON: 0, burnDown: 0, balanceCurve: 0 }, 'from the cache');
    // Another query string is another question.
    const curveCalls = counts.balanceCurve;
    assert.equal((await inject('GET', `${base}/balance-curve?from=0&to=99`)).statusCode, 200);
    assert.equal(counts.balanceCurve, curveCalls + 1);

    // A rejection logs nothing and changes nothing: still the cache.
    const rejected = await inject('POST', `${base}/consumptions`, { eventId: 'big', amount: 1000, timestamp: 5 });
    assert.equal(rejected.json().accepted, false);
    assert.deepEqual(await counted(), first);
    assert.deepEqual(made, { toJSON: 0, burnDown: 0, balanceCurve: 0 });

    // An accepted consumption: made anew, and it shows.
    assert.equal((await inject('POST', `${base}/consumptions`, { eventId: 'c1', amount: 30, timestamp: 20 })).json().accepted, true);
    const [ledger, burnDown, curve] = await counted();
    assert.deepEqual(made, { toJSON: 1, burnDown: 1, balanceCurve: 1 });
    assert.deepEqual(
      ledger.consumptions.map((c) => c.eventId),
      ['c1'],
    );
    assert.deepEqual(
      burnDown.draws.map((d) => d.eventId),
      ['c1'],
    );
    assert.notDeepEqual(curve, first[2]);

    // The cleanup job's compaction (horizon 20 - 10 = 10) changes the document: made anew.
    await app.cleanup.runOnce();
    const stale = await inject('GET', `${base}/balance-curve?from=0&to=100`); // the question asked before
    assert.equal(stale.statusCode, 409, 'not the answer kept from before the compaction');
    from = 10;
    const [compacted] = await counted();
    assert.equal(compacted.horizon, 10);
    assert.deepEqual(made, { toJSON: 1, burnDown: 1, balanceCurve: 1 });

    // Another customer's write leaves this one's answers where they were.
    assert.equal(
      (await inject('POST', '/v1/customers/other/grants', { grantId: 'g', amount: 1, startTime: 0, endTime: 1 })).statusCode,
      201,
    );
    await counted();
    assert.deepEqual(made, { toJSON: 0, burnDown: 0, balanceCurve: 0 });
  } finally {
    restore();
    await app.close();
  }
});

test('answers shorter than the least kept, and a cache of no bytes, are made every time', async () => {
  for (const limits of [{}, { readCacheBytes: 0, readCacheMinBytes: 0 }]) {
    const { counts, restore } = counting();
    const { app, inject } = await appWithCleanup(10, undefined, limits);
    try {
      assert.equal(
        (await inject('POST', '/v1/customers/acme/grants', { grantId: 'g1', amount: 100, startTime: 0, endTime: 50 })).statusCode,
        201,
      );
      for (let i = 0; i < 3; i++) assert.equal((await inject('GET', '/v1/customers/acme/ledger')).statusCode, 200);
      assert.equal(counts.toJSON, 3, JSON.stringify(limits));
    } finally {
      restore();
      await app.close();
    }
  }
});

test('a long read that runs between a write and its commit is answered with the write, as the other reads are', async () => {
  const { app, inject } = await appWithCleanup(10, undefined, { readCacheMinBytes: 0 });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = app.server.address().port;
    const base = '/v1/customers/acme';
    assert.equal((await inject('POST', `${base}/grants`, { grantId: 'g1', amount: 100, startTime: 0, endTime: 50 })).statusCode, 201);
    // Pipelined on one connection, in this order: the reads run in the customer's turn after
    // the write was applied and before its commit, and are answered after it.
    const pipelined = (eventId, timestamp) =>
      new Promise((resolve, reject) => {
        const body = JSON.stringify({ eventId, amount: 1, timestamp });
        const head = `Host: x\r\nAuthorization: Bearer ${ADMIN}\r\n`;
        const socket = net.connect(port, '127.0.0.1', () =>
          socket.write(
            `POST ${base}/consumptions HTTP/1.1\r\n${head}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
              `GET ${base}/balance?at=${timestamp} HTTP/1.1\r\n${head}\r\n` +
              `GET ${base}/ledger HTTP/1.1\r\n${head}\r\n` +
              `GET ${base}/grants/g1 HTTP/1.1\r\n${head}Connection: close\r\n\r\n`,
          ),
        );
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('error', reject);
        socket.on('end', () =>
          resolve(
            text.split(/(?=HTTP\/1\.1 \d{3} )/).map((answer) => ({
              seq: /x-ledger-seq: (\d+)/i.exec(answer)?.[1],
              body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)),
            })),
          ),
        );
      });
    for (let i = 0; i < 5; i++) {
      await inject('GET', `${base}/ledger`); // kept
      await inject('GET', `${base}/grants/g1`);
      const [write, balance, ledger, burnDown] = await pipelined(`c${i}`, 10 + i);
      assert.equal(write.body.accepted, true);
      assert.equal(balance.body.balance, 100 - (i + 1));
      assert.ok(
        ledger.body.consumptions.some((c) => c.eventId === `c${i}`),
        `GET .../ledger has c${i}`,
      );
      assert.ok(
        burnDown.body.draws.some((d) => d.eventId === `c${i}`),
        `the burn-down has c${i}`,
      );
      assert.equal(ledger.seq, balance.seq);
    }
  } finally {
    await app.close();
  }
});

test("the cache's budget counts each entry's key and its own cost, not only its text", async () => {
  const { ReadCache } = await import('../ledger/read-cache.js');
  const cache = new ReadCache({ budgetBytes: 10_000, minBytes: 0 });
  const state = { seq: 1, applied: 0, ledger: { horizon: 0 } };
  const stamp = cache.stamp(state);
  for (let i = 0; i < 100; i++) cache.put('acme', `/v1/customers/acme/balance-curve?from=0&to=${i}`, stamp, '{"points":[]}');
  const kept = Array.from(
    { length: 100 },
    (_, i) => cache.get('acme', `/v1/customers/acme/balance-curve?from=0&to=${i}`, state) !== undefined,
  );
  const count = kept.filter(Boolean).length;
  // 13 characters of text each, but about 700 counted: at most 14 fit, the latest ones.
  assert.ok(count >= 10 && count <= 14, `${count} entries kept`);
  assert.deepEqual(kept.slice(100 - count), Array(count).fill(true));
});
