// A consumption's first allocations as its log row keeps them (interface.js, *Retries*):
// JSON of [grantId, amount] pairs, a third of the text of the answer's objects, since
// every accepted consumption writes one.

/** [{ grantId, amount }, ...] → the column's text. */
export function encodeAllocations(allocations) {
  return JSON.stringify(allocations.map((a) => [a.grantId, a.amount]));
}

/** The column's text (or null) → [{ grantId, amount }, ...] (or null). */
export function decodeAllocations(text) {
  return text === null ? null : JSON.parse(text).map(([grantId, amount]) => ({ grantId, amount }));
}
