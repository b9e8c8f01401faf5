/* global Module */
// Appended to the Emscripten glue (--post-js, CMakeLists.txt): the plain exports of
// wasm_bindings.cpp as the instance holds them, for lib/ledger.js. The glue's own
// Module._gcl_* wrappers would cost an `apply` per call until their first use; the
// link rewrites each Module['asm']['gcl_*'] below to the export's minified name.
Module['gclExports'] = function () {
  return {
    idBuffer: Module['asm']['gcl_idBuffer'],
    addGrant: Module['asm']['gcl_addGrant'],
    consume: Module['asm']['gcl_consume'],
    getBalance: Module['asm']['gcl_getBalance'],
    balanceCurve: Module['asm']['gcl_balanceCurve'],
    grantCount: Module['asm']['gcl_grantCount'],
    consumptionCount: Module['asm']['gcl_consumptionCount'],
    headroom: Module['asm']['gcl_headroom'],
    submit: Module['asm']['gcl_submit'],
    cancelPending: Module['asm']['gcl_cancelPending'],
    hasAcceptedPending: Module['asm']['gcl_hasAcceptedPending'],
    clearReallocated: Module['asm']['gcl_clearReallocated'],
    horizon: Module['asm']['gcl_horizon'],
    reserveBatch: Module['asm']['gcl_reserveBatch'],
    reserveEvents: Module['asm']['gcl_reserveEvents'],
    batchKinds: Module['asm']['gcl_batchKinds'],
    batchIdEnds: Module['asm']['gcl_batchIdEnds'],
    batchIds: Module['asm']['gcl_batchIds'],
    batchNumbers: Module['asm']['gcl_batchNumbers'],
    batchResults: Module['asm']['gcl_batchResults'],
    applyBatch: Module['asm']['gcl_applyBatch'],
  };
};
