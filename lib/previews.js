// Customer-facing previews, grant lifecycle and pending consumptions, installed
// on GPULedger by ledger.js. Same discipline as the core methods: every argument is
// validated here first, the C++ core returns status codes, and errors are thrown only
// from this layer.
import { LedgerError } from './errors.js';
import { checkAmount, checkId, checkTime } from './validate.js';

// gcl::Status codes this file handles itself (the rest go to ledger.js's statusError).
const INVALID_WINDOW = 5;
const UNKNOWN_ID = 7;
// gcl::RejectReason codes.
const REASONS = [null, 'INSUFFICIENT_CREDIT', 'WOULD_UNFUND'];

const TRY_CONSUME_OPTIONS = new Set(['dryRun']);

function checkOptions(method, options) {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${method}: options must be an object, got ${options === null ? 'null' : typeof options}`);
  }
  for (const key of Object.keys(options)) {
    // A misspelt dryRun must not turn a preview into a real charge.
    if (!TRY_CONSUME_OPTIONS.has(key)) throw new TypeError(`${method}: unknown option ${JSON.stringify(key)}`);
  }
  if (options.dryRun !== undefined && typeof options.dryRun !== 'boolean') {
    throw new TypeError(`${method}: options.dryRun must be a boolean, got ${typeof options.dryRun}`);
  }
  return options;
}

function checkThreshold(method, value) {
  checkAmount(method, 'threshold', value);
}

// Per ledger: the subscriptions of onPendingAccepted.
const subscriptions = new WeakMap();

// `count` allocations from a flat [grantId, amount, ...] array, starting at `start`.
export function readAllocations(flat, start, count) {
  const allocations = new Array(count);
  for (let i = 0; i < count; i++) allocations[i] = { grantId: flat[start + 2 * i], amount: flat[start + 2 * i + 1] };
  return allocations;
}

/**
 * Hands the pending consumptions the last call let in to the ledger's listeners. Called
 * after every call that can add credit. A listener that throws does not stop the others
 * or undo anything: its error is rethrown asynchronously, as an event listener's would be.
 */
export function notifyAcceptedPending(ledger, handle) {
  const flat = handle.takeAcceptedPending();
  if (flat === null) return;
  const accepted = [];
  for (let i = 0; i < flat.length; ) {
    const [eventId, amount, timestamp, count] = [flat[i], flat[i + 1], flat[i + 2], flat[i + 3]];
    accepted.push({ eventId, amount, timestamp, allocations: readAllocations(flat, i + 4, count) });
    i += 4 + 2 * count;
  }
  const listeners = subscriptions.get(ledger);
  if (listeners === undefined) return;
  for (const subscription of [...listeners]) {
    try {
      subscription.listener(accepted);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

/**
 * Adds the preview, grant-lifecycle and pending-queue methods to GPULedger.prototype. `live(ledger, method)` returns the
 * embind handle (throwing DISPOSED), `writeId(ledger, text)` writes an id to the ledger's
 * id buffer and returns its byte length, `statusError(method, status, what)` maps the
 * shared status codes.
 */
export function installPreviews(GPULedger, { live, writeId, statusError }) {
  function fail(method, status, what) {
    if (status === UNKNOWN_ID) return new LedgerError('UNKNOWN_ID', `${method}: no ${what}`);
    return statusError(method, status, what);
  }

  class Previews {
    headroom(timestamp) {
      const handle = live(this, 'headroom');
      checkTime('headroom', 'timestamp', timestamp);
      const amount = handle.headroom(timestamp);
      if (amount < 0) throw fail('headroom', -amount);
      return amount;
    }

    tryConsume(eventId, amount, timestamp, options) {
      const handle = live(this, 'tryConsume');
      checkId('tryConsume', 'eventId', eventId);
      checkAmount('tryConsume', 'amount', amount);
      checkTime('tryConsume', 'timestamp', timestamp);
      const { dryRun = false } = checkOptions('tryConsume', options);
      const flat = handle.tryConsume(writeId(this, eventId), amount, timestamp, dryRun);
      if (typeof flat === 'number') throw fail('tryConsume', -flat, `consumption ${JSON.stringify(eventId)}`);
      return {
        accepted: flat[0] === 1,
        allocations: readAllocations(flat, 3, (flat.length - 3) / 2),
        reason: REASONS[flat[1]],
        blockingEventId: flat[2],
      };
    }

    grantsAt(timestamp) {
      const handle = live(this, 'grantsAt');
      checkTime('grantsAt', 'timestamp', timestamp);
      const flat = handle.grantsAt(timestamp);
      if (typeof flat === 'number') throw fail('grantsAt', -flat);
      const out = [];
      for (let i = 0; i < flat.length; i += 5) {
        out.push({ grantId: flat[i], amount: flat[i + 1], startTime: flat[i + 2], endTime: flat[i + 3], remaining: flat[i + 4] });
      }
      return out;
    }

    burnDown(grantId) {
      const handle = live(this, 'burnDown');
      checkId('burnDown', 'grantId', grantId);
      const flat = handle.burnDown(writeId(this, grantId));
      if (flat === null) return null;
      if (typeof flat === 'number') throw fail('burnDown', -flat);
      const [amount, startTime, endTime, drawCount] = flat;
      const draws = new Array(drawCount);
      let i = 4;
      for (let k = 0; k < drawCount; k++, i += 3) draws[k] = { timestamp: flat[i], eventId: flat[i + 1], amount: flat[i + 2] };
      const remaining = [];
      for (; i < flat.length; i += 2) remaining.push([flat[i], flat[i + 1]]);
      return { grantId, amount, startTime, endTime, draws, remaining };
    }

    nextBelow(threshold, from) {
      const handle = live(this, 'nextBelow');
      checkThreshold('nextBelow', threshold);
      checkTime('nextBelow', 'from', from);
      const time = handle.nextBelow(threshold, from);
      if (time !== null && time < 0) throw fail('nextBelow', -time);
      return time;
    }

    voidGrant(grantId) {
      const handle = live(this, 'voidGrant');
      checkId('voidGrant', 'grantId', grantId);
      const flat = handle.voidGrant(writeId(this, grantId));
      if (typeof flat === 'number') throw fail('voidGrant', -flat, `grant ${JSON.stringify(grantId)}`);
      return { applied: flat[0] === 1, blockingEventId: flat[1] };
    }

    setGrantEnd(grantId, endTime) {
      const handle = live(this, 'setGrantEnd');
      checkId('setGrantEnd', 'grantId', grantId);
      checkTime('setGrantEnd', 'endTime', endTime);
      const flat = handle.setGrantEnd(writeId(this, grantId), endTime);
      if (typeof flat === 'number') {
        if (-flat === INVALID_WINDOW) {
          throw new RangeError(`setGrantEnd: endTime must be >= the startTime of grant ${JSON.stringify(grantId)}, got ${endTime}`);
        }
        throw fail('setGrantEnd', -flat, `grant ${JSON.stringify(grantId)}`);
      }
      notifyAcceptedPending(this, handle);
      return { applied: flat[0] === 1, blockingEventId: flat[1], acceptedPending: flat.slice(2) };
    }

    submit(eventId, amount, timestamp) {
      const handle = live(this, 'submit');
      checkId('submit', 'eventId', eventId);
      checkAmount('submit', 'amount', amount);
      checkTime('submit', 'timestamp', timestamp);
      const result = handle.submit(writeId(this, eventId), amount, timestamp);
      if (result < 0) throw fail('submit', -result, `consumption ${JSON.stringify(eventId)}`);
      return result === 1 ? 'accepted' : 'queued';
    }

    pending() {
      const flat = live(this, 'pending').pending();
      const out = [];
      for (let i = 0; i < flat.length; i += 3) out.push({ eventId: flat[i], amount: flat[i + 1], timestamp: flat[i + 2] });
      return out;
    }

    cancelPending(eventId) {
      const handle = live(this, 'cancelPending');
      checkId('cancelPending', 'eventId', eventId);
      const result = handle.cancelPending(writeId(this, eventId));
      if (result < 0) throw fail('cancelPending', -result);
      return result === 1;
    }

    onPendingAccepted(listener) {
      live(this, 'onPendingAccepted');
      if (typeof listener !== 'function') {
        throw new TypeError(`onPendingAccepted: listener must be a function, got ${listener === null ? 'null' : typeof listener}`);
      }
      let listeners = subscriptions.get(this);
      if (listeners === undefined) subscriptions.set(this, (listeners = new Set()));
      const subscription = { listener };
      listeners.add(subscription);
      return () => {
        listeners.delete(subscription);
      };
    }
  }

  for (const name of Object.getOwnPropertyNames(Previews.prototype)) {
    if (name === 'constructor') continue;
    Object.defineProperty(GPULedger.prototype, name, Object.getOwnPropertyDescriptor(Previews.prototype, name));
  }
}
