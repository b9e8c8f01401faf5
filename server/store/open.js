// Picks the store from LEDGER_STORE: a file path selects the embedded SQLite store,
// a postgres:// URL the PostgreSQL store (several instances may share it).
import { PostgresStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';

export function storeFromSetting(setting = './ledger.db') {
  if (/^postgres(ql)?:\/\//.test(setting)) {
    return new PostgresStore(setting, { poolSize: Number(process.env.LEDGER_PG_POOL ?? 8) });
  }
  return new SqliteStore(setting);
}
