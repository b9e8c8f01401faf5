// The pending queue: consumptions submitted with the queue box ticked that no credit covers yet.
import { $, on, runCall, state, TABLE_LIMIT } from '../app.js';
import { formatNumber } from '../charts.js';
import { escape } from '../log-view.js';

on('render', () => {
  const pending = state.session.ledger.pending();
  $('pending-count').textContent = pending.length ? `(${formatNumber(pending.length)})` : '';
  $('pending-empty').hidden = pending.length > 0;
  const items = pending.slice(0, TABLE_LIMIT).map(
    (p) => `<li data-id="${escape(p.eventId)}">
  <span class="pending__what"><b>${escape(p.eventId)}</b> ${formatNumber(p.amount)} credits at t = ${formatNumber(p.timestamp)}</span>
  <button type="button" data-cancel="${escape(p.eventId)}" aria-label="Cancel queued ${escape(p.eventId)}">Cancel</button>
</li>`,
  );
  if (pending.length > TABLE_LIMIT) items.push(`<li class="hint">and ${formatNumber(pending.length - TABLE_LIMIT)} more</li>`);
  $('pending-list').innerHTML = items.join('');
});

$('pending-list').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-cancel]');
  if (button) runCall({ op: 'cancelPending', eventId: button.dataset.cancel });
});
