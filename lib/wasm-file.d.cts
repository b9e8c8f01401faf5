/**
 * The CommonJS entry of `gpu-credit-ledger/wasm-file`: the asynchronous loader alone
 * (`const { GPULedger } = await require('gpu-credit-ledger/wasm-file').loadLedger()`).
 * @packageDocumentation
 */
import type { GPULedger, LedgerError } from './index.js' with { 'resolution-mode': 'import' };
import type { WasmFileOptions } from './wasm-file.js' with { 'resolution-mode': 'import' };

export type * from './index.js' with { 'resolution-mode': 'import' };
export type { WasmFileOptions } from './wasm-file.js' with { 'resolution-mode': 'import' };

/** Fetches and instantiates the WebAssembly module once and resolves to the classes. */
export declare function loadLedger(options?: WasmFileOptions): Promise<{ GPULedger: typeof GPULedger; LedgerError: typeof LedgerError }>;
