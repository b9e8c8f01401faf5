// The separate-.wasm variant: the same classes as the main entry, but the WebAssembly
// binary is a file of its own (dist/gpu_credit_ledger.wasm) instead of base64 inside the
// JavaScript. Browsers compile it while it downloads (WebAssembly.instantiateStreaming),
// and bundlers emit it as an asset because of the `new URL('…', import.meta.url)` below.
import { instantiateWasm } from './instantiate.js';
import { makeApi } from './ledger.js';

let api;

/**
 * Fetches, compiles and instantiates the WebAssembly module (once) and resolves to the
 * public classes. `options.wasm` overrides where the binary comes from (a URL or its
 * bytes); only the first call's options count, since the module is loaded once.
 */
export function loadLedger(options = {}) {
  // A promise either way, as the types say: bad options reject, as a bad options.wasm does.
  if (options === null || typeof options !== 'object') return Promise.reject(new TypeError('loadLedger: options must be an object'));
  // A misspelt key is refused, as tryConsume's are: ignored, it would load the default file.
  for (const key of Reflect.ownKeys(options)) {
    if (key !== 'wasm') {
      const name = typeof key === 'symbol' ? key.toString() : JSON.stringify(key);
      return Promise.reject(new TypeError(`loadLedger: unknown option ${name} (the only one is wasm)`));
    }
  }
  api ??= instantiateModule(options.wasm).catch((error) => {
    api = undefined; // a failed download may be retried
    throw error;
  });
  return api;
}

async function instantiateModule(wasm) {
  const source = wasm ?? new URL('../dist/gpu_credit_ledger.wasm', import.meta.url);
  return makeApi(await instantiateWasm((imports) => instantiate(source, imports)));
}

async function instantiate(source, imports) {
  // Bytes from any realm (an iframe, jsdom, Node's vm): not instanceof.
  if (ArrayBuffer.isView(source) || Object.prototype.toString.call(source) === '[object ArrayBuffer]') {
    return WebAssembly.instantiate(source, imports);
  }
  const url = typeof source === 'string' ? source : source?.href;
  if (typeof url !== 'string') {
    throw new TypeError('loadLedger: options.wasm must be a URL, a URL string or the bytes of the .wasm file');
  }
  if (url.startsWith('file:')) return WebAssembly.instantiate(await readFileUrl(url), imports);
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`gpu-credit-ledger: fetching ${url} failed with HTTP ${response.status}`);
  // Streaming compilation needs the application/wasm type; a server that sends another
  // one still works, by compiling the downloaded bytes.
  const type = response.headers.get('content-type') ?? '';
  if (typeof WebAssembly.instantiateStreaming === 'function' && type.split(';')[0].trim() === 'application/wasm') {
    return WebAssembly.instantiateStreaming(response, imports);
  }
  return WebAssembly.instantiate(await response.arrayBuffer(), imports);
}

// Node has no fetch for file: URLs. process.getBuiltinModule (Node >= 20.16) reads the
// file without an `import 'node:fs'` that browser bundlers would trip over.
async function readFileUrl(url) {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs');
  if (!fs) {
    throw new Error('gpu-credit-ledger/wasm-file: reading a file: URL needs Node >= 20.16; pass the bytes as loadLedger({ wasm })');
  }
  return fs.promises.readFile(new URL(url));
}

export { LedgerError } from './errors.js';
