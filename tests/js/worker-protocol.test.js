// The worker message protocol (gpu-credit-ledger/worker + /remote), over a MessageChannel:
// requests posted before the module is loaded are all answered, in order; errors keep
// their class and code and change nothing; a remote ledger behaves exactly like a local
// one on random call sequences.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { loadLedger } from 'gpu-credit-ledger/load';
import { exposeLedger } from 'gpu-credit-ledger/worker';
import { connectLedger } from 'gpu-credit-ledger/remote';
import { SEED_EXAMPLE_1, runSeed, seedResults } from './fixtures/seed.js';
import { mulberry32, rejection } from './helpers.js';

const channels = [];
afterEach(() => {
  for (const channel of channels.splice(0)) {
    channel.port1.close();
    channel.port2.close();
  }
});

// A worker scope and a page, joined by a MessageChannel. `load` defaults to the real loader.
function connect(load = loadLedger) {
  const channel = new MessageChannel();
  channels.push(channel);
  exposeLedger(load, channel.port1);
  channel.port1.start(); // a worker's scope needs no start(); a MessagePort does
  const remote = connectLedger(channel.port2);
  channel.port2.start();
  return { remote, page: channel.port2 };
}

function deferred() {
  let resolve;
  const promise = new Promise((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('worker protocol', () => {
  it('answers every call posted before the module is ready, in order (seed example)', async () => {
    const gate = deferred();
    const { remote } = connect(() => gate.promise.then(loadLedger));
    const calls = [...runSeed(remote, SEED_EXAMPLE_1), remote.getBalance(6), remote.allocations('c1'), remote.grantCount()];
    await new Promise((resolve) => setTimeout(resolve, 20)); // the requests wait, unanswered
    gate.resolve();
    expect(await Promise.all(calls)).toEqual([...seedResults(SEED_EXAMPLE_1), 70, [{ grantId: 'g1', amount: 80 }], 2]);
  });

  it('rejects onPendingAccepted and arguments that cannot be sent with TypeError, sending nothing', async () => {
    const { remote } = connect();
    const listening = await rejection(remote.onPendingAccepted(() => {}));
    expect(listening).toBeInstanceOf(TypeError);
    expect(listening.message).toMatch(/^onPendingAccepted: a listener cannot cross to the worker/);
    const unsendable = await rejection(remote.addGrant(Symbol('g'), 10, 0, 5));
    expect(unsendable).toBeInstanceOf(TypeError);
    expect(unsendable.message).toMatch(/^addGrant: its arguments cannot be sent to the worker/);
    expect(await remote.grantCount()).toBe(0);
  });

  it('rejects with the same error class and code, and the refused call changes nothing', async () => {
    const { remote } = connect();
    await remote.addGrant('g1', 100, 0, 10);
    const before = await remote.toJSON();
    const duplicate = await rejection(remote.addGrant('g1', 1, 0, 1));
    expect(duplicate).toBeInstanceOf(LedgerError);
    expect(duplicate.code).toBe('DUPLICATE_ID');
    expect(await rejection(remote.consume('c1', '80', 6))).toBeInstanceOf(TypeError);
    expect(await rejection(remote.consume('c1', -1, 6))).toBeInstanceOf(RangeError);
    expect(await remote.toJSON()).toEqual(before);
  });

  it("a batch's errors arrive with their class and code, as a local ledger returns them", async () => {
    const { remote } = connect();
    const local = new GPULedger();
    await remote.addGrant('g1', 100, 0, 10);
    local.addGrant('g1', 100, 0, 10);
    const events = [
      { kind: 'grant', grantId: 'g1', amount: 5, startTime: 0, endTime: 1 }, // DUPLICATE_ID
      { kind: 'consume', eventId: 'c1', amount: -1, timestamp: 2 }, // RangeError
      { kind: 'consume', eventId: 'c2', amount: 30, timestamp: 2 },
      { kind: 'consume', eventId: 'c3', amount: 500, timestamp: 2 }, // rejected
    ];
    const shape = (results) => results.map((r) => (r instanceof Error ? [r.constructor.name, r.code, r.message] : r));
    const remoteResults = await remote.applyBatch(events);
    expect(remoteResults[0]).toBeInstanceOf(LedgerError);
    expect(remoteResults[0].code).toBe('DUPLICATE_ID');
    expect(remoteResults[1]).toBeInstanceOf(RangeError);
    expect(shape(remoteResults)).toEqual(shape(local.applyBatch(events)));
    const encoder = new TextEncoder();
    const columns = {
      kinds: new Uint8Array([0, 1]),
      ids: encoder.encode('g1c9'),
      idEnds: new Uint32Array([2, 4]),
      amounts: new Float64Array([7, 1]),
      times: new Float64Array([0, 3]),
      endTimes: new Float64Array([1, 0]),
    };
    const remoteColumns = await remote.applyColumns(columns);
    const localColumns = local.applyColumns(columns);
    expect(remoteColumns.errors.get(0)).toBeInstanceOf(LedgerError);
    expect(remoteColumns.errors.get(0).code).toBe('DUPLICATE_ID');
    expect([...remoteColumns.results]).toEqual([...localColumns.results]);
    expect(shape([...remoteColumns.errors.values()])).toEqual(shape([...localColumns.errors.values()]));
    expect(await remote.toJSON()).toEqual(local.toJSON());
    local.dispose();
  });

  it('refuses unknown members and those that cannot cross a message boundary', async () => {
    const { remote } = connect();
    await remote.addGrant('g1', 100, 0, 10);
    const before = await remote.toJSON();
    for (const method of ['nope', 'constructor', 'onPendingAccepted', '__proto__']) {
      const error = await rejection(remote[method]());
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toContain(method);
    }
    expect(await remote.toJSON()).toEqual(before);
  });

  it('leaves messages of another shape alone', async () => {
    const { remote, page } = connect();
    const replies = [];
    page.addEventListener('message', (event) => replies.push(event.data));
    for (const message of [
      null,
      'text',
      { hello: 1 },
      { id: 1 },
      { id: {}, method: 'getBalance' },
      { id: 2, method: 'getBalance', args: 'x' },
    ]) {
      page.postMessage(message);
    }
    expect(await remote.getBalance(0)).toBe(0);
    expect(replies).toHaveLength(1);
  });

  it('reports a failed load to every call', async () => {
    const { remote } = connect(() => Promise.reject(new Error('no module here')));
    const errors = await Promise.all([rejection(remote.getBalance(0)), rejection(remote.consume('c', 1, 1))]);
    expect(errors.map((error) => error.message)).toEqual(['no module here', 'no module here']);
  });

  it('fromJSON replaces the worker ledger; properties are methods without arguments', async () => {
    const source = new GPULedger();
    source.addGrant('g1', 100, 0, 10);
    source.consume('c1', 30, 2);
    const { remote } = connect();
    await remote.addGrant('other', 5, 0, 1);
    await remote.fromJSON(JSON.stringify(source.toJSON()));
    expect(await remote.toJSON()).toEqual(source.toJSON());
    expect([await remote.grantCount(), await remote.consumptionCount(), await remote.disposed()]).toEqual([1, 1, false]);
    const invalid = await rejection(remote.fromJSON('{"format":"nope"}'));
    expect(invalid.code).toBe('INVALID_SNAPSHOT');
    expect(await remote.toJSON()).toEqual(source.toJSON()); // a refused snapshot keeps the ledger
    source.dispose();
  });

  it('two clients on one worker, also of two copies of the module, each get their own answers', async () => {
    const { remote, page } = connect();
    const other = connectLedger(page);
    // Two other bundles' copies, each numbering its requests from the start.
    const first = (await import('../../lib/remote.js?copy=a')).connectLedger(page);
    const second = (await import('../../lib/remote.js?copy=b')).connectLedger(page);
    const answers = await Promise.all([
      remote.addGrant('g', 100, 0, 10),
      other.grantCount(),
      first.getBalance(5),
      second.grantCount(),
      first.grantCount(),
      second.getBalance(5),
    ]);
    expect(answers).toEqual([undefined, 1, 100, 1, 1, 100]);
  });

  it("after a worker's error event, calls are answered while it runs; a worker that answers nothing fails every call", async () => {
    const errorEvent = (message) => {
      const event = new Event('error');
      if (message !== undefined) Object.defineProperty(event, 'message', { value: message });
      return event;
    };
    // A running worker whose own code threw: the calls waiting and later are answered.
    const { remote, page } = connect();
    const waiting = remote.addGrant('g', 7, 0, 10);
    page.dispatchEvent(errorEvent('Uncaught Error: unrelated'));
    expect(await waiting).toBeUndefined();
    expect(await remote.getBalance(5)).toBe(7);
    // A worker that never ran (its script did not load): nothing answers.
    vi.useFakeTimers();
    try {
      const dead = new EventTarget();
      dead.postMessage = () => {};
      const lost = connectLedger(dead);
      const pending = rejection(lost.grantCount());
      dead.dispatchEvent(errorEvent());
      await vi.advanceTimersByTimeAsync(10_000);
      const error = await pending;
      expect(error.message).toMatch(/worker failed: an error event, and no answer within 10 s/);
      expect((await rejection(lost.getBalance(0))).message).toBe(error.message);
    } finally {
      vi.useRealTimers();
    }
  });

  it('once the page terminates the worker (or closes the port), waiting and later calls reject', async () => {
    // A worker still loading: its calls wait, and terminate() answers them.
    const gate = deferred();
    const { remote, page } = connect(() => gate.promise.then(loadLedger));
    const other = connectLedger(page); // a second client on the same port
    const waiting = [rejection(remote.getBalance(0)), rejection(other.grantCount())];
    page.close();
    const errors = await Promise.all(waiting);
    expect(errors.map((error) => error.message)).toEqual([
      'gpu-credit-ledger worker port closed; no call reaches its ledger',
      'gpu-credit-ledger worker port closed; no call reaches its ledger',
    ]);
    expect((await rejection(remote.addGrant('g', 1, 0, 1))).message).toBe(errors[0].message);
    gate.resolve();
    // A Worker: terminate() is the original's, called once, then every call rejects.
    const worker = new EventTarget();
    const posted = [];
    let terminated = 0;
    worker.postMessage = (message) => posted.push(message);
    worker.terminate = () => void terminated++;
    const lost = connectLedger(worker);
    const pending = rejection(lost.consume('c', 1, 1));
    worker.terminate();
    expect(terminated).toBe(1);
    expect((await pending).message).toBe('gpu-credit-ledger worker terminated; no call reaches its ledger');
    expect((await rejection(lost.getBalance(0))).message).toBe('gpu-credit-ledger worker terminated; no call reaches its ledger');
    expect(posted).toHaveLength(1); // nothing sent after terminate()
  });

  it('exposeLedger needs the loader function', () => {
    for (const notALoader of [undefined, null, 'gpu-credit-ledger/load', {}]) {
      expect(() => exposeLedger(notALoader, new MessageChannel().port1)).toThrow(TypeError);
    }
  });

  it('a remote ledger answers like a local one on random call sequences', async () => {
    const random = mulberry32(20261130);
    const pick = (n) => Math.floor(random() * n);
    const local = new GPULedger();
    const { remote } = connect();
    const settle = (fn) => {
      try {
        return { value: fn() };
      } catch (error) {
        return { error: [error.name, error.code] };
      }
    };
    const settleRemote = (promise) =>
      promise.then(
        (value) => ({ value }),
        (error) => ({ error: [error.name, error.code] }),
      );
    for (let step = 0; step < 300; step++) {
      const id = `${'gc'[pick(2)]}${pick(12)}`;
      const t = pick(30);
      const [method, args] = [
        ['addGrant', [id, 1 + pick(40), t, t + pick(15)]],
        ['consume', [id, 1 + pick(40), t]],
        ['getBalance', [t]],
        ['allocations', [id]],
        ['headroom', [t]],
        ['tryConsume', [id, 1 + pick(40), t, { dryRun: random() < 0.5 }]],
        ['balanceCurve', [t, t + pick(20)]],
        ['consume', [id, pick(3) - 1, t]], // amounts 0 and -1 are refused
      ][pick(8)];
      const expected = settle(() => local[method](...args));
      expect(await settleRemote(remote[method](...args)), `${method}(${JSON.stringify(args)})`).toEqual(expected);
    }
    expect(await remote.toJSON()).toEqual(local.toJSON());
    local.dispose();
  });
});
