// Whole-history reads (GET .../ledger, a grant's burn-down, a balance curve) as the JSON
// text they were answered with, kept while the customer's ledger stays as it was: such an
// answer costs time in proportion to the history, on the one event loop every customer
// shares (README, "Capacity model"), so the same question asked again of the same ledger is
// answered from here. An entry holds for one cached ledger (the state object: a rebuild, an
// eviction or a failed commit makes a new one), at one log seq (every logged write and every
// catch-up moves it) and one horizon (the cleanup job's compaction moves it): anything else
// is a miss, and the entry goes. Least-recently-used entries leave beyond the byte budget;
// answers shorter than `minBytes` are cheap to make again and are not kept.
export class ReadCache {
  #entries = new Map(); // `${customer}\n${url}` -> { state, seq, horizon, text }, oldest use first
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
    if (entry.state !== state || entry.seq !== state.seq || entry.horizon !== state.ledger.horizon) return undefined;
    this.#entries.set(key, entry); // now the most recently used
    this.#bytes += entry.text.length;
    return entry.text;
  }

  /** Keeps `text`, the answer made from `stamp` ({ state, seq, horizon } as it was read). */
  put(customer, url, stamp, text) {
    if (text.length < this.#min || text.length > this.#budget) return;
    const key = `${customer}\n${url}`;
    const old = this.#entries.get(key);
    if (old !== undefined) this.#drop(key, old);
    this.#entries.set(key, { ...stamp, text });
    this.#bytes += text.length;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#budget) break;
      this.#drop(oldest, entry);
    }
  }

  #drop(key, entry) {
    this.#entries.delete(key);
    this.#bytes -= entry.text.length;
  }
}
