// The cleanup job: per instance, for the customers whose ledgers it holds, makes history
// older than a grace period final (the package's compact(horizon)), so a long-lived
// customer's memory stays bounded.
//
// For one customer, in its own turn (service.exclusive: a current ledger, nothing
// uncommitted, no other request running): horizon = latest accepted consumption time -
// grace; if that moves the horizon forward, compact the cached ledger, and in ONE store
// transaction append a `compact` log entry (so every other instance applies the same
// horizon when it catches up), store the compacted ledger as the customer's snapshot at
// that seq, and move the log rows up to it to the archive (kept for audit, never
// deleted). Rebuilds then start from that snapshot. If the store refuses (another
// instance wrote first, or a failure), the service drops the compacted ledger and
// rebuilds it from the store.
//
// Grace is in the ledger's time units and relative to the customer's own latest accepted
// consumption (its usage clock), not to grant times (a grant for next year must not make
// this year final) and not to queued consumptions (a request queued for a far time, maybe
// never funded, maybe cancelled, must not make everything before it final: it would
// refuse every ordinary write with BEFORE_HORIZON for good).
import { performance } from 'node:perf_hooks';

/** The latest accepted consumption time in a ledger's document (toJSON()); -1 if none. */
export function latestConsumptionTime(document) {
  let latest = -1;
  for (const c of document.consumptions) if (c.timestamp > latest) latest = c.timestamp;
  return latest;
}

/**
 * The snapshot document the store keeps (see store/interface.js): ledger, queue, voided
 * grants, cancels, and the grants compactions carried, as added.
 */
export function snapshotDocument(state) {
  return {
    ledger: state.ledger.toJSON(),
    pending: state.ledger.pending(),
    voidedGrants: [...state.voided].map(([grantId, [amount, startTime, endTime]]) => [grantId, amount, startTime, endTime]),
    cancelled: [...state.cancelled],
    carriedGrants: [...state.carried].map(([grantId, [amount, startTime]]) => [grantId, amount, startTime]),
  };
}

export class CleanupJob {
  #service;
  #store;
  #grace;
  #intervalMs;
  #log;
  #timer = null;
  #running = null;
  #checkedSeq = new Map(); // customer → seq at the last look: unchanged customers are skipped

  /** grace: ledger time units; intervalMs: between passes. */
  constructor({ service, store, grace, intervalMs = 60_000, log = null }) {
    if (!Number.isSafeInteger(grace) || grace < 0) throw new RangeError(`cleanup grace must be a non-negative integer, got ${grace}`);
    this.#service = service;
    this.#store = store;
    this.#grace = grace;
    this.#intervalMs = intervalMs;
    this.#log = log;
  }

  start() {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => {
      if (this.#running === null)
        this.#running = this.runOnce()
          .catch(() => {})
          .finally(() => (this.#running = null));
    }, this.#intervalMs);
    this.#timer.unref();
  }

  async stop() {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  /** One pass over the customers this instance holds. Resolves to what each compaction did. */
  async runOnce() {
    const done = [];
    for (const customer of this.#service.cachedCustomers()) {
      try {
        const result = await this.compactCustomer(customer);
        if (result !== null) done.push(result);
      } catch (error) {
        this.#log?.warn({ err: error, customer }, 'cleanup of a customer failed; it is retried next pass');
      }
    }
    return done;
  }

  /** Compacts one customer now if its horizon can move; null when there is nothing to do. */
  compactCustomer(customer) {
    return this.#service.exclusive(customer, async (state) => {
      if (this.#checkedSeq.get(customer) === state.seq) return null;
      const started = performance.now();
      const ledger = state.ledger;
      const latest = latestConsumptionTime(ledger.toJSON());
      const horizon = latest - this.#grace;
      if (latest < 0 || horizon <= ledger.horizon) {
        this.#checkedSeq.set(customer, state.seq);
        return null;
      }
      const entry = ['compact', '', null, horizon, null];
      const dropped = state.compactTo(horizon);
      const document = snapshotDocument(state);
      const seq = await this.#store.compact(customer, state.seq, [entry], horizon, document);
      state.seq = seq;
      this.#checkedSeq.set(customer, seq);
      const result = { customer, horizon, seq, ...dropped, ms: performance.now() - started };
      // Queued consumptions before the horizon can never be let in: say which were dropped.
      this.#log?.info(result, 'cleanup: history before the horizon is final');
      return result;
    });
  }
}
