// The onPendingAccepted subscriptions of one ledger.

export class PendingListeners {
  #subscriptions = new Set();
  #queue = []; // notifications not yet delivered, oldest first
  #delivering = false;

  /** Adds a listener; returns the function that removes it (removing twice is harmless). */
  add(listener) {
    // A wrapper object, so that one function subscribed twice is two subscriptions.
    const subscription = { listener };
    this.#subscriptions.add(subscription);
    return () => {
      this.#subscriptions.delete(subscription);
    };
  }

  /**
   * Hands `accepted` to every listener. A listener that throws does not stop the others
   * or undo anything: its error is rethrown asynchronously, as an event listener's would be.
   * A listener removed by an earlier one is not called. A call a listener makes that lets
   * more consumptions in is delivered after this delivery, so every listener hears of
   * them in the order they were accepted.
   */
  notify(accepted) {
    this.#queue.push(accepted);
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      while (this.#queue.length > 0) {
        const next = this.#queue.shift();
        for (const subscription of [...this.#subscriptions]) {
          if (!this.#subscriptions.has(subscription)) continue;
          try {
            subscription.listener(next);
          } catch (error) {
            queueMicrotask(() => {
              throw error;
            });
          }
        }
      }
    } finally {
      this.#delivering = false;
    }
  }
}
