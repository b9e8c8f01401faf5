// The time cursor: the line over the charts, the slider, the readouts at the cursor
// (balance, headroom, grants valid, low-balance alert), dragging on the charts, and
// the view range with its zoom buttons.
import { $, on, selectGrant, setCursor, setStatus, setView, redrawCharts, state } from '../app.js';
import { formatNumber } from '../charts.js';

const stack = $('chart-stack');

function updateReadouts() {
  const t = state.cursor;
  const { ledger, grants } = state.session;
  $('cursor-time').value = t;
  markInvalid($('cursor-time'), false);
  $('cursor-range').value = t;
  let active = 0;
  for (const g of grants.values()) if (g.startTime <= t && t <= g.endTime) active++;
  $('active-readout').textContent = `${formatNumber(active)} grant${active === 1 ? '' : 's'} valid`;
  updateAlert();
  if (t < ledger.horizon) {
    // The ledger keeps no balances before its finality horizon (it would refuse: BEFORE_HORIZON).
    for (const id of ['balance-readout', 'headroom-readout']) {
      $(id).textContent = '–';
      $(id).dataset.value = '';
    }
    $('headroom-readout').classList.remove('is-reserved');
    $('headroom-note').textContent =
      `t = ${formatNumber(t)} is before the horizon (t = ${formatNumber(ledger.horizon)}): that past is final.`;
    return;
  }
  const balance = ledger.getBalance(t);
  const readout = $('balance-readout');
  readout.textContent = formatNumber(balance);
  readout.dataset.value = String(balance);
  // One call, O((n + g) log(n + g)): about a millisecond on the big preset.
  const headroom = ledger.headroom(t);
  const headroomOut = $('headroom-readout');
  headroomOut.textContent = formatNumber(headroom);
  headroomOut.dataset.value = String(headroom);
  headroomOut.classList.toggle('is-reserved', headroom < balance);
  $('headroom-note').textContent =
    headroom < balance
      ? `A new consumption at t = ${formatNumber(t)} can take at most ${formatNumber(headroom)}: later accepted consumptions reserve ${formatNumber(balance - headroom)} of the ${formatNumber(balance)} credits.`
      : '';
}

function updateLine() {
  const t = state.cursor;
  const [from, to] = state.domain;
  const line = $('cursor-line');
  line.hidden = !(t >= from && t < to) || !state.xScale;
  if (line.hidden) return;
  const x = state.xScale.apply(t);
  line.style.transform = `translateX(${x}px)`;
  const flag = $('cursor-flag');
  flag.textContent = `t = ${formatNumber(t)}`;
  // Centred on the line, but kept inside the charts near either edge. The width is
  // estimated (11 px bold digits) rather than measured, to not force a layout here.
  const w = 12 + 6.6 * flag.textContent.length;
  flag.style.transform = `translateX(${Math.min(Math.max(-w / 2, 4 - x), state.width - 4 - x - w)}px)`;
}

/** The slider and the view inputs follow the charts' time range. */
function updateRange() {
  const [from, to] = state.domain;
  $('view-from').value = from;
  $('view-to').value = to - 1;
  markInvalid($('view-from'), false);
  markInvalid($('view-to'), false);
  $('view-error').textContent = '';
  const range = $('cursor-range');
  range.min = from;
  range.max = to - 1;
  // Line the slider's thumb (about 16 px) up with the x scale: min at x(from), max at x(to - 1).
  const x = state.xScale;
  range.style.marginLeft = `${x.apply(from) - 8}px`;
  range.style.width = `${x.apply(to - 1) - x.apply(from) + 16}px`;
}

on('view', updateRange);
on('cursor', () => {
  updateReadouts();
  updateLine();
});

// --- low-balance alert: nextBelow(threshold, cursor)

function updateAlert() {
  const text = $('alert-threshold').value.trim();
  const out = $('alert-readout');
  out.classList.remove('is-bad', 'is-warn');
  delete out.dataset.at;
  if (text === '') {
    out.textContent = '';
    return;
  }
  const threshold = wholeNumber(text);
  if (threshold === null || threshold < 1) {
    out.textContent = 'a whole number of credits, at least 1';
    out.classList.add('is-bad');
    return;
  }
  // From the horizon on at the earliest: before it the ledger keeps no balances.
  const t = Math.max(state.cursor, state.session.ledger.horizon);
  const at = state.session.ledger.nextBelow(threshold, t);
  if (at !== null) out.dataset.at = String(at);
  out.classList.toggle('is-warn', at !== null);
  out.textContent =
    at === null
      ? `never from t = ${formatNumber(t)} on`
      : at === t
        ? `already below at t = ${formatNumber(t)}`
        : `first at t = ${formatNumber(at)}, ${formatNumber(at - state.cursor)} after the cursor`;
}
$('alert-threshold').addEventListener('input', updateAlert);
$('alert-form').addEventListener('submit', (event) => event.preventDefault());

// --- moving the cursor: slider, number input, pointer on the charts

$('cursor-range').addEventListener('input', (/** @type {any} */ event) => setCursor(Number(event.target.value)));
/** `text` as a whole number (0 or more, digits only, at most 2^53 - 1), or null. */
function wholeNumber(text) {
  const n = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(n) ? n : null;
}
/** The whole time (0 or more) typed in `input`, or null when it is not one. */
const typedTime = (input) => wholeNumber(input.value.trim());
function markInvalid(input, invalid, why = 'a whole time, 0 or more') {
  if (invalid) {
    input.setAttribute('aria-invalid', 'true');
    input.title = why;
  } else {
    input.removeAttribute('aria-invalid');
    input.removeAttribute('title');
  }
}

$('cursor-time').addEventListener('input', (/** @type {any} */ event) => {
  const t = typedTime(event.target);
  if (t === null) {
    markInvalid(event.target, true);
    return;
  }
  setCursor(t);
  // A time outside the view: the view moves to it (same width), so the line shows where it is.
  const [from, to] = state.domain;
  if (t < from || t >= to) {
    const start = Math.max(0, t - Math.floor((to - from) / 2));
    setView(start, start + (to - from));
  }
});
// Left with a value that is not a time: back to where the cursor is, and the page says so.
$('cursor-time').addEventListener('change', (/** @type {any} */ event) => {
  if (typedTime(event.target) !== null) return;
  const text = event.target.value.trim();
  updateReadouts();
  setStatus(
    `${text === '' ? 'That is not a time' : `"${text}" is not a time`}: the cursor takes a whole number from 0 to ${formatNumber(Number.MAX_SAFE_INTEGER)}; it stays at t = ${formatNumber(state.cursor)}.`,
  );
});

function cursorFromPointer(event) {
  const svg = stack.querySelector('svg');
  if (!svg || !state.xScale) return;
  const x = event.clientX - svg.getBoundingClientRect().left;
  const [from, to] = state.domain;
  const t = Math.floor(state.xScale.invert(x));
  setCursor(Math.min(to - 1, Number.MAX_SAFE_INTEGER, Math.max(from, t)));
}

// --- hover tips: each chart says what is under the pointer (describe), one tip shows it

const tip = $('chart-tip');
function showTip(event) {
  const chart = /** @type {any} */ (event.target).closest?.('.layered');
  const { left, top } = chart?.getBoundingClientRect() ?? {};
  const text = chart?.describe?.(event.clientX - left, event.clientY - top) ?? null;
  // A grant bar opens its burn-down on click: say so with the pointer.
  stack.classList.toggle('over-bar', Boolean(chart?.grantAt?.(event.clientX - left, event.clientY - top)));
  if (text === null) return hideTip();
  tip.textContent = text;
  tip.hidden = false;
  // Beside the pointer: to its right where it fits, else to its left, else (a narrow
  // screen) as far left as it must go to stay inside the charts.
  const stackBox = stack.getBoundingClientRect();
  const x = event.clientX - stackBox.left;
  const y = event.clientY - stackBox.top;
  const width = tip.offsetWidth;
  let at = x + 12;
  if (at + width > stackBox.width) at = x - 12 - width >= 0 ? x - 12 - width : Math.max(0, stackBox.width - width);
  tip.style.transform = `translate(${at}px, ${y + 12}px)`;
}
function hideTip() {
  tip.hidden = true;
  stack.classList.remove('over-bar');
}

/** Where a press began and on which grant bar, if any: a press and release in place on a bar opens its burn-down. */
let press = null;
// Captured before Plot sees it: a press moves the cursor instead of pinning a tip.
stack.addEventListener(
  'pointerdown',
  (event) => {
    if (event.button !== 0) return;
    event.stopPropagation();
    press = { grantId: state.grantAt?.(event) ?? null, x: event.clientX, y: event.clientY };
    stack.setPointerCapture(event.pointerId);
    stack.classList.add('dragging');
    cursorFromPointer(event);
  },
  { capture: true },
);
stack.addEventListener('pointermove', (event) => {
  if (stack.hasPointerCapture(event.pointerId)) {
    hideTip();
    cursorFromPointer(event);
  } else {
    showTip(event);
  }
});
stack.addEventListener('pointerleave', hideTip);
stack.addEventListener('pointerup', (event) => {
  stack.classList.remove('dragging');
  if (press?.grantId != null && Math.abs(event.clientX - press.x) < 5 && Math.abs(event.clientY - press.y) < 5) {
    selectGrant(press.grantId, { scroll: true });
  }
  press = null;
});
stack.addEventListener('pointercancel', () => {
  stack.classList.remove('dragging');
  press = null;
});

// --- the view range and zoom

// A view from `from` to `to` (both shown): whole times with from < to, else marked invalid.
function viewInputs() {
  const fromInput = $('view-from');
  const toInput = $('view-to');
  const from = typedTime(fromInput);
  const to = typedTime(toInput);
  const order = from !== null && to !== null && from >= to;
  markInvalid(fromInput, from === null || order, order ? 'the view starts before it ends' : undefined);
  markInvalid(toInput, to === null || order, order ? 'the view ends after it starts' : undefined);
  // Said beside the fields too, since the charts keep the last view that was valid.
  $('view-error').textContent =
    from === null || to === null
      ? 'the view is from one whole time (0 or more) to a later one'
      : order
        ? `the view must start before it ends (t ${formatNumber(from)} … ${formatNumber(to)}); the charts keep the last valid view`
        : '';
  if (from !== null && to !== null && !order) setView(from, to + 1);
}
$('view-form').addEventListener('submit', (event) => {
  event.preventDefault();
  viewInputs();
});
for (const id of ['view-from', 'view-to']) $(id).addEventListener('change', viewInputs);
$('zoom-in').addEventListener('click', () => {
  const [from, to] = state.domain;
  const half = Math.max(2, (to - from) / 4);
  setView(state.cursor - half, state.cursor + half);
});
$('zoom-out').addEventListener('click', () => {
  const [from, to] = state.domain;
  const span = to - from;
  setView(from - span / 2, to + span / 2);
});
$('zoom-fit').addEventListener('click', () => {
  state.view = null;
  redrawCharts();
});
