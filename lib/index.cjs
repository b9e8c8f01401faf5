'use strict';
// The CommonJS entry (the "require" condition of `gpu-credit-ledger` and its `/load`).
// The package's code is ES modules and its main entry uses top-level await, which
// require() cannot load on Node 20; so CommonJS gets the asynchronous loader:
//   const { loadLedger } = require('gpu-credit-ledger');
//   const { GPULedger, LedgerError } = await loadLedger();
// It resolves to the very classes the ES module entries export (one module instance).
const { explained } = require('./esm-import.cjs');

let api;

function loadLedger() {
  api ??= import('../dist/gpu_credit_ledger_wasm.mjs').then(
    (entry) => entry.loadLedger(),
    (error) => {
      throw explained(error);
    },
  );
  return api;
}

module.exports = { loadLedger };
