import { loadLedger } from './load.js';

const api = await loadLedger();

export const { GPULedger } = api;
export { LedgerError } from './errors.js';
export { loadLedger };
