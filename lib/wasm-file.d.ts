/**
 * The separate-`.wasm` variant: the same API as `gpu-credit-ledger` (a `GPULedger` class
 * of its own, over its own WebAssembly instance; `LedgerError` is the same class), with the
 * WebAssembly binary in a file of its own (`dist/gpu_credit_ledger.wasm`), located with
 * `new URL('…', import.meta.url)` (which Vite and webpack 5 follow and copy the file;
 * esbuild leaves it as it is: copy the file and pass its URL as `wasm`, README, *The
 * separate `.wasm` file*) and compiled while it downloads where the browser can.
 * @packageDocumentation
 */
import type { GPULedger, LedgerError } from './index.js';

export { LedgerError } from './index.js';
export type * from './index.js';

/** Options of the separate-`.wasm` variant's {@link loadLedger}. */
export interface WasmFileOptions {
  /**
   * Where the `.wasm` file is (a `URL` or a URL string, e.g. on a CDN), or its bytes. Default: the file
   * beside the module, `new URL('../dist/gpu_credit_ledger.wasm', import.meta.url)`.
   */
  wasm?: string | { readonly href: string } | ArrayBuffer | ArrayBufferView;
}

/**
 * Fetches and instantiates the WebAssembly module once and resolves to the classes. Only
 * the first call's options count. In Node, the default file is read from disk (Node >= 20.16).
 * Rejects with `TypeError` for options that are not an object or have a key other than `wasm`.
 */
export declare function loadLedger(options?: WasmFileOptions): Promise<{ GPULedger: typeof GPULedger; LedgerError: typeof LedgerError }>;
