// The worker protocol over Node's worker_threads: connectLedger on a worker_threads
// Worker (an EventEmitter, not an EventTarget), exposeLedger on parentPort or on its
// EventEmitter side; the seed example, errors with their class and code, and calls that
// reject once the thread is terminated or exits, with its uncaught error.
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerError } from 'gpu-credit-ledger';
import { connectLedger } from 'gpu-credit-ledger/remote';
import { SEED_EXAMPLE_1, runSeed, seedResults } from './fixtures/seed.js';
import { rejection } from './helpers.js';

const threads = [];
afterEach(async () => {
  await Promise.all(threads.splice(0).map((thread) => thread.terminate()));
});

function start(scope) {
  const thread = new Worker(new URL('./fixtures/ledger-thread.mjs', import.meta.url), { workerData: { scope } });
  threads.push(thread);
  return thread;
}

describe('worker protocol over worker_threads', () => {
  for (const scope of ['port', 'emitter']) {
    it(`serves the seed example, with errors of their class and code (worker side: ${scope})`, async () => {
      const remote = connectLedger(start(scope));
      const results = await Promise.all(runSeed(remote, SEED_EXAMPLE_1));
      expect(results).toEqual(seedResults(SEED_EXAMPLE_1));
      expect(await remote.getBalance(6)).toBe(70);
      const duplicate = await rejection(remote.addGrant('g1', 1, 0, 1));
      expect([duplicate instanceof LedgerError, duplicate.code]).toEqual([true, 'DUPLICATE_ID']);
      expect((await rejection(remote.getBalance(-1))).constructor).toBe(RangeError);
      expect(await remote.grantCount()).toBe(SEED_EXAMPLE_1.calls.filter(([method]) => method === 'addGrant').length);
    });
  }

  it('once the thread is terminated, waiting and later calls reject', async () => {
    const thread = start('port');
    const remote = connectLedger(thread);
    expect(await remote.getBalance(0)).toBe(0);
    const waiting = rejection(remote.addGrant('g', 1, 0, 1));
    await thread.terminate();
    expect((await waiting).message).toBe('gpu-credit-ledger worker terminated; no call reaches its ledger');
    expect((await rejection(remote.getBalance(0))).message).toMatch(/terminated/);
  });

  it("a thread's uncaught error ends it: later calls reject with its exit, not after a probe", async () => {
    const thread = start('throw');
    const remote = connectLedger(thread);
    expect(await remote.getBalance(0)).toBe(0);
    const exited = new Promise((resolve) => thread.once('exit', resolve));
    expect(await exited).toBe(1);
    const error = await rejection(remote.getBalance(0));
    expect(error.message).toBe('gpu-credit-ledger worker exited (code 1), after an uncaught error: boom; no call reaches its ledger');
    expect(error.cause?.message).toBe('boom');
  });

  it('refuses what cannot carry the protocol, saying what it takes', async () => {
    for (const worker of [undefined, {}, { postMessage() {} }]) {
      expect(() => connectLedger(worker)).toThrow(
        new TypeError(
          'connectLedger: worker must be a Worker, a MessagePort or a worker_threads Worker (postMessage, and addEventListener or on)',
        ),
      );
    }
    // The Web Worker example as it is, in a worker_threads thread: no scope given.
    const remote = connectLedger(start('no-scope'));
    const error = await rejection(remote.getBalance(0));
    expect(error.message).toMatch(
      /^gpu-credit-ledger worker exited \(code 1\), after an uncaught error: exposeLedger: scope must have postMessage/,
    );
  });

  it('a thread that exits by itself fails the calls at once, not after a probe', async () => {
    const remote = connectLedger(start('exit'));
    const started = performance.now();
    const error = await rejection(remote.getBalance(0));
    expect(error.message).toBe('gpu-credit-ledger worker exited (code 3); no call reaches its ledger');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect((await rejection(remote.getBalance(0))).message).toMatch(/exited/);
  });
});
