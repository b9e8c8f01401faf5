// Reading the two forms and showing the ledger's own error messages next to the field at fault.

export const FORM_FIELDS = {
  addGrant: ['grantId', 'amount', 'startTime', 'endTime'],
  consume: ['eventId', 'amount', 'timestamp'],
};

/**
 * Ids go to the ledger as typed; numbers as numbers when they read as one, otherwise
 * as the raw text (or undefined when empty), so the ledger's validation speaks.
 */
function fieldValue(name, text) {
  if (name === 'grantId' || name === 'eventId') return text;
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const n = Number(trimmed);
  return Number.isNaN(n) ? text : n;
}

export function readCall(form) {
  const op = form.dataset.op;
  const call = { op };
  for (const name of FORM_FIELDS[op]) call[name] = fieldValue(name, form.elements[name].value);
  return call;
}

/** The form field an error message is about: the word after "method: ", else any field named in it. */
export function fieldForError(op, error) {
  const fields = FORM_FIELDS[op];
  if (error.code === 'DUPLICATE_ID') return fields[0];
  // A time before the horizon: a consumption's timestamp, a grant's start.
  if (error.code === 'BEFORE_HORIZON') return op === 'consume' ? 'timestamp' : 'startTime';
  const lead = /^\w+: (\w+)/.exec(error.message);
  if (lead && fields.includes(lead[1])) return lead[1];
  return fields.find((f) => new RegExp(`\\b${f}\\b`).test(error.message)) ?? null;
}

export function clearErrors(form) {
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  for (const el of form.querySelectorAll('.field-error, .form-error')) el.textContent = '';
}

export function showError(form, error) {
  clearErrors(form);
  const field = fieldForError(form.dataset.op, error);
  const text = error.code ? `${error.message} (${error.code})` : error.message;
  if (field) {
    const input = form.elements[field];
    input.setAttribute('aria-invalid', 'true');
    form.querySelector(`#${input.id}-error`).textContent = text;
    input.focus();
    input.select();
  } else {
    form.querySelector('.form-error').textContent = text;
  }
}
