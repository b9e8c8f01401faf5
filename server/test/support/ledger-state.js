// What a customer's ledger looks like from outside, gathered two ways in one shape so
// the tests can compare them with deepStrictEqual: from the service over HTTP
// (`collectServed`), and from a GPULedger of the package rebuilt by the test itself
// (`collectExpected`).

/** Runs `fn` over `items` with at most `width` calls in flight; results in input order. */
export async function mapConcurrent(items, width, fn) {
  const results = new Array(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index], index);
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

function expectOk(answer, what) {
  if (answer.status !== 200) throw new Error(`${what}: status ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/**
 * The service's view of one customer: its snapshot document, balances, headroom and
 * grants at each of `times`, the balance curve on [curveFrom, curveTo], and for each of
 * `eventIds` the answer of GET .../consumptions/{id} (404 → null), and the queued
 * consumptions (GET .../pending).
 */
export async function collectServed(client, customer, { times, eventIds, curveFrom, curveTo }) {
  const base = `/v1/customers/${encodeURIComponent(customer)}`;
  const get = (path) => client.untilAnswered('GET', `${base}${path}`);
  const ledger = expectOk(await get('/ledger'), `${customer} ledger`);
  const balances = [];
  const headroom = [];
  const grantsAt = [];
  for (const t of times) {
    const b = expectOk(await get(`/balance?at=${t}`), `${customer} balance at ${t}`);
    balances.push([t, b.balance]);
    const h = expectOk(await get(`/headroom?at=${t}`), `${customer} headroom at ${t}`);
    headroom.push([t, h.headroom]);
    grantsAt.push([t, expectOk(await get(`/grants?at=${t}`), `${customer} grants at ${t}`).grants]);
  }
  const curve = expectOk(await get(`/balance-curve?from=${curveFrom}&to=${curveTo}`), `${customer} curve`).points;
  const pending = expectOk(await get('/pending'), `${customer} pending`).pending;
  const consumptions = await mapConcurrent(eventIds, 8, async (id) => {
    const answer = await get(`/consumptions/${encodeURIComponent(id)}`);
    if (answer.status === 404) return [id, null];
    const body = expectOk(answer, `${customer} consumption ${id}`);
    return [id, { eventId: body.eventId, amount: body.amount, timestamp: body.timestamp, allocations: body.allocations }];
  });
  return { ledger, balances, headroom, grantsAt, curve, pending, consumptions };
}

/** The same view computed by the package from a GPULedger the test built itself. */
export function collectExpected(ledger, { times, eventIds, curveFrom, curveTo }) {
  const doc = ledger.toJSON();
  const byId = new Map(doc.consumptions.map((c) => [c.eventId, c]));
  return {
    ledger: doc,
    balances: times.map((t) => [t, ledger.getBalance(t)]),
    headroom: times.map((t) => [t, ledger.headroom(t)]),
    grantsAt: times.map((t) => [t, ledger.grantsAt(t)]),
    curve: ledger.balanceCurve(curveFrom, curveTo),
    pending: ledger.pending(),
    consumptions: eventIds.map((id) => {
      const allocations = ledger.allocations(id);
      if (allocations === null) return [id, null];
      const { amount, timestamp } = byId.get(id);
      return [id, { eventId: id, amount, timestamp, allocations }];
    }),
  };
}
