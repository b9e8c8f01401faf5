// The package's entries share one LedgerError class: the main module carries its own copy
// of lib/errors.js (one module file fewer for Node's loader) and the other entries import
// lib/errors.js, and whichever copy runs first registers its class for the others. The
// `gpu-credit-ledger/load` entry is the main module itself, which exports only what that
// entry declares.
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as main from 'gpu-credit-ledger';
import * as load from 'gpu-credit-ledger/load';
import * as wasmFile from 'gpu-credit-ledger/wasm-file';
import * as remote from 'gpu-credit-ledger/remote';

const errorsUrl = new URL('../../lib/errors.js', import.meta.url).href;

// Runs `body` (an ES module's text) in a fresh Node process and parses what it prints.
function inFreshProcess(body) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', body], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

describe('LedgerError across entries', () => {
  it('is one class in every entry, and what every entry throws is an instance of it', async () => {
    for (const entry of [load, wasmFile, remote]) expect(entry.LedgerError).toBe(main.LedgerError);
    const fromFile = await wasmFile.loadLedger();
    const fromLoad = await load.loadLedger();
    expect(fromFile.LedgerError).toBe(main.LedgerError);
    expect(fromLoad.LedgerError).toBe(main.LedgerError);
    for (const { GPULedger } of [main, fromFile]) {
      const ledger = new GPULedger();
      ledger.addGrant('g', 1, 0, 1);
      let thrown;
      try {
        ledger.addGrant('g', 2, 0, 1);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(main.LedgerError);
      expect(thrown.code).toBe('DUPLICATE_ID');
      expect(thrown.name).toBe('LedgerError');
      ledger.dispose();
    }
  });

  it('gpu-credit-ledger/load exports loadLedger and LedgerError, nothing else', () => {
    expect(Object.keys(load).sort()).toEqual(['LedgerError', 'loadLedger']);
    expect(Object.keys(main).sort()).toEqual(['GPULedger', 'LedgerError', 'loadLedger']);
  });

  it('is the class of whichever copy ran first: the main module before lib/errors.js, and the other way round', () => {
    const order = (first, second) => `
      const a = await import(${JSON.stringify(first)});
      const b = await import(${JSON.stringify(second)});
      const key = Symbol.for('gpu-credit-ledger.LedgerError');
      const described = Object.getOwnPropertyDescriptor(globalThis, key);
      const error = new b.LedgerError('DISPOSED', 'm');
      console.log(JSON.stringify({
        same: a.LedgerError === b.LedgerError,
        registered: described.value === a.LedgerError,
        enumerable: described.enumerable,
        instance: error instanceof a.LedgerError && error instanceof Error,
        fields: [error.name, error.code, error.message],
      }));`;
    const expected = { same: true, registered: true, enumerable: false, instance: true, fields: ['LedgerError', 'DISPOSED', 'm'] };
    expect(inFreshProcess(order('gpu-credit-ledger/load', errorsUrl))).toEqual(expected);
    expect(inFreshProcess(order(errorsUrl, 'gpu-credit-ledger/load'))).toEqual(expected);
    expect(inFreshProcess(order(`${errorsUrl}?a`, `${errorsUrl}?b`))).toEqual(expected); // two copies of the file
  });

  it('still works where the global object takes no new property: each copy keeps its own class', () => {
    const result = inFreshProcess(`
      Object.preventExtensions(globalThis);
      const a = await import(${JSON.stringify(`${errorsUrl}?a`)});
      const b = await import(${JSON.stringify(`${errorsUrl}?b`)});
      const error = new a.LedgerError('UNKNOWN_ID', 'gone');
      console.log(JSON.stringify({
        same: a.LedgerError === b.LedgerError,
        instance: error instanceof a.LedgerError && error instanceof Error,
        fields: [error.name, error.code, error.message, a.LedgerError.name],
      }));`);
    expect(result).toEqual({ same: false, instance: true, fields: ['LedgerError', 'UNKNOWN_ID', 'gone', 'LedgerError'] });
  });
});

describe('an uncaught error from the main module', () => {
  it('prints its own source line, not the whole module (the inlined binary is one string)', () => {
    const script =
      "import { GPULedger } from 'gpu-credit-ledger'; const l = new GPULedger(); l.addGrant('g', 1, 0, 1); l.addGrant('g', 2, 0, 1);";
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/LedgerError: addGrant: grant "g" already exists with different parameters/);
    // Node prints the line of the throw above the stack: at most lineLimit (500) characters
    // of the module (scripts/inline-wasm.mjs), where it was the whole 100 kB module.
    expect(run.stderr.length).toBeLessThan(3000);
  });
});
