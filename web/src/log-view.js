// The event log: every call, newest first, with its outcome and what it did.
import { formatNumber } from './charts.js';

const SHOWN = 200;

const escape = (s) => String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const arg = (v) => (typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'undefined' : String(v));
const fundedBy = (allocations) =>
  allocations.map((a) => `<b>${escape(a.grantId)}</b>&nbsp;(${formatNumber(a.amount)})`).join(', ');
const plainFundedBy = (allocations) => allocations.map((a) => `${a.grantId} ${formatNumber(a.amount)}`).join(' + ');

function callText({ op, ...args }) {
  const order = {
    addGrant: ['grantId', 'amount', 'startTime', 'endTime'],
    consume: ['eventId', 'amount', 'timestamp'],
    getBalance: ['timestamp'],
  }[op];
  return `${op}(${order.map((k) => arg(args[k])).join(', ')})`;
}

function changesText(entry) {
  if (entry.changesUnreported) {
    return `Re-read the funding of ${formatNumber(entry.changesUnreported)} draws (too many to compare here).`;
  }
  if (!entry.changes?.length) return '';
  const listed = entry.changes.slice(0, 4).map(
    (c) => `${escape(c.eventId)} (t = ${formatNumber(c.timestamp)}) now ${escape(plainFundedBy(c.after))}, was ${escape(plainFundedBy(c.before))}`,
  );
  const more = entry.changes.length > 4 ? `; ${entry.changes.length - 4} more` : '';
  return `Moved the funding of ${listed.join('; ')}${more}.`;
}

function detail(entry, session) {
  const { call } = entry;
  if (entry.outcome === 'error') return `${escape(entry.error.name)}${entry.error.code ? ` ${escape(entry.error.code)}` : ''}: ${escape(entry.error.message)}`;
  if (call.op === 'getBalance') return `Balance at t = ${formatNumber(call.timestamp)} is <b>${formatNumber(entry.value)}</b>.`;
  const parts = [];
  if (entry.note) parts.push(escape(entry.note[0].toUpperCase() + entry.note.slice(1)) + '.');
  if (call.op === 'addGrant' && !entry.note) {
    parts.push(`${formatNumber(call.amount)} credits valid t = ${formatNumber(call.startTime)}…${formatNumber(call.endTime)}.`);
  }
  if (call.op === 'consume' && entry.outcome === 'accepted') {
    const allocations = entry.allocations ?? session.accepted.get(call.eventId)?.allocations ?? [];
    parts.push(`Funded by ${fundedBy(allocations)}.`);
  }
  if (entry.outcome === 'rejected') {
    if (entry.reason === 'insufficient') {
      parts.push(`Not enough credit valid at t = ${formatNumber(call.timestamp)}: ${formatNumber(entry.available)} available, ${formatNumber(call.amount)} needed.`);
    } else {
      const which = entry.laterConsumption
        ? `${escape(entry.laterConsumption.eventId)} at t = ${formatNumber(entry.laterConsumption.timestamp)}`
        : `one of the ${formatNumber(entry.laterCount)} accepted after t = ${formatNumber(call.timestamp)}`;
      parts.push(`Backdated: it would leave an accepted consumption unfunded (${which}).`);
    }
  }
  parts.push(changesText(entry));
  return parts.filter(Boolean).join(' ');
}

function expectation(entry) {
  if (!entry.expect) return '';
  const { expected, ok } = entry.expect;
  return ok
    ? '<span class="expect expect--ok" title="Matches SEMANTICS.md">✓ as specified</span>'
    : `<span class="expect expect--bad">✗ SEMANTICS.md says ${escape(String(expected))}</span>`;
}

function entryHtml(entry, session) {
  const id = entry.call.grantId ?? entry.call.eventId ?? '';
  const badge = entry.outcome === 'result' ? 'query' : entry.outcome;
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
