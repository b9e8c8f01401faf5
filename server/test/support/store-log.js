// Reads the service's event log straight from its SQLite file (table `log`, plus
// `archive` where a cleanup job moved old entries; see server/store/interface.js for
// the entry kinds) and replays it through a fresh GPULedger of the package: the test's
// own, independent rebuild of what the service must serve.
import Database from 'better-sqlite3';
import { GPULedger } from 'gpu-credit-ledger';
import { decodePack, packEntries } from '../../store/packs.js';

const ENTRIES = `
  SELECT customer, seq, kind, id, amount, t1, t2 FROM archive
  UNION ALL
  SELECT customer, seq, kind, id, amount, t1, t2 FROM log
  ORDER BY customer, seq`;

/** Every customer's entries in seq order: Map customer → [{ seq, kind, id, amount, t1, t2 }]. */
export function readLogs(storePath) {
  const db = new Database(storePath, { readonly: true, fileMustExist: true });
  try {
    const logs = new Map();
    for (const row of db.prepare(ENTRIES).iterate()) {
      if (!logs.has(row.customer)) logs.set(row.customer, []);
      const list = logs.get(row.customer);
      if (list.length > 0 && list[list.length - 1].seq + 1 !== row.seq) {
        throw new Error(`log of ${row.customer}: seq ${row.seq} follows ${list[list.length - 1].seq} (a gap or a duplicate)`);
      }
      list.push(row);
    }
    return logs;
  } finally {
    db.close();
  }
}

/**
 * Every pack in the SQLite file (server/store/packs.js), decoded: Map customer →
 * [{ firstSeq, lastSeq, entries: [{ seq, kind, id, amount, t1, t2 }] }], in seq order;
 * entries null for a body that does not decode.
 */
export function readPacks(storePath) {
  const db = new Database(storePath, { readonly: true, fileMustExist: true });
  try {
    const packs = new Map();
    for (const [customer, firstSeq, lastSeq, body] of db
      .prepare('SELECT customer, first_seq, last_seq, body FROM packs ORDER BY customer, first_seq')
      .raw(true)
      .iterate()) {
      const pack = decodePack(firstSeq, lastSeq, body);
      const entries =
        pack === null ? null : packEntries(pack).map(([seq, kind, id, amount, t1, t2]) => ({ seq, kind, id, amount, t1, t2 }));
      if (!packs.has(customer)) packs.set(customer, []);
      packs.get(customer).push({ firstSeq, lastSeq, entries });
    }
    return packs;
  } finally {
    db.close();
  }
}

/** Replays entries, in order, through a new GPULedger; every logged change must apply. */
export function replayLog(entries) {
  const ledger = new GPULedger();
  try {
    for (const e of entries) {
      const where = `entry ${e.seq} (${e.kind} ${e.id})`;
      switch (e.kind) {
        case 'grant':
          ledger.addGrant(e.id, e.amount, e.t1, e.t2);
          break;
        case 'consume':
          if (ledger.consume(e.id, e.amount, e.t1) !== true) throw new Error(`${where}: logged as accepted, rejected on replay`);
          break;
        case 'submit':
          ledger.submit(e.id, e.amount, e.t1);
          break;
        case 'void':
          if (!ledger.voidGrant(e.id).applied) throw new Error(`${where}: logged void refused on replay`);
          break;
        case 'end':
          if (!ledger.setGrantEnd(e.id, e.t2).applied) throw new Error(`${where}: logged end change refused on replay`);
          break;
        case 'cancel':
          ledger.cancelPending(e.id);
          break;
        case 'compact': // the cleanup job made history before t1 final
          ledger.compact(e.t1);
          break;
        default:
          throw new Error(`${where}: unknown kind`);
      }
    }
    return ledger;
  } catch (err) {
    ledger.dispose();
    throw err;
  }
}

/**
 * A read-only connection kept open while the server runs. `consumptionIds(customer)`
 * answers, at the moment it is called, which consumption ids are committed (accepted
 * or queued) in the log on disk.
 */
export function openLogReader(storePath) {
  const db = new Database(storePath, { readonly: true, fileMustExist: true });
  const ids = db
    .prepare(
      `SELECT id FROM log WHERE customer = ? AND kind IN ('consume', 'submit')
       UNION SELECT id FROM archive WHERE customer = ? AND kind IN ('consume', 'submit')`,
    )
    .pluck(true);
  return {
    consumptionIds: (customer) => new Set(ids.all(customer, customer)),
    close: () => db.close(),
  };
}
