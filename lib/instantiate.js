// Runs an Emscripten module factory whose WebAssembly instance we make ourselves (the
// `instantiateWasm` hook): `instantiate(imports)` resolves to { instance, module }.
// Shared by the main entry (binary inlined, lib/inline-wasm.js) and lib/wasm-file.js.
export async function runFactory(createLedgerModule, instantiate) {
  let fail;
  const failed = new Promise((_, reject) => {
    fail = reject;
  });
  const ready = createLedgerModule({
    // Emscripten's hook: returning {} tells the glue that instantiation is asynchronous.
    instantiateWasm(imports, receiveInstance) {
      instantiate(imports).then(({ instance, module }) => receiveInstance(instance, module), fail);
      return {};
    },
  });
  // The glue's promise never settles when instantiateWasm fails, hence the race.
  return Promise.race([ready, failed]);
}
