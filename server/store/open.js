// Picks the store from LEDGER_STORE: a file path selects the embedded SQLite store,
// a postgres:// URL the PostgreSQL store (several instances may share it).
import { PostgresStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';

// options: the PostgreSQL store's { poolSize, timeoutMs } (server.js reads them from the
// environment: LEDGER_PG_POOL, LEDGER_PG_TIMEOUT_MS).
export function storeFromSetting(setting = './ledger.db', options = {}) {
  if (/^postgres(ql)?:\/\//.test(setting)) return new PostgresStore(setting, options);
  return new SqliteStore(setting);
}
