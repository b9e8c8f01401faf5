// The tests' oracle: the same calls made on GPULedgers of the package, one per customer,
// giving the answers the service must give (status and body), and the service's view of
// a customer gathered over HTTP in the same shape as the mirror's.
import { GPULedger, LedgerError } from 'gpu-credit-ledger';

function failure(error) {
  if (error instanceof LedgerError && error.code === 'DUPLICATE_ID') return { status: 409, code: 'DUPLICATE_ID' };
  if (error instanceof LedgerError && error.code === 'UNKNOWN_ID') return { status: 404, code: 'NOT_FOUND' };
  if (error instanceof TypeError || error instanceof RangeError) return { status: 400, code: 'INVALID_ARGUMENT' };
  throw error;
}

export class Mirror {
  ledgers = new Map();
  voided = new Map(); // customer → Map grantId → [amount, start, end]
  firstAllocations = new Map(); // customer → Map eventId → allocations its acceptance answered
  added = new Map(); // customer → Map grantId → [amount, start, end] of its first add

  ledger(customer) {
    let ledger = this.ledgers.get(customer);
    if (ledger === undefined) {
      ledger = new GPULedger();
      this.ledgers.set(customer, ledger);
      this.voided.set(customer, new Map());
      this.firstAllocations.set(customer, new Map());
      this.added.set(customer, new Map());
    }
    return ledger;
  }

  grant(customer, { grantId, amount, startTime, endTime }) {
    const ledger = this.ledger(customer);
    // The parameters of the grant's first add stay an identical retry after an end change or a void.
    const added = this.added.get(customer).get(grantId);
    if (added !== undefined && added[0] === amount && added[1] === startTime && added[2] === endTime) {
      return { status: 200, body: { grantId, amount, startTime, endTime, acceptedPending: [] } };
    }
    const voided = this.voided.get(customer).get(grantId);
    if (voided !== undefined) {
      const same = voided[0] === amount && voided[1] === startTime && voided[2] === endTime;
      return same
        ? { status: 200, body: { grantId, amount, startTime, endTime, acceptedPending: [] } }
        : { status: 409, code: 'DUPLICATE_ID' };
    }
    const letIn = [];
    const stop = ledger.onPendingAccepted((list) => letIn.push(...list.map((c) => c.eventId)));
    try {
      const before = ledger.grantCount;
      ledger.addGrant(grantId, amount, startTime, endTime);
      if (ledger.grantCount > before) this.added.get(customer).set(grantId, [amount, startTime, endTime]);
      return { status: ledger.grantCount > before ? 201 : 200, body: { grantId, amount, startTime, endTime, acceptedPending: letIn } };
    } catch (error) {
      return failure(error);
    } finally {
      stop();
    }
  }

  consume(customer, { eventId, amount, timestamp, dryRun = false, queue = false }) {
    const ledger = this.ledger(customer);
    try {
      const wasQueued = ledger.pending().some((p) => p.eventId === eventId);
      const before = ledger.consumptionCount;
      const r = ledger.tryConsume(eventId, amount, timestamp, { dryRun });
      // An identical retry of an accepted consumption repeats its first answer's
      // allocations (one let in from the queue has none: it answers them as they are now).
      const first = this.firstAllocations.get(customer);
      if (r.accepted && ledger.consumptionCount > before) first.set(eventId, r.allocations);
      else if (r.accepted && first.has(eventId) && ledger.allocations(eventId) !== null) r.allocations = first.get(eventId);
      let queued = wasQueued && !r.accepted;
      if (!r.accepted && queue) {
        queued = true;
        if (!dryRun) ledger.submit(eventId, amount, timestamp);
      }
      return {
        status: 200,
        body: { eventId, accepted: r.accepted, queued, allocations: r.allocations, reason: r.reason, blockingEventId: r.blockingEventId },
      };
    } catch (error) {
      return failure(error);
    }
  }

  events(customer, events) {
    const results = events.map(({ type, ...event }) => {
      const r = type === 'grant' ? this.grant(customer, event) : this.consume(customer, event);
      return r.body !== undefined ? { status: r.status, ...r.body } : { status: r.status, code: r.code };
    });
    return { status: 200, body: { results } };
  }

  voidGrant(customer, grantId) {
    const ledger = this.ledger(customer);
    if (this.voided.get(customer).has(grantId)) return { status: 200, body: { applied: true, blockingEventId: null } };
    const grant = ledger.burnDown(grantId);
    if (grant === null) return { status: 404, code: 'NOT_FOUND' };
    const r = ledger.voidGrant(grantId);
    if (r.applied) this.voided.get(customer).set(grantId, [grant.amount, grant.startTime, grant.endTime]);
    return { status: 200, body: r };
  }

  setGrantEnd(customer, grantId, endTime) {
    if (this.voided.get(customer)?.has(grantId)) return { status: 404, code: 'NOT_FOUND' };
    try {
      return { status: 200, body: this.ledger(customer).setGrantEnd(grantId, endTime) };
    } catch (error) {
      return failure(error);
    }
  }

  /** What GET routes must show for this customer at these times, and for these event ids. */
  view(customer, { times, eventIds, from, to }) {
    const ledger = this.ledger(customer);
    const doc = ledger.toJSON();
    const byId = new Map(doc.consumptions.map((c) => [c.eventId, c]));
    return {
      ledger: doc,
      balance: times.map((at) => ({ customerId: customer, at, balance: ledger.getBalance(at) })),
      headroom: times.map((at) => ({ customerId: customer, at, headroom: ledger.headroom(at) })),
      grants: times.map((at) => ({ grants: ledger.grantsAt(at) })),
      curve: { points: ledger.balanceCurve(from, to) },
      pending: { pending: ledger.pending() },
      consumptions: eventIds.map((id) => {
        const allocations = ledger.allocations(id);
        if (allocations === null) return 404;
        const { amount, timestamp } = byId.get(id);
        return { eventId: id, amount, timestamp, allocations };
      }),
      burnDowns: doc.grants.map((g) => ledger.burnDown(g.grantId)),
    };
  }

  dispose() {
    for (const ledger of this.ledgers.values()) ledger.dispose();
    this.ledgers.clear();
  }
}

/** The same view as Mirror#view, read from the service. */
export async function servedView(c, customer, { times, eventIds, from, to }) {
  const base = `/v1/customers/${customer}`;
  const ok = async (path) => {
    const r = await c.get(base + path);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const ledger = await ok('/ledger');
  const view = {
    ledger,
    balance: [],
    headroom: [],
    grants: [],
    curve: await ok(`/balance-curve?from=${from}&to=${to}`),
    pending: await ok('/pending'),
    consumptions: [],
    burnDowns: [],
  };
  for (const at of times) {
    view.balance.push(await ok(`/balance?at=${at}`));
    view.headroom.push(await ok(`/headroom?at=${at}`));
    view.grants.push(await ok(`/grants?at=${at}`));
  }
  for (const id of eventIds) {
    const r = await c.get(`${base}/consumptions/${encodeURIComponent(id)}`);
    view.consumptions.push(r.status === 404 ? 404 : r.body);
  }
  for (const g of ledger.grants) view.burnDowns.push(await ok(`/grants/${encodeURIComponent(g.grantId)}`));
  return view;
}

/** An HTTP answer in the mirror's shape: { status, body } or { status, code }. */
export function shape(answer) {
  if (answer.status >= 400) return { status: answer.status, code: answer.body?.error?.code };
  if (Array.isArray(answer.body?.results)) {
    return {
      status: answer.status,
      body: { results: answer.body.results.map((r) => (r.error ? { status: r.status, code: r.error.code } : r)) },
    };
  }
  return { status: answer.status, body: answer.body };
}
