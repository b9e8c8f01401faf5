'use strict';
// The CommonJS entry of `gpu-credit-ledger/wasm-file`: the asynchronous loader of the
// separate-.wasm variant, for require() (see index.cjs for why it is asynchronous).
function loadLedger(options) {
  return import('./wasm-file.js').then((entry) => entry.loadLedger(options));
}

module.exports = { loadLedger };
