// The per-customer ledgers and the group commit.
//
// Per customer, requests run strictly one at a time in arrival order (a FIFO). A write
// is applied to the cached ledger at once and its log entries join the open batch; the
// batch is committed in ONE store transaction on setImmediate (so every write of the same
// event-loop turn shares it; while a commit is in flight, the next batch gathers until it
// ends), and only then are its requests answered. A request that
// arrives for a customer whose writes sit in the open batch runs too (it sees them), but
// is answered only after that commit: no answer ever reveals uncommitted state. While a
// batch is being committed (a networked store), its customers' next requests wait.
// A failed commit answers every request of the batch 503 and drops the ledgers it
// touched (rebuilt from the store on next use), so nothing of the batch stays visible.
//
// A shared store (PostgreSQL, several instances): other instances append to the same
// logs, so a cached ledger may lag. A request with the default (strong) consistency runs
// only after a catch-up (the log tail after the cached seq, one indexed query, applied in
// order) issued after it arrived: read-your-writes across instances. `cached`
// consistency skips it and reports how old the cached view is. The commit still checks
// each head, so a write computed on a stale ledger can never be committed.
import { GPULedger } from 'gpu-credit-ledger';
import { performance } from 'node:perf_hooks';
import { CommitInDoubtError, StoreConflictError } from '../store/interface.js';
import { unavailable } from '../errors.js';
import { CustomerLedger } from './customer-ledger.js';
import { unheldIds } from './operations.js';

// A request whose commit lost the race for its customer's head to another instance runs
// again on the caught-up ledger, after a random wait that doubles with each loss (up to
// 64 ms): two instances writing one customer at once then take turns instead of losing
// again and again. It gets 503 only after MAX_CONFLICT_RETRIES losses (at most 1.6 s of
// waiting, 0.8 s on average).
const MAX_CONFLICT_RETRIES = 30;
const conflictBackoffMs = (losses) => Math.random() * 2 ** Math.min(losses, 6);

class Slot {
  state = null; // CustomerLedger once loaded
  loading = false;
  catchingUp = false; // the loading is a catch-up (#catchUp): the ledger stays as committed
  waiting = []; // tasks not yet run, in arrival order
  uncommitted = null; // the batch holding this customer's applied but uncommitted entries
  arrivals = 0; // tickets handed to tasks, in arrival order
  synced = 0; // tasks with a ticket up to this one arrived before the state was last known current
  constructor(customer) {
    this.customer = customer;
  }
}

// Whether `entries` (a batch's, uncommitted: [kind, id, ...]) log one of the [kind, id] pairs.
function logsAny(entries, pairs) {
  return entries !== undefined && entries.some(([kind, id]) => pairs.some((pair) => pair[0] === kind && pair[1] === id));
}

class Batch {
  groups = new Map(); // Slot → entries
  answers = []; // [slot, task, out | null, error | null] in run order
  scheduled = false; // its flush is on setImmediate
  append(slot, entries) {
    const list = this.groups.get(slot);
    if (list === undefined) this.groups.set(slot, entries.slice());
    else for (const entry of entries) list.push(entry);
  }
}

export class LedgerService {
  #store;
  #budget;
  #metrics;
  #log;
  #slots = new Map(); // customer → Slot, least recently used first
  #open = null; // the batch collecting this turn's writes
  #flushing = new Set(); // commits in flight
  #closed = false;
  #lastHeapCheck = 0;
  #shared;

  /**
   * store: see store/interface.js. budgetBytes: evict least-recently-used ledgers while
   * GPULedger.wasmHeapBytes() is above it. metrics: the hooks of plugins/external/metrics.js.
   */
  constructor({ store, budgetBytes = 512 * 1024 * 1024, metrics = null, log = null }) {
    this.#store = store;
    this.#budget = budgetBytes;
    this.#metrics = metrics;
    this.#log = log;
    this.#shared = store.shared === true;
  }

  /** True when other instances may write to the same store (cached ledgers may lag). */
  get shared() {
    return this.#shared;
  }

  /** The customers whose ledgers this instance holds now (the cleanup job's work list). */
  cachedCustomers() {
    const out = [];
    for (const slot of this.#slots.values()) if (slot.state !== null) out.push(slot.customer);
    return out;
  }

  get cachedCount() {
    let n = 0;
    for (const slot of this.#slots.values()) if (slot.state !== null) n++;
    return n;
  }

  /**
   * Runs `op(state, input)` in the customer's turn; resolves to its `result` once every
   * entry it (or a request before it) logged is committed.
   */
  run(customer, op, input, consistency = 'strong') {
    if (this.#closed) return Promise.reject(unavailable('the service is shutting down'));
    const done = this.#enqueue(customer, op, input, consistency);
    return done.then((result) => (result?.firstAnswers === undefined ? result : this.#withFirstAllocations(customer, result)));
  }

  // Identical retries of accepted consumptions (operations.js) answer with the allocations
  // their first answer gave, which the log holds beside the entry. The entry is committed
  // by now: an answer waits for every commit of its customer before it. An entry logged
  // without them (a consumption let in from the queue, or logged before they were kept)
  // keeps the ledger's current allocations.
  async #withFirstAllocations(customer, result) {
    const bodies = result.firstAnswers;
    delete result.firstAnswers;
    let logged;
    try {
      logged = await this.#store.findEntries(customer, 'consume', [...new Set(bodies.map((body) => body.eventId))]);
    } catch (error) {
      this.#log?.error({ err: error, customer }, "reading a retried consumption's first answer failed");
      throw unavailable('the store could not be read to repeat the first answer of a retried consumption; retry later');
    }
    for (const body of bodies) {
      const allocations = logged.get(body.eventId)?.allocations;
      if (allocations != null) body.allocations = allocations;
    }
    return result;
  }

  #enqueue(customer, op, input, consistency) {
    return new Promise((resolve, reject) => {
      let slot = this.#slots.get(customer);
      if (slot === undefined) {
        slot = new Slot(customer);
      } else {
        if (slot.state !== null) this.#metrics?.hit();
        this.#slots.delete(customer); // re-insert: most recently used last
      }
      this.#slots.set(customer, slot);
      slot.waiting.push({ op, input, resolve, reject, conflicts: 0, strong: consistency !== 'cached', ticket: ++slot.arrivals });
      this.#pump(slot);
    });
  }

  /**
   * Runs `fn(state)` (async) alone in the customer's turn, on a current ledger with nothing
   * uncommitted (the cleanup job). If it throws, the cached ledger is dropped: fn may have
   * changed it without the store having recorded the change.
   */
  exclusive(customer, fn) {
    return this.run(customer, null, fn);
  }

  #pump(slot) {
    while (slot.waiting.length > 0) {
      if (slot.loading) {
        // a load, catch-up or exclusive task is running; a catch-up leaves the cached
        // ledger as it was committed, which a cached read may be answered from at once
        if (slot.catchingUp) this.#answerCached(slot);
        return;
      }
      if (slot.state === null) {
        this.#load(slot);
        return;
      }
      if (slot.uncommitted !== null && slot.uncommitted !== this.#open) return; // its commit is in flight
      const next = slot.waiting[0];
      // Joining an open batch needs no catch-up: its commit fails if the head moved.
      if (this.#shared && next.strong && next.ticket > slot.synced && slot.uncommitted === null) {
        this.#catchUp(slot);
        return;
      }
      if (next.op === null) {
        if (slot.uncommitted !== null) return; // after the open batch commits
        this.#runExclusive(slot, slot.waiting.shift());
        return;
      }
      if (next.archived === undefined) {
        const ids = unheldIds(next.op, slot.state, next.input);
        if (ids.length > 0) {
          // An id the open batch logs (a grant added this turn, its end changed since) is
          // not in the store yet: look it up once that batch has committed (#flush pumps
          // again), so that a retry of its first add is answered as one.
          if (slot.uncommitted !== null && logsAny(slot.uncommitted.groups.get(slot), ids)) return;
          this.#lookUpArchived(slot, next, ids);
          return;
        }
      }
      const task = slot.waiting.shift();
      let out = null;
      let error = null;
      try {
        slot.state.archived = task.archived ?? null;
        out = task.op(slot.state, task.input);
      } catch (caught) {
        // All ledgers share one WebAssembly heap: when it cannot grow, free the idle
        // ledgers of other customers (rebuilt from the log when needed) and try once more.
        // The package changed nothing when it threw, so running the request again is safe.
        if (caught?.ledgerCode === 'OUT_OF_MEMORY' && !task.evictedFor && this.#evictIdle(slot) > 0) {
          task.evictedFor = true;
          slot.waiting.unshift(task);
          continue;
        }
        error = caught;
      } finally {
        if (slot.state !== null) slot.state.archived = null;
      }
      if (out !== null && out.entries.length > 0) {
        slot.state.applied += out.entries.length;
        const batch = this.#openBatch();
        batch.append(slot, out.entries);
        slot.uncommitted = batch;
      }
      if (slot.uncommitted !== null) {
        // A read answered once the open batch commits reflects the entries it logs so far:
        // its view is the seq they will have.
        const view = out?.result.view;
        if (view !== undefined) view.seq += slot.uncommitted.groups.get(slot)?.length ?? 0;
        slot.uncommitted.answers.push([slot, task, out, error]);
      } else if (error !== null) task.reject(error);
      else task.resolve(out.result);
    }
  }

  #openBatch() {
    if (this.#open === null) {
      this.#open = new Batch();
      if (this.#flushing.size === 0) this.#scheduleFlush(this.#open);
    }
    return this.#open;
  }

  // One commit at a time: while one is in flight, the open batch keeps gathering the
  // writes of every other customer and is flushed as soon as that commit ends.
  #scheduleFlush(batch) {
    if (batch.scheduled) return;
    batch.scheduled = true;
    setImmediate(() => this.#flush(batch));
  }

  // `?consistency=cached` reads waiting behind a strong request's catch-up: answered from
  // the ledger as it stands, without the round trip to the database they are meant to
  // skip (a database that does not answer would otherwise hold them too). Only while a
  // catch-up runs: then nothing uncommitted is in the ledger.
  #answerCached(slot) {
    if (slot.state === null || slot.uncommitted !== null) return;
    const cached = slot.waiting.filter((task) => !task.strong && task.op !== null);
    if (cached.length === 0) return;
    slot.waiting = slot.waiting.filter((task) => task.strong || task.op === null);
    for (const task of cached) {
      try {
        task.resolve(task.op(slot.state, task.input).result);
      } catch (error) {
        task.reject(error);
      }
    }
  }

  async #catchUp(slot) {
    slot.loading = true;
    slot.catchingUp = true;
    const covered = slot.arrivals;
    const state = slot.state;
    let tail;
    try {
      tail = await this.#store.readAfter(slot.customer, state.seq);
    } catch (error) {
      // Nothing was applied: the cached ledger stays, and `?consistency=cached` reads keep
      // answering from it; the requests that needed the catch-up fail (503, retry later).
      this.#log?.error({ err: error, customer: slot.customer }, 'catching a customer ledger up failed');
      const failed = slot.waiting.filter((task) => task.strong && task.ticket > slot.synced);
      slot.waiting = slot.waiting.filter((task) => !failed.includes(task));
      for (const task of failed) task.reject(unavailable('the store could not be read; retry later'));
      slot.loading = false;
      slot.catchingUp = false;
      this.#pump(slot);
      return;
    }
    try {
      for (const entry of tail) state.apply(entry);
      state.letIn = [];
      slot.synced = covered;
      state.syncedAt = Date.now();
    } catch (error) {
      // A partly applied tail: drop the ledger; the next turn reloads it (and reports a failure).
      this.#log?.error({ err: error, customer: slot.customer }, "applying a customer ledger's log tail failed");
      state.dispose();
      slot.state = null;
    }
    slot.loading = false;
    slot.catchingUp = false;
    this.#pump(slot);
  }

  // The ids a compacted ledger dropped stay taken: look up in the store the ones the next
  // request would add (operations.js, unheldIds) before it runs. The request stays first in
  // the customer's line meanwhile.
  async #lookUpArchived(slot, task, ids) {
    slot.loading = true;
    const archived = { grant: new Map(), consume: new Map(), submit: new Map() };
    try {
      for (const kind of ['grant', 'consume', 'submit']) {
        const wanted = ids.filter((pair) => pair[0] === kind).map((pair) => pair[1]);
        if (wanted.length > 0) archived[kind] = await this.#store.findEntries(slot.customer, kind, wanted);
      }
      task.archived = archived;
    } catch (error) {
      this.#log?.error({ err: error, customer: slot.customer }, 'looking up archived ids failed');
      slot.waiting.splice(slot.waiting.indexOf(task), 1);
      task.reject(unavailable('the store could not be read; nothing of this request was applied'));
    }
    slot.loading = false;
    this.#pump(slot);
    this.#forget(slot);
  }

  async #runExclusive(slot, task) {
    slot.loading = true;
    try {
      task.resolve(await task.input(slot.state));
    } catch (error) {
      slot.state?.dispose();
      slot.state = null;
      task.reject(error);
    }
    slot.loading = false;
    this.#pump(slot);
    this.#forget(slot);
  }

  async #load(slot) {
    slot.loading = true;
    const covered = slot.arrivals;
    const started = performance.now();
    let state = null;
    try {
      const data = await CustomerLedger.load(this.#store, slot.customer);
      state = CustomerLedger.rebuild(slot.customer, data);
    } catch (error) {
      slot.loading = false;
      this.#log?.error({ err: error, customer: slot.customer }, 'loading a customer ledger failed');
      const waiting = slot.waiting;
      slot.waiting = [];
      this.#forget(slot);
      for (const task of waiting) task.reject(unavailable(`the ledger of ${JSON.stringify(slot.customer)} could not be loaded`));
      return;
    }
    slot.loading = false;
    slot.state = state;
    slot.synced = covered;
    state.syncedAt = Date.now();
    this.#metrics?.rebuilt((performance.now() - started) / 1000);
    this.#evictOverBudget(true);
    this.#pump(slot);
  }

  async #flush(batch) {
    if (this.#open === batch) this.#open = null;
    const groups = [];
    const covered = [];
    for (const [slot, entries] of batch.groups) {
      groups.push({ customer: slot.customer, baseSeq: slot.state.seq, entries });
      covered.push(slot.arrivals); // a successful commit proves the ledger current as of now
    }
    const started = performance.now();
    const startedAt = Date.now();
    const done = this.#store.commit(groups);
    this.#flushing.add(done);
    let failure = null;
    try {
      await done;
    } catch (error) {
      failure = error;
    } finally {
      this.#flushing.delete(done);
    }
    const backoff = new Map(); // slot → ms to wait before running its lost requests again
    if (failure === null) {
      let events = 0;
      let i = 0;
      for (const [slot, entries] of batch.groups) {
        slot.state.seq += entries.length;
        slot.synced = Math.max(slot.synced, covered[i++]);
        slot.state.syncedAt = startedAt;
        slot.uncommitted = null;
        events += entries.length;
      }
      this.#metrics?.committed(events, (performance.now() - started) / 1000);
      for (const [, task, out, error] of batch.answers) {
        if (error !== null) task.reject(error);
        else task.resolve(out.result);
      }
    } else {
      this.#log?.error({ err: failure, customers: groups.length }, 'commit failed');
      this.#metrics?.commitFailed();
      const conflict = failure instanceof StoreConflictError;
      for (const slot of batch.groups.keys()) {
        slot.uncommitted = null;
        slot.state.dispose();
        slot.state = null;
      }
      // Another writer moved a head: rebuild and run the same requests again, in the
      // same order, ahead of later ones. Any other failure: 503, the client retries.
      const retry = [];
      for (const answer of batch.answers) {
        const task = answer[1];
        if (conflict && task.conflicts++ < MAX_CONFLICT_RETRIES) {
          retry.push(answer);
          backoff.set(answer[0], Math.max(backoff.get(answer[0]) ?? 0, conflictBackoffMs(task.conflicts)));
        } else if (failure instanceof CommitInDoubtError) {
          task.reject(
            unavailable(
              'the store lost its connection while committing this request, which may or may not be applied: send it again (an identical retry is answered as such)',
            ),
          );
        } else task.reject(unavailable('the store could not commit this request; nothing of it was applied'));
      }
      for (let i = retry.length - 1; i >= 0; i--) retry[i][0].waiting.unshift(retry[i][1]);
    }
    for (const slot of batch.groups.keys()) {
      const wait = backoff.get(slot);
      if (wait === undefined) this.#pump(slot);
      else setTimeout(() => this.#pump(slot), wait);
    }
    if (this.#open !== null) this.#scheduleFlush(this.#open);
    this.#evictOverBudget(false);
  }

  /** Drops every idle ledger but `keep`'s; returns how many. */
  #evictIdle(keep) {
    let evicted = 0;
    for (const slot of [...this.#slots.values()]) {
      if (slot === keep || slot.state === null || slot.loading || slot.waiting.length > 0 || slot.uncommitted !== null) continue;
      slot.state.dispose();
      slot.state = null;
      this.#forget(slot);
      this.#metrics?.evicted();
      evicted++;
    }
    return evicted;
  }

  /** Drops least-recently-used idle ledgers while the shared WASM heap is above the budget. */
  #evictOverBudget(force) {
    const now = performance.now();
    // wasmHeapBytes walks the heap: after a flush, look at most every 50 ms.
    if (!force && now - this.#lastHeapCheck < 50) return;
    this.#lastHeapCheck = now;
    let heap = GPULedger.wasmHeapBytes();
    if (heap <= this.#budget) return;
    for (const slot of this.#slots.values()) {
      if (heap <= this.#budget) break;
      if (slot.state === null || slot.loading || slot.waiting.length > 0 || slot.uncommitted !== null) continue;
      slot.state.dispose();
      slot.state = null;
      this.#forget(slot);
      this.#metrics?.evicted();
      heap = GPULedger.wasmHeapBytes();
    }
  }

  #forget(slot) {
    if (slot.state === null && slot.waiting.length === 0 && !slot.loading && this.#slots.get(slot.customer) === slot) {
      this.#slots.delete(slot.customer);
    }
  }

  /** Stops taking requests, lets the open batch and commits in flight finish, frees every ledger. */
  async close() {
    this.#closed = true;
    while (this.#open !== null || this.#flushing.size > 0) {
      if (this.#flushing.size > 0) await Promise.allSettled([...this.#flushing]);
      else await new Promise((resolve) => setImmediate(resolve));
    }
    for (const slot of this.#slots.values()) {
      slot.state?.dispose();
      slot.state = null;
    }
    this.#slots.clear();
  }
}
