// Whole-history reads (GET .../ledger, a grant's burn-down, a balance curve) as the JSON
// text they were answered with, kept while the customer's ledger stays as it was: such an
// answer costs time in proportion to the history, on the one event loop every customer
// shares (README, "Capacity model"), so the same question asked again of the same ledger is
// answered from here. An entry holds for one cached ledger (the state object: a rebuild, an
// eviction or a failed commit makes a new one), at one log seq (every committed write and every
// catch-up moves it) and one horizon (the cleanup job's compaction moves it): anything else
// is a miss, and the entry goes. Since a write changes the ledger at once and moves the seq
// only when it commits, the count of entries its requests applied is part of the key too: a
// read that runs between a write and its commit (answered after the commit, with the write)
// does not get the text from before it. Least-recently-used entries leave beyond the budget (their
// texts, keys and a fixed cost per entry, in characters); answers shorter than `minBytes` are
// cheap to make again and are not kept.
export class ReadCache {
  #entries = new Map(); // `${customer}\n${url}` -> { stamp, text, size }, oldest use first
  #bytes = 0;
  #budget;
  #min;

  constructor({ budgetBytes, minBytes }) {
    this.#budget = budgetBytes;
    this.#min = minBytes;
  }

  /** The text answered for `url` of `customer` if its ledger is still as it was then. */
  get(customer, url, state) {
    const key = `${customer}\n${url}`;
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#drop(key, entry);
    const { stamp } = entry;
    const held = stamp.state.deref() === state;
    if (!held || stamp.seq !== state.seq || stamp.applied !== state.applied || stamp.horizon !== state.ledger.horizon) return undefined;
    this.#keep(key, entry); // now the most recently used
    return entry.text;
  }

  /**
   * The state of a customer's ledger as a read sees it, taken when the read runs (in the
   * customer's turn) for `put` once it is answered. The ledger itself is held weakly: an
   * evicted or rebuilt customer's is not kept alive.
   */
  stamp(state) {
    return { state: new WeakRef(state), seq: state.seq, applied: state.applied, horizon: state.ledger.horizon };
  }

  /** Keeps `text`, the answer made from the ledger as `stamp` (from `stamp(state)`) saw it. */
  put(customer, url, stamp, text) {
    if (text.length < this.#min) return;
    const key = `${customer}\n${url}`;
    const old = this.#entries.get(key);
    if (old !== undefined) this.#drop(key, old);
    const entry = { stamp, text, size: text.length + key.length + ENTRY_OVERHEAD };
    if (entry.size > this.#budget) return;
    this.#keep(key, entry);
    for (const [oldest, kept] of this.#entries) {
      if (this.#bytes <= this.#budget) break;
      this.#drop(oldest, kept);
    }
  }

  #keep(key, entry) {
    this.#entries.set(key, entry);
    this.#bytes += entry.size;
  }

  #drop(key, entry) {
    this.#entries.delete(key);
    this.#bytes -= entry.size;
  }
}

// What an entry costs besides its text and key, counted against the budget: the entry object,
// its map slot and its weak reference (measured at about 700 bytes per entry with the key).
const ENTRY_OVERHEAD = 640;
