// The PostgreSQL schema, as numbered migrations applied once each, in order, recorded in
// schema_migrations. Every table is keyed by customer first and every unique key
// includes customer_id, so the schema distributes by customer unchanged (Citus:
// `SELECT create_distributed_table('<table>', 'customer_id')` for each table below).
// Columns mirror the SQLite store (see interface.js for what an entry holds).
const LOG_COLUMNS = `
    customer_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    amount BIGINT,
    t1 BIGINT,
    t2 BIGINT,
    PRIMARY KEY (customer_id, seq)`;

export const MIGRATIONS = [
  `
  CREATE TABLE IF NOT EXISTS log (${LOG_COLUMNS});
  -- Ids are the idempotency keys: an add can never be logged twice.
  CREATE UNIQUE INDEX IF NOT EXISTS log_grant_id ON log (customer_id, id) WHERE kind = 'grant';
  CREATE UNIQUE INDEX IF NOT EXISTS log_consume_id ON log (customer_id, id) WHERE kind = 'consume';
  CREATE INDEX IF NOT EXISTS log_submit_id ON log (customer_id, id) WHERE kind = 'submit';
  -- One row per customer: the seq of its last log entry. Writers lock it (FOR UPDATE).
  CREATE TABLE IF NOT EXISTS heads (
    customer_id TEXT PRIMARY KEY,
    last_seq BIGINT NOT NULL
  );
  -- The cleanup job's compacted ledgers, and the log rows they replaced (kept for audit).
  CREATE TABLE IF NOT EXISTS snapshots (
    customer_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    horizon BIGINT NOT NULL,
    -- JSON text, not JSONB: JSONB refuses the JSON escape of U+0000, which an id may need.
    document TEXT NOT NULL,
    PRIMARY KEY (customer_id, seq)
  );
  CREATE TABLE IF NOT EXISTS archive (${LOG_COLUMNS});
  -- Archived ids stay unique and findable: a retry of an archived event gets its answer.
  CREATE UNIQUE INDEX IF NOT EXISTS archive_grant_id ON archive (customer_id, id) WHERE kind = 'grant';
  CREATE UNIQUE INDEX IF NOT EXISTS archive_consume_id ON archive (customer_id, id) WHERE kind = 'consume';
  CREATE INDEX IF NOT EXISTS archive_submit_id ON archive (customer_id, id) WHERE kind = 'submit';
  `,
  // Packs (packs.js): the log entries first_seq … last_seq of one customer, one columnar
  // body per full, aligned range of PACK_ROWS seqs, written with the commit that completes
  // the range; a rebuild reads them instead of the rows. Logs written before this
  // migration have no packs (load reads their rows).
  `
  CREATE TABLE IF NOT EXISTS packs (
    customer_id TEXT NOT NULL,
    first_seq BIGINT NOT NULL,
    last_seq BIGINT NOT NULL,
    body BYTEA NOT NULL,
    PRIMARY KEY (customer_id, first_seq)
  );
  `,
  // An accepted consumption's allocations as its first answer gave them (JSON text), for
  // its identical retries (interface.js, *Retries*). Entries logged before have none.
  `
  ALTER TABLE log ADD COLUMN IF NOT EXISTS allocations TEXT;
  ALTER TABLE archive ADD COLUMN IF NOT EXISTS allocations TEXT;
  `,
];

/**
 * Applies the migrations not yet recorded. Several instances may start at once: the
 * table lock serialises them (migrations are not on the write path, so this lock is
 * not the per-customer writer exclusion, which uses the head rows).
 */
export async function migrate(client) {
  try {
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)');
  } catch (error) {
    // Two instances creating it at the same moment: one wins, the other sees a duplicate.
    if (!['23505', '42P07', '42710'].includes(error.code)) throw error;
  }
  await client.query('BEGIN');
  try {
    await client.query('LOCK TABLE schema_migrations IN EXCLUSIVE MODE');
    const { rows } = await client.query('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations');
    for (let v = Number(rows[0].v); v < MIGRATIONS.length; v++) {
      await client.query(MIGRATIONS[v]);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
