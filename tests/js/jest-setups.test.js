// Jest's setups. The CommonJS entries where CommonJS runs in a VM context that cannot import() ES modules
// (Jest without --experimental-vm-modules evaluates each file so): loadLedger() rejects
// with an error that says what to do, instead of Node's bare "A dynamic import callback was
// invoked without --experimental-vm-modules". With import() available they load as usual
// (that they give the ES module entries' very classes, the consumer matrix checks in Node).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const packageRoot = dirname(require.resolve('gpu-credit-ledger/package.json'));

// Evaluates a CommonJS file as a runner does: wrapped in a function compiled by vm, whose
// import() calls `importModuleDynamically` (Jest passes one; without Node's flag, Node
// refuses to call it).
function evaluate(entry) {
  const filename = require.resolve(entry);
  const wrapper = vm.runInThisContext(
    `(function (exports, require, module, __filename, __dirname) {${readFileSync(filename, 'utf8')}\n})`,
    {
      filename,
      importModuleDynamically: (specifier) => import(specifier),
    },
  );
  const module = { exports: {} };
  wrapper(module.exports, createRequire(filename), module, filename, dirname(filename));
  return module.exports;
}

describe('CommonJS entries without ES module support in the VM', () => {
  for (const entry of ['gpu-credit-ledger', 'gpu-credit-ledger/wasm-file']) {
    it(`${entry}: loadLedger() says to run Jest with --experimental-vm-modules`, async () => {
      const error = await evaluate(entry)
        .loadLedger()
        .then(
          () => null,
          (caught) => caught,
        );
      expect(error?.message).toBe(
        'gpu-credit-ledger is ES modules, and this CommonJS environment cannot import() them: under Jest, run it with NODE_OPTIONS=--experimental-vm-modules (README, "Other setups")',
      );
      expect(error.cause.code).toBe('ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG');
    });
  }

  it('with import() available, they load as usual', async () => {
    for (const entry of ['gpu-credit-ledger', 'gpu-credit-ledger/wasm-file']) {
      const { GPULedger: Ledger } = await require(entry).loadLedger();
      const ledger = new Ledger();
      ledger.addGrant('g1', 100, 0, 10);
      expect([ledger.consume('c1', 80, 6), ledger.getBalance(6)]).toEqual([true, 20]);
      ledger.dispose();
    }
  });
});

// Jest's jsdom environment has no TextEncoder or TextDecoder: the package then takes
// Node's, from node:util (a fresh process, so that the globals are gone before it loads).
// Runs `body` (ES module code) in a fresh Node process, in the package's folder, after
// deleting the TextEncoder and TextDecoder globals; returns what it printed.
function withoutTextGlobals(body) {
  const script = `delete globalThis.TextEncoder;\ndelete globalThis.TextDecoder;\n${body}`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: packageRoot, encoding: 'utf8' });
}

describe('a global scope without TextEncoder and TextDecoder', () => {
  for (const entry of ['gpu-credit-ledger', 'gpu-credit-ledger/wasm-file']) {
    it(`${entry} loads and round-trips non-ASCII ids`, () => {
      const out = withoutTextGlobals(`
        const entry = await import(${JSON.stringify(entry)});
        const { GPULedger } = entry.GPULedger ? entry : await entry.loadLedger();
        const ledger = new GPULedger();
        ledger.addGrant('gé', 100, 0, 10);
        console.log(JSON.stringify([ledger.consume('c—1', 80, 6), ledger.getBalance(6), ledger.allocations('c—1'), typeof TextEncoder]));`);
      expect(JSON.parse(out)).toEqual([true, 20, [{ grantId: 'gé', amount: 80 }], 'undefined']);
    });
  }

  it('without them and without node:util to take them from (Node before 20.16), loading says so', () => {
    const out = withoutTextGlobals(`
      delete process.getBuiltinModule;
      try { await import('gpu-credit-ledger'); console.log('loaded'); } catch (error) { console.log(error.message); }`);
    expect(out.trim()).toBe(
      "gpu-credit-ledger needs TextEncoder, which this environment lacks: give it Node's (require('node:util').TextEncoder) or run Node >= 20.16",
    );
  });
});
