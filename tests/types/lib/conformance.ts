// Compiled by `tsc -p tsconfig.lib.json` only: the class lib/ledger.js builds must be
// assignable to the GPULedger that lib/index.d.ts declares (every static and instance
// member present, each with a compatible type), and LedgerError likewise.
import type { GPULedger as DeclaredLedger, LedgerError as DeclaredError } from '../../../lib/index.js';
import { makeApi } from '../../../lib/ledger.js';
import { LedgerError } from '../../../lib/errors.js';

declare const wasmModule: Parameters<typeof makeApi>[0];
const built = makeApi(wasmModule);

export const ledgerClass: typeof DeclaredLedger = built.GPULedger;
export const errorClass: typeof DeclaredError = LedgerError;
