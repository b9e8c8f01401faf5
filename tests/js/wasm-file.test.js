// The separate-.wasm variant (gpu-credit-ledger/wasm-file): the same classes and answers as
// the main entry, the binary read from disk, from bytes, or over HTTP with streaming
// compilation when the server says application/wasm; bad options and failed downloads
// reject clearly and can be retried.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GPULedger as MainLedger } from 'gpu-credit-ledger';
import { SEED_EXAMPLE_1, seedOutcome, seedResults } from './fixtures/seed.js';

const wasmPath = createRequire(import.meta.url)
  .resolve('gpu-credit-ledger/package.json')
  .replace(/package\.json$/, 'dist/gpu_credit_ledger.wasm');
const wasmBytes = readFileSync(wasmPath);

// A fresh copy of the module each time: it loads the WebAssembly once per instance.
async function freshLoader() {
  vi.resetModules();
  return (await import('gpu-credit-ledger/wasm-file')).loadLedger;
}

// Seed example 1 (tests/js/fixtures/seed.js): each call's result, then the balances it states.
const SEED_OUTCOME = [...seedResults(SEED_EXAMPLE_1), ...SEED_EXAMPLE_1.balances.map(([, balance]) => balance)];

let server;
let origin;
let requests = 0;
beforeAll(async () => {
  // /wasm: application/wasm; /octet: another type; anything else: 404.
  server = createServer((request, response) => {
    requests += 1;
    const type = { '/wasm': 'application/wasm', '/octet': 'application/octet-stream' }[request.url];
    if (!type) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': type }).end(wasmBytes);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
afterEach(() => vi.restoreAllMocks());

describe('gpu-credit-ledger/wasm-file', () => {
  it('reads the .wasm beside the module and answers like the main entry', async () => {
    const loadLedger = await freshLoader();
    const { GPULedger } = await loadLedger();
    expect(seedOutcome(GPULedger)).toEqual(seedOutcome(MainLedger));
    expect(seedOutcome(GPULedger).result).toEqual(SEED_OUTCOME);
    expect((await loadLedger()).GPULedger).toBe(GPULedger); // loaded once
  });

  it('takes the bytes', async () => {
    const loadLedger = await freshLoader();
    const { GPULedger } = await loadLedger({ wasm: new Uint8Array(wasmBytes) });
    expect(seedOutcome(GPULedger).result).toEqual(SEED_OUTCOME);
  });

  it('takes the bytes as an ArrayBuffer made in another realm (jsdom, an iframe, Node vm)', async () => {
    const loadLedger = await freshLoader();
    const buffer = vm.runInNewContext('new ArrayBuffer(length)', { length: wasmBytes.length });
    new Uint8Array(buffer).set(wasmBytes);
    expect(buffer instanceof ArrayBuffer).toBe(false);
    const { GPULedger } = await loadLedger({ wasm: buffer });
    expect(seedOutcome(GPULedger).result).toEqual(SEED_OUTCOME);
  });

  it('compiles while downloading when the server sends application/wasm', async () => {
    const streaming = vi.spyOn(WebAssembly, 'instantiateStreaming');
    const loadLedger = await freshLoader();
    const { GPULedger } = await loadLedger({ wasm: new URL('/wasm', origin) });
    expect(streaming).toHaveBeenCalledTimes(1);
    expect(seedOutcome(GPULedger).result).toEqual(SEED_OUTCOME);
  });

  it('compiles the downloaded bytes when the server sends another type', async () => {
    const streaming = vi.spyOn(WebAssembly, 'instantiateStreaming');
    const loadLedger = await freshLoader();
    const { GPULedger } = await loadLedger({ wasm: `${origin}/octet` });
    expect(streaming).not.toHaveBeenCalled();
    expect(seedOutcome(GPULedger).result).toEqual(SEED_OUTCOME);
  });

  it('rejects bad options clearly', async () => {
    const loadLedger = await freshLoader();
    // A promise either way, as the types say: a rejection, never a throw.
    for (const options of [5, null]) {
      const loading = loadLedger(options);
      expect(loading).toBeInstanceOf(Promise);
      await expect(loading).rejects.toThrow(new TypeError('loadLedger: options must be an object'));
    }
    for (const wasm of [5, {}, true]) {
      await expect(loadLedger({ wasm })).rejects.toThrow(/options\.wasm must be/);
    }
    // A misspelt option is refused, not ignored for the default file (as tryConsume's).
    await expect(loadLedger({ wsm: 'elsewhere.wasm' })).rejects.toThrow(
      new TypeError('loadLedger: unknown option "wsm" (the only one is wasm)'),
    );
    await expect(loadLedger({ [Symbol('wasm')]: 1 })).rejects.toThrow(/unknown option Symbol\(wasm\)/);
  });

  it('a failed download rejects with the status and may be retried', async () => {
    const loadLedger = await freshLoader();
    const before = requests;
    await expect(loadLedger({ wasm: `${origin}/missing` })).rejects.toThrow(/HTTP 404/);
    await expect(loadLedger({ wasm: 'file:///nonexistent/gpu_credit_ledger.wasm' })).rejects.toThrow(/ENOENT/);
    const { GPULedger } = await loadLedger({ wasm: `${origin}/wasm` });
    expect(seedOutcome(GPULedger).result).toEqual(SEED_OUTCOME);
    expect(requests - before).toBe(2);
  });
});
