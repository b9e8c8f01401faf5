// The onPendingAccepted subscriptions of one ledger.

export class PendingListeners {
  #subscriptions = new Set();

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
   */
  notify(accepted) {
    for (const subscription of [...this.#subscriptions]) {
      try {
        subscription.listener(accepted);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
