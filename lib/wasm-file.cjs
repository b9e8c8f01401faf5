'use strict';
// The CommonJS entry of `gpu-credit-ledger/wasm-file`: the asynchronous loader of the
// separate-.wasm variant, for require() (see index.cjs for why it is asynchronous).
const { explained } = require('./esm-import.cjs');

function loadLedger(options) {
  return import('./wasm-file.js').then(
    (entry) => entry.loadLedger(options),
    (error) => {
      throw explained(error);
    },
  );
}

module.exports = { loadLedger };
