// Instantiates the module's WebAssembly binary (cpp/bindings/wasm_bindings.cpp) with no
// generated glue: the binary imports two functions, both defined here, and exports its
// memory, its static constructors and the plain gcl_* functions. Shared by the main entry
// (binary inlined, lib/inline-wasm.js) and lib/wasm-file.js.

// Emscripten's growth policy for the WebAssembly memory, as the link states it
// (CMakeLists.txt: MEMORY_GROWTH_GEOMETRIC_STEP=1.0, the default 96 MB cap per step):
// the memory doubles while that is under the cap, then grows by what is asked plus the cap.
const GEOMETRIC_STEP = 1.0;
const GEOMETRIC_CAP = 96 * 1024 * 1024;
const PAGE = 65536;

/**
 * `instantiate(imports)` resolves to `{ instance }` (WebAssembly.instantiate's result);
 * resolves to `{ exports, HEAPU8 }`: the plain exports without their gcl_ prefix
 * (`exports.consume` is gcl_consume), and the memory as bytes (a view that a growth of
 * the memory replaces: read it after any call that may allocate).
 */
export async function instantiateWasm(instantiate) {
  const module = { exports: {}, HEAPU8: new Uint8Array(0) };
  /** @type {WebAssembly.Memory} */
  let memory;
  let heapMax = 0; // MAXIMUM_MEMORY, as the module states it

  // The C side's emscripten_resize_heap (emmalloc's sbrk, the heap budget's growHeapFor):
  // grows the memory to at least `requested` bytes; 1 on success, 0 if it cannot.
  function resizeHeap(requested) {
    const old = module.HEAPU8.length;
    requested >>>= 0;
    if (requested > heapMax) return 0;
    for (let cutDown = 1; cutDown <= 4; cutDown *= 2) {
      const overGrown = Math.min(old * (1 + GEOMETRIC_STEP / cutDown), requested + GEOMETRIC_CAP);
      const wanted = Math.max(requested, overGrown);
      const size = Math.min(heapMax, Math.ceil(wanted / PAGE) * PAGE);
      try {
        memory.grow((size - memory.buffer.byteLength + PAGE - 1) >>> 16);
        module.HEAPU8 = new Uint8Array(memory.buffer);
        return 1;
      } catch {
        // too much at once: try a smaller step
      }
    }
    return 0;
  }

  const env = {
    abort() {
      throw new WebAssembly.RuntimeError('gpu-credit-ledger: the WebAssembly module aborted');
    },
    emscripten_resize_heap: resizeHeap,
  };
  const { instance } = await instantiate({ env });
  const wasm = instance.exports;
  memory = /** @type {WebAssembly.Memory} */ (wasm.memory);
  module.HEAPU8 = new Uint8Array(memory.buffer);
  for (const name of Object.keys(wasm)) {
    if (name.startsWith('gcl_')) module.exports[name.slice(4)] = wasm[name];
  }
  heapMax = module.exports.heapMax();
  /** @type {Function} */ (wasm.__wasm_call_ctors)();
  return module;
}
