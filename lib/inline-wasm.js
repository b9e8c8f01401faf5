// The main entry's module: the WebAssembly binary travels inside the JavaScript, gzipped
// and base64-encoded, so that one import works everywhere with no file to locate.
// Decoding it takes the fastest way the platform has. scripts/inline-wasm.mjs bundles this
// file with what it imports into dist/gpu_credit_ledger_wasm.mjs, which lib/load.js loads.
import { wasmGzipBase64 } from '../dist/gpu_credit_ledger_inline.mjs';
import { gunzip } from './inflate.js';
import { instantiateWasm } from './instantiate.js';
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
// DecompressionStream. Elsewhere: lib/inflate.js.
async function gunzipWith(bytes, platform) {
  const zlib = platform.process?.getBuiltinModule?.('node:zlib');
  if (zlib) return zlib.gunzipSync(bytes);
  if (typeof platform.DecompressionStream === 'function') {
    const stream = new platform.Blob([bytes]).stream().pipeThrough(new platform.DecompressionStream('gzip'));
    return new Uint8Array(await new platform.Response(stream).arrayBuffer());
  }
  return gunzip(bytes);
}

export { wasmGzipBase64 };

/** The WebAssembly binary, decoded. `platform` (tests only) stands for globalThis. */
export async function inlinedWasm(platform = globalThis) {
  return gunzipWith(fromBase64(wasmGzipBase64, platform), platform);
}

/** A new module instance and its classes. `platform` (tests only) stands for globalThis. */
export async function instantiateInlined(platform = globalThis) {
  const bytes = await inlinedWasm(platform);
  return makeApi(await instantiateWasm((imports) => WebAssembly.instantiate(bytes, imports)));
}
