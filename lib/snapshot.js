// The snapshot document: what toJSON() writes and fromJSON() accepts (README, "Snapshots").
import { BATCH_CONSUME, BATCH_RESTORE_GRANT } from './batch.js';
import { LedgerError } from './errors.js';
import { isWellFormed } from './validate.js';

/** @type {import('./index.js').LedgerSnapshot['format']} */
export const SNAPSHOT_FORMAT = 'gpu-credit-ledger';
/** @type {import('./index.js').LedgerSnapshot['version']} */
export const SNAPSHOT_VERSION = 2;

/**
 * The document for the ledger's grants (as added) and consumptions (as accepted).
 * @param {import('./index.js').LedgerSnapshot['grants']} grants
 * @param {import('./index.js').LedgerSnapshot['consumptions']} consumptions
 * @returns {import('./index.js').LedgerSnapshot}
 */
export function writeSnapshot(grants, consumptions, horizon) {
  return { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, horizon, grants, consumptions };
}

/** An INVALID_SNAPSHOT error: fromJSON's refusal of a document, with `message`. */
export function refuse(message) {
  return new LedgerError('INVALID_SNAPSHOT', `fromJSON: ${message}`);
}

function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Runs a field check and rethrows its TypeError/RangeError as INVALID_SNAPSHOT.
function field(check, path, ...args) {
  try {
    check('fromJSON', path, ...args);
  } catch (error) {
    throw refuse(/** @type {Error} */ (error).message.slice('fromJSON: '.length));
  }
}

// field() for an entry's field, naming it `${list}[${i}].${key}` only when it fails: no
// string is built per entry.
function entryField(check, list, i, key, value) {
  try {
    check('fromJSON', key, value);
  } catch {
    field(check, `${list}[${i}].${key}`, value);
  }
}

// An entry's field if it is the entry's own enumerable property, as JSON.stringify would
// write it (the document's are copied through Object.keys), else undefined: an inherited
// or non-enumerable one is missing.
const isEnumerable = Object.prototype.propertyIsEnumerable;
const ownField = (entry, key) => (isEnumerable.call(entry, key) ? entry[key] : undefined);
const ENTRY_KEYS = ['grantId', 'eventId', 'amount', 'startTime', 'endTime', 'timestamp'];

// The document's and an entry's fields, compared with === (no array search per key).
const isDocumentKey = (key) => key === 'format' || key === 'version' || key === 'horizon' || key === 'grants' || key === 'consumptions';
const isGrantKey = (key) => key === 'grantId' || key === 'amount' || key === 'startTime' || key === 'endTime';
const isConsumptionKey = (key) => key === 'eventId' || key === 'amount' || key === 'timestamp';

// An entry is a plain object with no field but its known ones. No allocation per entry: fromJSON
// reads 10^6-entry documents, often just parsed, so that every young-generation collection
// copies the whole document; and until V8 optimises the loop, `for (const key of
// Object.keys(entry))` allocated an array, an iterator and a result per key for each
// entry. for-in walks the shape's cached keys. Same rule as Object.keys: only own
// enumerable keys count (for-in also lists inherited ones, after the own ones: skipped).
function checkShape(entry, list, i, isKnown) {
  if (!isPlainObject(entry)) throw refuse(`${list}[${i}] must be an object`);
  for (const key in entry) {
    if (!isKnown(key) && Object.hasOwn(entry, key)) {
      throw refuse(`${list}[${i}] has unknown field ${JSON.stringify(key)}`);
    }
  }
}

function checkEntries(list, path, isKnown) {
  if (!Array.isArray(list)) throw refuse(`${path} must be an array`);
  for (let i = 0; i < list.length; i++) checkShape(list[i], path, i, isKnown);
}

/**
 * The document itself (`input` or, for a string, its JSON) as a copy of its own fields,
 * each read once, on no prototype: a getter cannot hand the checks one value and the load
 * another, and an inherited field (Object.prototype's) is not one of the document's.
 */
export function parseSnapshot(input) {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw refuse(`not valid JSON (${/** @type {Error} */ (error).message})`);
    }
  }
  if (!isPlainObject(value)) return value; // readSnapshotHead refuses it
  const doc = Object.create(null);
  for (const key of Object.keys(value)) doc[key] = value[key];
  return doc;
}

/**
 * The document's own fields (parsed: parseSnapshot): its format, its version and, from
 * version 2, its finality horizon (README, "Finality horizon"), which it returns (0 for
 * version 1). The entries are left to the readers of makeEntryReaders.
 */
export function readSnapshotHead(doc, { checkTime }) {
  if (!isPlainObject(doc)) throw refuse('the snapshot must be an object or its JSON text');
  if (doc.format !== SNAPSHOT_FORMAT) throw refuse(`format must be ${JSON.stringify(SNAPSHOT_FORMAT)}`);
  if (doc.version !== 1 && doc.version !== SNAPSHOT_VERSION) {
    throw refuse(`unknown version ${JSON.stringify(doc.version)} (this build reads versions 1 and ${SNAPSHOT_VERSION})`);
  }
  if (doc.version === 1 && Object.hasOwn(doc, 'horizon')) throw refuse('horizon needs version 2');
  for (const key in doc) {
    if (!isDocumentKey(key) && Object.hasOwn(doc, key)) throw refuse(`unknown field ${JSON.stringify(key)}`);
  }
  if (doc.version === 1) return 0;
  field(checkTime, 'horizon', doc.horizon);
  return doc.horizon;
}

/**
 * One entry of each list, checked with the methods' own checks (`checks`, from
 * makeChecks; `limits`: the core's MAX_ID_BYTES and MAX_SAFE): its shape, then each
 * field, read once, in the document's order of fields. `grant(entry, i, run)` and
 * `consumption(entry, i, run)` hand it to `run.put(kind, id, amount, a, b)` (a BatchRun,
 * lib/batch.js: BATCH_RESTORE_GRANT with grantId, amount, startTime, endTime;
 * BATCH_CONSUME with eventId, amount, timestamp); both throw INVALID_SNAPSHOT for the
 * entry's first error. Ids appearing twice are not theirs to see.
 *
 * The common case is tested inline first, each part guarding the check it stands for:
 * an entry that passes calls no check at all. Cold code (a process that loads a snapshot
 * before V8 has optimised the loop) pays for every call per entry, and the checks took
 * a dozen: a tenth of a cold fromJSON of 10^5 entries (docs/performance.md, *Entry checks inline*). Each test
 * implies its check passes (its converse is not needed: an id longer than MAX_ID_BYTES / 3
 * units fails the test and goes to checkId, which counts its bytes), and the keys it
 * accepts are isGrantKey's and isConsumptionKey's.
 */
export function makeEntryReaders({ checkId, checkAmount, checkTime, checkWindow }, horizon, { MAX_ID_BYTES, MAX_SAFE }) {
  const maxIdUnits = MAX_ID_BYTES / 3; // a UTF-16 unit is at most 3 UTF-8 bytes
  // An entry's fields are its own enumerable properties: an inherited or non-enumerable one
  // is missing. An entry on Object.prototype (every parsed one) whose for-in lists all its
  // fields is read directly while Object.prototype has none of the fields' names (checked
  // once per document); any other is read field by field (ownField).
  // Its prototype is read as `__proto__` (an own `__proto__` field is an unknown one, which
  // the shape check refuses): Object.getPrototypeOf cost fromJSON of 10^6 events 4-6% more.
  // Not guarded against (docs/semantics.md, Snapshots): a getter that changes
  // Object.prototype during the read, a redefined __proto__ accessor, a Proxy whose traps
  // contradict each other; reading every field one by one (ownField) would cost 9%.
  const plainFields = !ENTRY_KEYS.some((key) => key in Object.prototype);
  const onPlainPrototype = (entry) => plainFields && typeof entry === 'object' && entry !== null && entry.__proto__ === Object.prototype;
  return {
    grant(entry, i, run) {
      // `own`: an entry on Object.prototype with no field but the known ones, read directly.
      let own = onPlainPrototype(entry);
      if (own) {
        let fields = 0; // its known fields among its own enumerable ones
        for (const key in entry) {
          if (key === 'grantId' || key === 'amount' || key === 'startTime' || key === 'endTime') fields++;
          else if (Object.hasOwn(entry, key)) own = false;
        }
        if (fields !== 4) own = false; // one missing or not enumerable: read one by one
      }
      if (!own) checkShape(entry, 'grants', i, isGrantKey); // throws, or its fields are read one by one
      const grantId = own ? entry.grantId : ownField(entry, 'grantId');
      if (!(typeof grantId === 'string' && grantId.length > 0 && grantId.length <= maxIdUnits && isWellFormed(grantId))) {
        entryField(checkId, 'grants', i, 'grantId', grantId);
      }
      const amount = own ? entry.amount : ownField(entry, 'amount');
      const startTime = own ? entry.startTime : ownField(entry, 'startTime');
      const endTime = own ? entry.endTime : ownField(entry, 'endTime');
      // A grant carried across the horizon (it started before it) holds what was left of
      // it there, which may be nothing.
      const fits =
        Number.isSafeInteger(startTime) &&
        Number.isSafeInteger(endTime) &&
        startTime >= 0 &&
        startTime <= endTime &&
        endTime >= horizon &&
        endTime <= MAX_SAFE &&
        Number.isSafeInteger(amount) &&
        amount <= MAX_SAFE &&
        (amount >= 1 || (amount === 0 && startTime < horizon));
      if (!fits) {
        const carried = Number.isSafeInteger(startTime) && startTime < horizon;
        if (!(carried && amount === 0)) entryField(checkAmount, 'grants', i, 'amount', amount);
        entryField(checkTime, 'grants', i, 'startTime', startTime);
        entryField(checkTime, 'grants', i, 'endTime', endTime);
        if (startTime > endTime) field(checkWindow, `grants[${i}].startTime`, startTime, `grants[${i}].endTime`, endTime);
        if (endTime < horizon) throw refuse(`grants[${i}].endTime ${endTime} is before the horizon ${horizon}`);
      }
      run.put(BATCH_RESTORE_GRANT, grantId, amount, startTime, endTime);
      return grantId;
    },
    consumption(entry, i, run) {
      let own = onPlainPrototype(entry);
      if (own) {
        let fields = 0; // its known fields among its own enumerable ones
        for (const key in entry) {
          if (key === 'eventId' || key === 'amount' || key === 'timestamp') fields++;
          else if (Object.hasOwn(entry, key)) own = false;
        }
        if (fields !== 3) own = false; // one missing or not enumerable: read one by one
      }
      if (!own) checkShape(entry, 'consumptions', i, isConsumptionKey); // throws, or its fields are read one by one
      const eventId = own ? entry.eventId : ownField(entry, 'eventId');
      if (!(typeof eventId === 'string' && eventId.length > 0 && eventId.length <= maxIdUnits && isWellFormed(eventId))) {
        entryField(checkId, 'consumptions', i, 'eventId', eventId);
      }
      const amount = own ? entry.amount : ownField(entry, 'amount');
      const timestamp = own ? entry.timestamp : ownField(entry, 'timestamp');
      const fits =
        Number.isSafeInteger(amount) &&
        amount >= 1 &&
        amount <= MAX_SAFE &&
        Number.isSafeInteger(timestamp) &&
        timestamp >= horizon &&
        timestamp <= MAX_SAFE;
      if (!fits) {
        entryField(checkAmount, 'consumptions', i, 'amount', amount);
        entryField(checkTime, 'consumptions', i, 'timestamp', timestamp);
        if (timestamp < horizon) throw refuse(`consumptions[${i}].timestamp ${timestamp} is before the horizon ${horizon}`);
      }
      run.put(BATCH_CONSUME, eventId, amount, timestamp, 0);
      return eventId;
    },
  };
}

/**
 * The first error of a document that fromJSON's one pass refused (parsed: parseSnapshot;
 * its own fields passed readSnapshotHead), in the order that defines it: every entry's
 * shape, the grants' then the consumptions'; then each grant's fields and id, then each
 * consumption's. The pass read the first `read` entries (the grants', then the
 * consumptions') and their fields passed: `ids` holds their ids, in that order. Then
 * either the entry after them failed with `invalid`, or (`invalid` null) the pass read
 * every entry and the core refused one. No entry's field is read again (a getter may
 * answer otherwise, or throw, the second time): only the shapes, which are keys. Throws
 * the first error (INVALID_SNAPSHOT), or returns when the entries hold none and what is
 * left is the core's refusal.
 */
export function throwFirstError(doc, ids, read, invalid) {
  checkEntries(doc.grants, 'grants', isGrantKey);
  checkEntries(doc.consumptions, 'consumptions', isConsumptionKey);
  const grants = doc.grants.length;
  const seen = new Set();
  for (let k = 0; k < read; k++) {
    if (k === grants) seen.clear(); // grant and event ids are apart
    if (seen.has(ids[k])) {
      const where = k < grants ? `grants[${k}].grantId` : `consumptions[${k - grants}].eventId`;
      throw refuse(`${where} ${JSON.stringify(ids[k])} appears twice`);
    }
    seen.add(ids[k]);
  }
  if (invalid !== null) throw invalid;
}
