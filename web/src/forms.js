// Reading the two forms and showing the ledger's own error messages next to the field at fault.

export const FORM_FIELDS = {
  addGrant: ['grantId', 'amount', 'startTime', 'endTime'],
  consume: ['eventId', 'amount', 'timestamp'],
};

// A number as people type one: decimal digits, a point, an exponent (not 0x10, 0b11, Infinity).
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Whether the double `n`, an integer, is exactly the decimal `text`'s value: a double holds
 * 53 bits, so 1.0000000000000001 and 4503599627370496.5 read as integers they are not.
 */
function isExactly(text, n) {
  const [, sign, whole, fraction = '', exponent = '0'] = DECIMAL.exec(text);
  const shift = Number(exponent) - fraction.length; // value = digits * 10^shift
  if (Math.abs(shift) > 400) return false; // 0 or Infinity only by rounding
  let digits = BigInt(`${whole}${fraction}` || '0');
  if (sign === '-') digits = -digits;
  if (shift >= 0) return digits * 10n ** BigInt(shift) === BigInt(n);
  const unit = 10n ** BigInt(-shift);
  return digits % unit === 0n && digits / unit === BigInt(n);
}

/**
 * Ids go to the ledger as typed; numbers as numbers when they read as one exactly,
 * otherwise as the raw text (or undefined when empty), so the ledger's validation speaks:
 * it refuses a non-integer or a number out of range by its value, and text by its type.
 */
function fieldValue(name, text) {
  return name === 'grantId' || name === 'eventId' ? text : typedNumber(text);
}

/** A number field's text as the ledger is given it (the forms, a grant's new end, the horizon). */
export function typedNumber(text) {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!DECIMAL.test(trimmed) || !/\d/.test(trimmed)) return text;
  const n = Number(trimmed);
  return Number.isInteger(n) && !isExactly(trimmed, n) ? text : n;
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
  for (const el of form.querySelectorAll('.field-error, .form-error')) {
    el.textContent = '';
    delete el.dataset.code;
  }
}

export function showError(form, error) {
  clearErrors(form);
  const field = fieldForError(form.dataset.op, error);
  // The library's message exactly as it threw it; its code, when it has one, as the
  // element's data-code (the log shows it too).
  const target = field ? form.querySelector(`#${form.elements[field].id}-error`) : form.querySelector('.form-error');
  target.textContent = error.message;
  if (error.code) target.dataset.code = error.code;
  else delete target.dataset.code;
  if (field) {
    const input = form.elements[field];
    input.setAttribute('aria-invalid', 'true');
    input.focus();
    input.select();
  }
}
