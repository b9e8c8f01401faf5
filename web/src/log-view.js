// The event log: every call, newest first, with its outcome and what it did.
import { formatNumber } from './charts.js';
import { CALL_FIELDS } from './scenario.js';

const SHOWN = 200;

export const escape = (s) => String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const arg = (v) => (typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'undefined' : String(v));
export const fundedBy = (allocations) => allocations.map((a) => `<b>${escape(a.grantId)}</b>&nbsp;(${formatNumber(a.amount)})`).join(', ');
const plainFundedBy = (allocations) => allocations.map((a) => `${a.grantId} ${formatNumber(a.amount)}`).join(' + ');

function callText({ op, ...args }) {
  // Not a call: the ledger's onPendingAccepted listener reporting a queued consumption let in.
  if (op === 'acceptPending') return `queued ${arg(args.eventId)} let in`;
  return `${op}(${(CALL_FIELDS[op] ?? []).map((k) => arg(args[k])).join(', ')})`;
}

/** "c_late", in bold; what a refusal names as the consumption it would leave unfunded. */
const blockingText = (blocking) => (blocking?.eventId ? `<b>${escape(blocking.eventId)}</b>` : 'an accepted consumption');
const blockingDetail = (blocking) =>
  blocking?.timestamp === undefined ? '' : ` (${formatNumber(blocking.amount)} credits at t = ${formatNumber(blocking.timestamp)})`;

/**
 * Why tryConsume rejected (or would reject) a consumption, as HTML: INSUFFICIENT_CREDIT or
 * WOULD_UNFUND with the blocking consumption ({ eventId, amount?, timestamp? }).
 */
export function reasonHtml(reason, { timestamp, amount, available, blocking }) {
  if (reason === 'INSUFFICIENT_CREDIT') {
    const have = available === undefined ? '' : `: ${formatNumber(available)} available, ${formatNumber(amount)} needed`;
    return `Not enough credit valid at t = ${formatNumber(timestamp)}${have}.`;
  }
  return `It would leave ${blockingText(blocking)} unfunded${blockingDetail(blocking)}.`;
}

/** Which earlier draws the call re-routed (the ledger's reallocated()), the first few spelled out. */
function changesText(entry) {
  if (!entry.changes?.length) return '';
  const listed = entry.changes
    .slice(0, 4)
    .map(
      (c) =>
        `${escape(c.eventId)} (t = ${formatNumber(c.timestamp)}) now ${escape(plainFundedBy(c.after))}, was ${escape(plainFundedBy(c.before))}`,
    );
  const more = entry.changes.length > 4 ? `; and ${formatNumber(entry.changes.length - 4)} more` : '';
  return `Moved the funding of ${listed.join('; ')}${more}.`;
}

const someIds = (ids) =>
  `${ids
    .slice(0, 4)
    .map((id) => `<b>${escape(id)}</b>`)
    .join(', ')}${ids.length > 4 ? `, … (${formatNumber(ids.length - 4)} more)` : ''}`;
const counted = (ids, one, many) =>
  ids.length === 0 ? `no ${many}` : `${formatNumber(ids.length)} ${ids.length === 1 ? one : many} (${someIds(ids)})`;

/** What finalizing before the horizon dropped: { grants, consumptions, pending } ids. */
export function droppedText(horizon, { grants, consumptions, pending }) {
  return (
    `Final before t = ${formatNumber(horizon)}: dropped ${counted(grants, 'grant', 'grants')}, ` +
    `${counted(consumptions, 'consumption', 'consumptions')} and ${counted(pending, 'queued consumption', 'queued consumptions')}.`
  );
}

function letInText(entry) {
  if (!entry.letIn?.length) return '';
  const ids = entry.letIn
    .slice(0, 4)
    .map((id) => `<b>${escape(id)}</b>`)
    .join(', ');
  const more = entry.letIn.length > 4 ? ` and ${formatNumber(entry.letIn.length - 4)} more` : '';
  return `Let in ${entry.letIn.length === 1 ? 'the queued consumption' : 'queued consumptions'} ${ids}${more}.`;
}

function detail(entry, session) {
  const { call } = entry;
  if (entry.outcome === 'error')
    return `${escape(entry.error.name)}${entry.error.code ? ` ${escape(entry.error.code)}` : ''}: ${escape(entry.error.message)}`;
  if (call.op === 'getBalance') return `Balance at t = ${formatNumber(call.timestamp)} is <b>${formatNumber(entry.value)}</b>.`;
  if (call.op === 'acceptPending') {
    const by =
      entry.trigger.op === 'addGrant'
        ? `the new grant ${escape(entry.trigger.grantId)}`
        : `${escape(entry.trigger.op)}(${escape(JSON.stringify(entry.trigger.grantId))})`;
    return `Queued ${formatNumber(call.amount)} credits at t = ${formatNumber(call.timestamp)}, accepted after ${by} (onPendingAccepted). Funded by ${fundedBy(entry.allocations)}.`;
  }
  const parts = [];
  if (entry.note) parts.push(escape(entry.note[0].toUpperCase() + entry.note.slice(1)) + '.');
  if (call.op === 'addGrant' && !entry.note) {
    parts.push(`${formatNumber(call.amount)} credits valid t = ${formatNumber(call.startTime)}…${formatNumber(call.endTime)}.`);
  }
  if ((call.op === 'consume' || call.op === 'submit') && entry.outcome === 'accepted') {
    const allocations = entry.allocations ?? session.accepted.get(call.eventId)?.allocations ?? [];
    parts.push(`Funded by ${fundedBy(allocations)}.`);
  }
  if (entry.outcome === 'queued' && !entry.note) {
    parts.push('Cannot be funded now: queued, and retried whenever credit is added (a grant, a later grant end).');
  }
  if (call.op === 'consume' && entry.outcome === 'rejected') {
    parts.push(
      reasonHtml(entry.reason, { timestamp: call.timestamp, amount: call.amount, available: entry.available, blocking: entry.blocking }),
    );
  }
  if (call.op === 'cancelPending' && entry.outcome === 'cancelled') {
    parts.push(
      `Dropped from the queue${entry.was ? ` (${formatNumber(entry.was.amount)} credits at t = ${formatNumber(entry.was.timestamp)})` : ''}.`,
    );
  }
  if (call.op === 'compact' && entry.dropped) parts.push(droppedText(call.horizon, entry.dropped));
  if ((call.op === 'voidGrant' || call.op === 'setGrantEnd') && entry.outcome === 'refused') {
    parts.push(`Refused: it would leave ${blockingText(entry.blocking)} unfunded${blockingDetail(entry.blocking)}. Nothing changed.`);
  }
  if (call.op === 'voidGrant' && entry.outcome === 'applied' && entry.grant) {
    const g = entry.grant;
    parts.push(`Removed ${formatNumber(g.amount)} credits valid t = ${formatNumber(g.startTime)}…${formatNumber(g.endTime)}.`);
  }
  if (call.op === 'setGrantEnd' && entry.outcome === 'applied' && entry.previousEnd !== undefined) {
    const verb = call.endTime < entry.previousEnd ? 'Expires early' : 'Extended';
    parts.push(`${verb}: valid until t = ${formatNumber(call.endTime)}, was ${formatNumber(entry.previousEnd)}.`);
  }
  parts.push(changesText(entry));
  parts.push(letInText(entry));
  return parts.filter(Boolean).join(' ');
}

function expectation(entry) {
  if (!entry.expect) return '';
  const { expected, ok } = entry.expect;
  return ok
    ? '<span class="expect expect--ok" title="The outcome the seed example specifies">✓ as specified</span>'
    : `<span class="expect expect--bad">✗ the seed example specifies ${escape(String(expected))}</span>`;
}

function entryHtml(entry, session) {
  const id = entry.call.grantId ?? entry.call.eventId ?? '';
  const badge = entry.outcome === 'result' ? 'query' : entry.call.op === 'acceptPending' ? 'let in' : entry.outcome;
  return `<li class="entry entry--${entry.outcome}${entry.expect ? ' entry--checked' : ''}" data-outcome="${entry.outcome}" data-op="${entry.call.op}" data-id="${escape(id)}">
  <span class="entry__seq">${entry.seq}</span>
  <code class="entry__call">${escape(callText(entry.call))}</code>
  <span class="badge badge--${entry.outcome}">${badge}</span>${expectation(entry)}
  <p class="entry__detail">${detail(entry, session)}</p>
</li>`;
}

const rendered = new WeakMap();

/** Shows the latest entries, newest first; for the same session only new entries are added. */
export function renderLog(list, note, session) {
  const { log } = session;
  const previous = rendered.get(list);
  const fresh = previous?.session === session && log.length - previous.count < SHOWN;
  if (fresh) {
    const added = log.slice(previous.count).reverse();
    list.insertAdjacentHTML('afterbegin', added.map((entry) => entryHtml(entry, session)).join(''));
    while (list.children.length > SHOWN) list.lastElementChild.remove();
  } else {
    list.innerHTML = log
      .slice(-SHOWN)
      .reverse()
      .map((entry) => entryHtml(entry, session))
      .join('');
  }
  rendered.set(list, { session, count: log.length });
  const shown = Math.min(SHOWN, log.length);
  note.textContent = log.length > shown ? `Showing the latest ${formatNumber(shown)} of ${formatNumber(log.length)} calls.` : '';
}
