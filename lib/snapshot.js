// The snapshot document: what toJSON() writes and fromJSON() accepts (README, "Snapshots").
import { LedgerError } from './errors.js';

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

function refuse(message) {
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

// Plain loops, no allocation per entry: fromJSON reads 10^6-entry documents, often just
// parsed, so that every young-generation collection copies the whole document; and until
// V8 optimises this loop, `for (const key of Object.keys(entry))` allocated an array, an
// iterator and a result per key for each entry. for-in walks the shape's cached keys.
// Same rule as Object.keys: only own enumerable keys count (for-in also lists inherited
// ones, after the own ones: skipped).
function checkEntries(list, path, keys) {
  if (!Array.isArray(list)) throw refuse(`${path} must be an array`);
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    if (!isPlainObject(entry)) throw refuse(`${path}[${i}] must be an object`);
    for (const key in entry) {
      if (!keys.includes(key) && Object.hasOwn(entry, key)) {
        throw refuse(`${path}[${i}] has unknown field ${JSON.stringify(key)}`);
      }
    }
  }
}

/** The document itself: `input` or, for a string, its JSON. */
export function parseSnapshot(input) {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch (error) {
    throw refuse(`not valid JSON (${/** @type {Error} */ (error).message})`);
  }
}

/**
 * Checks the document (parsed: parseSnapshot) and every field with the methods' own checks
 * (`checks`, from makeChecks); returns { horizon, grants, consumptions, refuse } (horizon 0
 * for version 1). What replaying it means (every consumption accepted) is checked by the
 * caller, which refuses through `refuse`. With `unique` false, ids appearing twice are left
 * to the caller (the core counts them); the first error is then the same unless one is.
 */
export function readSnapshot(doc, { checkId, checkAmount, checkTime, checkWindow }, unique = true) {
  if (!isPlainObject(doc)) throw refuse('the snapshot must be an object or its JSON text');
  if (doc.format !== SNAPSHOT_FORMAT) throw refuse(`format must be ${JSON.stringify(SNAPSHOT_FORMAT)}`);
  if (doc.version !== 1 && doc.version !== SNAPSHOT_VERSION) {
    throw refuse(`unknown version ${JSON.stringify(doc.version)} (this build reads versions 1 and ${SNAPSHOT_VERSION})`);
  }
  // Version 2 adds the finality horizon (README, "Finality horizon"); version 1 has none.
  let horizon = 0;
  if (doc.version === 1 && 'horizon' in doc) throw refuse('horizon needs version 2');
  if (doc.version === 2) {
    field(checkTime, 'horizon', doc.horizon);
    horizon = doc.horizon;
  }
  checkEntries(doc.grants, 'grants', ['grantId', 'amount', 'startTime', 'endTime']);
  checkEntries(doc.consumptions, 'consumptions', ['eventId', 'amount', 'timestamp']);
  const grantIds = new Set();
  for (let i = 0; i < doc.grants.length; i++) {
    const grant = doc.grants[i];
    entryField(checkId, 'grants', i, 'grantId', grant.grantId);
    // A grant carried across the horizon (it started before it) holds what was left of it
    // there, which may be nothing.
    const carried = Number.isSafeInteger(grant.startTime) && grant.startTime < horizon;
    if (!(carried && grant.amount === 0)) entryField(checkAmount, 'grants', i, 'amount', grant.amount);
    entryField(checkTime, 'grants', i, 'startTime', grant.startTime);
    entryField(checkTime, 'grants', i, 'endTime', grant.endTime);
    if (grant.startTime > grant.endTime) {
      field(checkWindow, `grants[${i}].startTime`, grant.startTime, `grants[${i}].endTime`, grant.endTime);
    }
    if (grant.endTime < horizon) throw refuse(`grants[${i}].endTime ${grant.endTime} is before the horizon ${horizon}`);
    if (!unique) continue;
    if (grantIds.has(grant.grantId)) throw refuse(`grants[${i}].grantId ${JSON.stringify(grant.grantId)} appears twice`);
    grantIds.add(grant.grantId);
  }
  const eventIds = new Set();
  for (let i = 0; i < doc.consumptions.length; i++) {
    const consumption = doc.consumptions[i];
    entryField(checkId, 'consumptions', i, 'eventId', consumption.eventId);
    entryField(checkAmount, 'consumptions', i, 'amount', consumption.amount);
    entryField(checkTime, 'consumptions', i, 'timestamp', consumption.timestamp);
    if (consumption.timestamp < horizon) {
      throw refuse(`consumptions[${i}].timestamp ${consumption.timestamp} is before the horizon ${horizon}`);
    }
    if (!unique) continue;
    if (eventIds.has(consumption.eventId)) {
      throw refuse(`consumptions[${i}].eventId ${JSON.stringify(consumption.eventId)} appears twice`);
    }
    eventIds.add(consumption.eventId);
  }
  return { horizon, grants: doc.grants, consumptions: doc.consumptions, refuse };
}
