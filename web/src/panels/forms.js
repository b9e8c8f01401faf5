// Controls: the grant and consumption forms, the queue box and the dry-run preview.
import { $, on, runCall, state } from '../app.js';
import { clearErrors, readCall, showError } from '../forms.js';
import { escape, fundedBy, reasonHtml } from '../log-view.js';

const grantForm = $('grant-form');
const consumeForm = $('consume-form');
const queueBox = consumeForm.elements.queue;
const preview = $('consume-preview');

// The id fields hold the next free id (g1, c1, …) unless the user typed one: that stays
// until it is used (a call from its form that is not an error) or a new scenario starts
// loading, so an id typed while the random preset loads is not overwritten by its prefill.
const typed = new Set();
function prefillIds(force = null) {
  const fields = [
    [grantForm.elements.grantId, () => state.session.nextGrantId()],
    [consumeForm.elements.eventId, () => state.session.nextEventId()],
  ];
  for (const [field, next] of fields) {
    if (field === force) typed.delete(field);
    if (!typed.has(field)) field.value = next();
  }
}
for (const field of [grantForm.elements.grantId, consumeForm.elements.eventId]) {
  field.addEventListener('input', () => typed.add(field));
}

on('loading', () => typed.clear());
on('load', () => {
  clearErrors(grantForm);
  clearErrors(consumeForm);
});
on('render', () => {
  prefillIds();
  preview.replaceChildren();
});

/** Submits a form's call; the ledger's own error message goes next to the field at fault. */
function submitCall(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const call = readCall(form);
  if (form === consumeForm && queueBox.checked) call.op = 'submit';
  const entry = runCall(call);
  if (entry.outcome === 'error') {
    showError(form, entry.error);
  } else {
    clearErrors(form);
    prefillIds(form === grantForm ? grantForm.elements.grantId : consumeForm.elements.eventId); // used: the next one
  }
}

grantForm.addEventListener('submit', submitCall);
consumeForm.addEventListener('submit', submitCall);

queueBox.addEventListener('change', () => {
  $('consume-button').textContent = queueBox.checked ? 'Consume or queue' : 'Consume';
  preview.replaceChildren();
});
consumeForm.addEventListener('input', () => preview.replaceChildren());

// Preview: tryConsume with { dryRun: true } says what Consume would do, and changes nothing.
$('preview-button').addEventListener('click', () => {
  const { session } = state;
  const { eventId, amount, timestamp } = readCall(consumeForm);
  let result;
  try {
    result = session.ledger.tryConsume(eventId, amount, timestamp, { dryRun: true });
  } catch (error) {
    showError(consumeForm, error);
    preview.replaceChildren();
    return;
  }
  clearErrors(consumeForm);
  preview.dataset.accepted = String(result.accepted);
  preview.dataset.reason = result.reason ?? '';
  preview.dataset.blocking = result.blockingEventId ?? '';
  let html;
  if (result.accepted && session.accepted.has(eventId)) {
    html = `<b>${escape(eventId)}</b> is already accepted with these parameters: Consume would charge nothing.`;
  } else if (result.accepted) {
    html = `Consume would accept it, funded by ${fundedBy(result.allocations)}.`;
  } else {
    const blocker = session.accepted.get(result.blockingEventId);
    const why = reasonHtml(result.reason, {
      timestamp,
      amount,
      available: result.reason === 'INSUFFICIENT_CREDIT' ? session.ledger.getBalance(timestamp) : undefined,
      blocking: blocker
        ? { eventId: blocker.eventId, amount: blocker.amount, timestamp: blocker.timestamp }
        : { eventId: result.blockingEventId },
    });
    const queued = session.queued.has(eventId);
    const then = queued ? ' It stays queued.' : queueBox.checked ? ' With the queue box ticked, it would be queued.' : '';
    html = `It would be rejected. ${why}${then}`;
  }
  preview.innerHTML = `<span class="preview__tag">Preview</span> ${html} <span class="preview__note">Nothing was changed.</span>`;
});
