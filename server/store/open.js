// Picks the store from LEDGER_STORE: a file path selects the embedded SQLite store.
import { SqliteStore } from './sqlite.js';

export function storeFromSetting(setting = './ledger.db') {
  if (/^postgres(ql)?:\/\//.test(setting)) {
    throw new Error('LEDGER_STORE: the PostgreSQL store is not part of this build; use a SQLite file path');
  }
  return new SqliteStore(setting);
}
