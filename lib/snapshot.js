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

function checkEntries(list, path, keys) {
  if (!Array.isArray(list)) throw refuse(`${path} must be an array`);
  list.forEach((entry, i) => {
    if (!isPlainObject(entry)) throw refuse(`${path}[${i}] must be an object`);
    const extra = Object.keys(entry).filter((key) => !keys.includes(key));
    if (extra.length > 0) throw refuse(`${path}[${i}] has unknown field ${JSON.stringify(extra[0])}`);
  });
}

/**
 * Checks the document's shape and every field with the methods' own checks (`checks`,
 * from makeChecks); returns { horizon, grants, consumptions, refuse } (horizon 0 for
 * version 1). What replaying it means
 * (every consumption accepted) is checked by the caller, which refuses through `refuse`.
 */
export function readSnapshot(input, { checkId, checkAmount, checkTime, checkWindow }) {
  let doc = input;
  if (typeof input === 'string') {
    try {
      doc = JSON.parse(input);
    } catch (error) {
      throw refuse(`not valid JSON (${/** @type {Error} */ (error).message})`);
    }
  }
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
  doc.grants.forEach((grant, i) => {
    const at = `grants[${i}]`;
    field(checkId, `${at}.grantId`, grant.grantId);
    // A grant carried across the horizon (it started before it) holds what was left of it
    // there, which may be nothing.
    const carried = Number.isSafeInteger(grant.startTime) && grant.startTime < horizon;
    if (!(carried && grant.amount === 0)) field(checkAmount, `${at}.amount`, grant.amount);
    field(checkTime, `${at}.startTime`, grant.startTime);
    field(checkTime, `${at}.endTime`, grant.endTime);
    field(checkWindow, `${at}.startTime`, grant.startTime, `${at}.endTime`, grant.endTime);
    if (grant.endTime < horizon) throw refuse(`${at}.endTime ${grant.endTime} is before the horizon ${horizon}`);
    if (grantIds.has(grant.grantId)) throw refuse(`${at}.grantId ${JSON.stringify(grant.grantId)} appears twice`);
    grantIds.add(grant.grantId);
  });
  const eventIds = new Set();
  doc.consumptions.forEach((consumption, i) => {
    const at = `consumptions[${i}]`;
    field(checkId, `${at}.eventId`, consumption.eventId);
    field(checkAmount, `${at}.amount`, consumption.amount);
    field(checkTime, `${at}.timestamp`, consumption.timestamp);
    if (consumption.timestamp < horizon) {
      throw refuse(`${at}.timestamp ${consumption.timestamp} is before the horizon ${horizon}`);
    }
    if (eventIds.has(consumption.eventId)) {
      throw refuse(`${at}.eventId ${JSON.stringify(consumption.eventId)} appears twice`);
    }
    eventIds.add(consumption.eventId);
  });
  return { horizon, grants: doc.grants, consumptions: doc.consumptions, refuse };
}
