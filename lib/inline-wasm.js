// The main entry's module: the WebAssembly binary travels inside the JavaScript, gzipped
// and base64-encoded, so that one import works everywhere with no file to locate.
// Decoding it takes the fastest way the platform has. scripts/inline-wasm.mjs bundles this
// file with what it imports into dist/gpu_credit_ledger_wasm.mjs, which the main entry
// (lib/index.js) and gpu-credit-ledger/load (lib/load.js) import, LedgerError included:
// each module file more costs Node's loader 1.5-2 ms on a cold start.
import { wasmGzipBase64, wasmSize, wasmSample } from '../dist/gpu_credit_ledger_inline.mjs';
import { instantiateWasm } from './instantiate.js';
import { sampleHash } from './sample-hash.js';
import { makeApi } from './ledger.js';

function fromBase64(text, platform) {
  if (typeof platform.Buffer?.from === 'function') return platform.Buffer.from(text, 'base64');
  const binary = platform.atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// Node: its zlib, synchronous and native (process.getBuiltinModule, Node >= 20.16, so
// that browser bundlers meet no `import 'node:zlib'`). Browsers and workers:
// DecompressionStream. Elsewhere (browsers from before 2023): lib/inflate.js, a module of
// its own that only those load (the main module stays 1.2 kB smaller gzipped for the rest).
async function gunzipWith(bytes, platform) {
  const zlib = platform.process?.getBuiltinModule?.('node:zlib');
  if (zlib) return zlib.gunzipSync(bytes);
  if (typeof platform.DecompressionStream === 'function') {
    const stream = new platform.Blob([bytes]).stream().pipeThrough(new platform.DecompressionStream('gzip'));
    return new Uint8Array(await new platform.Response(stream).arrayBuffer());
  }
  const { gunzip } = await import('./inflate.js');
  return gunzip(bytes);
}

// The file the package ships beside this module (dist/gpu_credit_ledger.wasm, the
// wasm-file entry's binary). Not named by `new URL('…', import.meta.url)`: bundlers would
// emit that as an asset of every application (and webpack warns about any other first
// argument there).
const WASM_FILE = 'gpu_credit_ledger.wasm';

// Node, with the package as installed: the same binary is a file beside this module, and
// reading it spares a fresh process loading node:zlib for the gunzip (about 3 ms). Null
// anywhere else (browsers, an application's bundle) or when the file is not this build's.
function fileBeside(platform) {
  const fs = platform.process?.getBuiltinModule?.('node:fs');
  // undefined in a classic-script bundle (an iife), where import.meta is empty. webpack
  // writes import.meta.url as the module's path on the build machine: in its bundles
  // (where it evaluates this typeof to 'function') the expression is left out unread.
  const here = typeof __webpack_require__ === 'function' ? undefined : import.meta.url;
  if (!fs || typeof here !== 'string' || !here.startsWith('file:')) return null;
  let bytes;
  try {
    bytes = fs.readFileSync(new URL(here.slice(0, here.lastIndexOf('/') + 1) + WASM_FILE));
  } catch {
    return null;
  }
  return bytes.length === wasmSize && sampleHash(bytes, wasmSample.stride) === wasmSample.hash ? bytes : null;
}

/** The WebAssembly binary, decoded. `platform` (tests only) stands for globalThis. */
export async function inlinedWasm(platform = globalThis) {
  return gunzipWith(fromBase64(wasmGzipBase64, platform), platform);
}

/**
 * A new module instance and its classes. `platform` (tests only) stands for globalThis.
 * Node compiles synchronously (a fresh process's asynchronous compile waits about 2 ms
 * more for its threads); browsers keep the asynchronous compile, which they ask for.
 */
export async function instantiateInlined(platform = globalThis) {
  const node = typeof platform.process?.getBuiltinModule === 'function';
  const bytes = fileBeside(platform) ?? (await inlinedWasm(platform));
  const instantiate = node
    ? (imports) => ({ instance: new WebAssembly.Instance(new WebAssembly.Module(bytes), imports) })
    : (imports) => WebAssembly.instantiate(bytes, imports);
  return makeApi(await instantiateWasm(instantiate));
}

let api;

/**
 * Instantiates the WASM module (once) and resolves to the public classes. For bundlers
 * that cannot do top-level await; `import { GPULedger } from 'gpu-credit-ledger'` does
 * this for you.
 */
export function loadLedger() {
  api ??= instantiateInlined();
  return api;
}

export { LedgerError } from './errors.js';
