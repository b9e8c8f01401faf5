'use strict';
// For the CommonJS entries (index.cjs, wasm-file.cjs), which load the package's ES modules
// with import(): a runner that evaluates CommonJS in a VM context without ES module
// support (Jest without Node's --experimental-vm-modules) rejects that import() with one of
// Node's ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING codes. The error then says what to do.
function explained(error) {
  if (typeof error?.code !== 'string' || !error.code.startsWith('ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING')) return error;
  return new Error(
    'gpu-credit-ledger is ES modules, and this CommonJS environment cannot import() them: ' +
      'under Jest, run it with NODE_OPTIONS=--experimental-vm-modules (README, "Other setups")',
    { cause: error },
  );
}

module.exports = { explained };
