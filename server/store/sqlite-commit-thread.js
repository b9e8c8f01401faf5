// The SQLite store's commit thread. A commit with synchronous=FULL waits for the disk
// (fsync); on the main thread that wait would stop the event loop, and with it every
// other customer's requests. Here it blocks only this thread: the service keeps parsing
// and applying requests, which gather into the next (larger) group commit meanwhile.
// Messages in: { id, groups }; out: { id } or { id, error: { message, conflicts? } }.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { StoreConflictError } from './interface.js';
import { configure, makeCommit } from './sqlite-commit.js';

const db = new Database(workerData.path);
configure(db);
const commit = makeCommit(db);

parentPort.on('message', ({ id, groups }) => {
  try {
    commit.immediate(groups);
    parentPort.postMessage({ id });
  } catch (error) {
    const conflicts = error instanceof StoreConflictError ? error.customers : undefined;
    parentPort.postMessage({ id, error: { message: String(error?.message ?? error), conflicts } });
  }
});
parentPort.postMessage({ ready: true });
