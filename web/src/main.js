import { GPULedger } from 'gpu-credit-ledger';
import './style.css';
import { balanceChart, burnDownChart, formatNumber, fullDomain, timelineCharts } from './charts.js';
import { clearErrors, readCall, showError } from './forms.js';
import { escape, fundedBy, reasonHtml, renderLog } from './log-view.js';
import { decodeHash, encodeHash, fromJson, presetOps, RANDOM_DEFAULTS, SEED_PRESETS, toJson } from './scenario.js';
import { LedgerSession } from './session.js';

/** The page's elements by id; typed loosely since this file only reads what index.html declares. */
const $ = (id) => /** @type {any} */ (document.getElementById(id));
const grantForm = $('grant-form');
const consumeForm = $('consume-form');

const state = {
  session: null,
  preset: null,
  cursor: 0,
  /** [from, to) chosen by the user, or null to fit everything */
  view: null,
  domain: [0, 20],
  width: 0,
  xScale: null,
  renders: 0,
  /** the grant whose burn-down panel is open */
  selectedGrant: null,
  /** which session and grants version the grant picker lists */
  picker: { session: null, version: -1 },
};

/** At most this many rows in the burn-down draws table and the queue list. */
const TABLE_LIMIT = 200;

const domainNow = () => state.view ?? fullDomain(state.session);

function setStatus(text) {
  $('status').textContent = text;
}

function renderStats() {
  const { session } = state;
  const items = [
    ['grants', session.ledger.grantCount],
    ['accepted', session.ledger.consumptionCount],
    ['rejected', session.rejectedCount],
    ['queued', session.queued.size],
  ];
  $('stats').innerHTML = items.map(([label, n]) => `<div><dt>${label}</dt><dd>${formatNumber(n)}</dd></div>`).join('');
}

function renderCharts() {
  const { session } = state;
  state.domain = domainNow();
  state.width = $('chart-stack').clientWidth;
  const width = Math.max(280, state.width);
  const { charts, caption } = timelineCharts(session, state.domain, width);
  markSelectedBar(charts[0]);
  const balance = balanceChart(session, state.domain, width);
  $('timeline').replaceChildren(...charts);
  $('balance-chart').replaceChildren(balance);
  state.xScale = balance.scale('x');
  $('timeline-caption').textContent = caption;
  const [from, to] = state.domain;
  $('view-from').value = from;
  $('view-to').value = to - 1;
  const range = $('cursor-range');
  range.min = from;
  range.max = to - 1;
  // Line the slider's thumb (about 16 px) up with the x scale: min at x(from), max at x(to - 1).
  const x = state.xScale;
  range.style.marginLeft = `${x.apply(from) - 8}px`;
  range.style.width = `${x.apply(to - 1) - x.apply(from) + 16}px`;
  updateCursor();
}

function render() {
  const started = performance.now();
  renderCharts();
  renderLog($('log'), $('log-note'), state.session);
  $('log-empty').hidden = state.session.log.length > 0;
  renderStats();
  renderPending();
  renderGrantPicker();
  renderBurnDown();
  $('consume-preview').replaceChildren();
  const ms = performance.now() - started;
  document.body.dataset.renders = String(++state.renders);
  document.body.dataset.renderMs = ms.toFixed(1);
  return ms;
}

function updateCursor() {
  const t = state.cursor;
  const [from, to] = state.domain;
  const balance = state.session.ledger.getBalance(t);
  const readout = $('balance-readout');
  readout.textContent = formatNumber(balance);
  readout.dataset.value = String(balance);
  // One call, O((n + g) log(n + g)): about a millisecond on the big preset.
  const headroom = state.session.ledger.headroom(t);
  const headroomOut = $('headroom-readout');
  headroomOut.textContent = formatNumber(headroom);
  headroomOut.dataset.value = String(headroom);
  headroomOut.classList.toggle('is-reserved', headroom < balance);
  $('headroom-note').textContent =
    headroom < balance
      ? `A new consumption at t = ${formatNumber(t)} can take at most ${formatNumber(headroom)}: later accepted consumptions reserve ${formatNumber(balance - headroom)} of the ${formatNumber(balance)} credits.`
      : '';
  updateAlert();
  $('cursor-time').value = t;
  $('cursor-range').value = t;
  let active = 0;
  for (const g of state.session.grants.values()) if (g.startTime <= t && t <= g.endTime) active++;
  $('active-readout').textContent = `${formatNumber(active)} grant${active === 1 ? '' : 's'} valid`;
  const line = $('cursor-line');
  line.hidden = !(t >= from && t < to) || !state.xScale;
  if (!line.hidden) {
    const x = state.xScale.apply(t);
    line.style.transform = `translateX(${x}px)`;
    const flag = $('cursor-flag');
    flag.textContent = `t = ${formatNumber(t)}`;
    // Centred on the line, but kept inside the charts near either edge. The width is
    // estimated (11 px bold digits) rather than measured, to not force a layout here.
    const w = 12 + 6.6 * flag.textContent.length;
    flag.style.transform = `translateX(${Math.min(Math.max(-w / 2, 4 - x), state.width - 4 - x - w)}px)`;
  }
}

function setCursor(t) {
  if (!Number.isSafeInteger(t) || t < 0) return;
  state.cursor = t;
  updateCursor();
  scheduleHashUpdate();
}

function prefillIds() {
  grantForm.elements.grantId.value = state.session.nextGrantId();
  consumeForm.elements.eventId.value = state.session.nextEventId();
}

/** @param {{ preset?: any, ops?: object[], cursor?: number }} [scenario] */
function loadScenario({ preset = null, ops = [], cursor } = {}) {
  const started = performance.now();
  state.session?.dispose();
  const session = new LedgerSession(GPULedger);
  session.runAll(presetOps(preset), { record: false });
  session.runAll(ops, { record: true });
  const loadMs = performance.now() - started;
  state.session = session;
  state.preset = preset;
  state.view = null;
  state.selectedGrant = null;
  const extent = session.extent();
  state.cursor = cursor ?? SEED_PRESETS[preset?.name]?.cursor ?? (extent ? Math.round((extent[0] + extent[1]) / 2) : 0);
  clearErrors(grantForm);
  clearErrors(consumeForm);
  prefillIds();
  const renderMs = render();
  if (session.log.length > 0) {
    const name = preset?.name === 'random' ? `Random scenario (seed ${preset.seed})` : SEED_PRESETS[preset?.name]?.label ?? 'Scenario';
    setStatus(
      `${name}: ${formatNumber(session.log.length)} calls replayed in ${loadMs.toFixed(0)} ms, drawn in ${renderMs.toFixed(0)} ms.`,
    );
  } else {
    setStatus('');
  }
  scheduleHashUpdate();
}

// --- calls: the forms, the queue's cancel buttons, the burn-down panel's grant changes

/** Runs one call on the session, redraws, and says what happened; returns the log entry. */
function runCall(call, form = null) {
  const started = performance.now();
  const entry = state.session.run(call);
  if (entry.outcome === 'error') {
    if (form) showError(form, entry.error);
    renderLog($('log'), $('log-note'), state.session);
    $('log-empty').hidden = true;
  } else {
    if (form) clearErrors(form);
    prefillIds();
    if (call.op === 'consume' || call.op === 'submit') state.cursor = call.timestamp;
    render();
    scheduleHashUpdate();
  }
  const ms = performance.now() - started;
  document.body.dataset.updateMs = ms.toFixed(1);
  const letIn = entry.letIn?.length ? `; let in queued ${entry.letIn.slice(0, 3).join(', ')}${entry.letIn.length > 3 ? ', …' : ''}` : '';
  setStatus(
    entry.outcome === 'error'
      ? `${call.op} refused the input (${entry.error.name}); the ledger is unchanged.`
      : `${call.op}: ${entry.outcome}${letIn} · ledger call and redraw took ${ms.toFixed(1)} ms.`,
  );
  return entry;
}

function submitCall(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const call = readCall(form);
  if (form === consumeForm && form.elements.queue.checked) call.op = 'submit';
  runCall(call, form);
}

grantForm.addEventListener('submit', submitCall);
consumeForm.addEventListener('submit', submitCall);

const queueBox = consumeForm.elements.queue;
queueBox.addEventListener('change', () => {
  $('consume-button').textContent = queueBox.checked ? 'Consume or queue' : 'Consume';
  $('consume-preview').replaceChildren();
});
consumeForm.addEventListener('input', () => $('consume-preview').replaceChildren());

// Preview: tryConsume with { dryRun: true } says what Consume would do, and changes nothing.
$('preview-button').addEventListener('click', () => {
  const { session } = state;
  const { eventId, amount, timestamp } = readCall(consumeForm);
  const out = $('consume-preview');
  let result;
  try {
    result = session.ledger.tryConsume(eventId, amount, timestamp, { dryRun: true });
  } catch (error) {
    showError(consumeForm, error);
    out.replaceChildren();
    return;
  }
  clearErrors(consumeForm);
  out.dataset.accepted = String(result.accepted);
  out.dataset.reason = result.reason ?? '';
  out.dataset.blocking = result.blockingEventId ?? '';
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
      blocking: blocker ? { eventId: blocker.eventId, amount: blocker.amount, timestamp: blocker.timestamp } : { eventId: result.blockingEventId },
    });
    const queued = session.queued.has(eventId);
    const then = queued ? ' It stays queued.' : queueBox.checked ? ' With the queue box ticked, it would be queued.' : '';
    html = `It would be rejected. ${why}${then}`;
  }
  out.innerHTML = `<span class="preview__tag">Preview</span> ${html} <span class="preview__note">Nothing was changed.</span>`;
});

// --- the queue

function renderPending() {
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
}

$('pending-list').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-cancel]');
  if (button) runCall({ op: 'cancelPending', eventId: button.dataset.cancel });
});

// --- the burn-down panel

/** Outlines the selected grant's bar in a freshly drawn timeline (a class, no redraw needed). */
function markSelectedBar(root = $('timeline')) {
  for (const rect of root.querySelectorAll('rect.is-selected')) rect.classList.remove('is-selected');
  if (state.selectedGrant === null) return;
  for (const rect of root.querySelectorAll('rect[data-grant-id]')) {
    if (rect.dataset.grantId === state.selectedGrant) rect.classList.add('is-selected');
  }
}

/** The grant picker lists every grant; rebuilt only when grants come, go or change. */
function renderGrantPicker() {
  const { session } = state;
  const select = $('grant-select');
  if (state.picker.session !== session || state.picker.version !== session.grantsVersion) {
    const options = ['<option value="">Choose a grant…</option>'];
    for (const g of session.grants.values()) {
      options.push(`<option value="${escape(g.grantId)}">${escape(g.grantId)} · ${formatNumber(g.amount)} credits · t = ${formatNumber(g.startTime)}…${formatNumber(g.endTime)}</option>`);
    }
    select.innerHTML = options.join('');
    state.picker = { session, version: session.grantsVersion };
  }
  select.value = state.selectedGrant ?? '';
}

function selectGrant(grantId, { scroll = false } = {}) {
  state.selectedGrant = grantId || null;
  $('burn-error').textContent = '';
  $('burn-empty').textContent = 'Click a grant bar in the timeline, or choose a grant here, to see its draws and remaining credit over time.';
  markSelectedBar();
  renderGrantPicker();
  renderBurnDown();
  if (scroll && state.selectedGrant) $('burn-card').scrollIntoView({ block: 'nearest' });
}

function renderBurnDown() {
  const id = state.selectedGrant;
  const burn = id === null ? null : state.session.ledger.burnDown(id);
  if (id !== null && burn === null) state.selectedGrant = null;
  $('burn-panel').hidden = burn === null;
  $('burn-empty').hidden = burn !== null;
  if (burn === null) return;
  const drawn = burn.draws.reduce((sum, d) => sum + d.amount, 0);
  const events = new Set(burn.draws.map((d) => d.eventId)).size;
  const left = burn.amount - drawn;
  $('burn-summary').innerHTML =
    `<b>${escape(burn.grantId)}</b>: ${formatNumber(burn.amount)} credits valid t = ${formatNumber(burn.startTime)}…${formatNumber(burn.endTime)}; ` +
    `${formatNumber(drawn)} drawn by ${formatNumber(events)} consumption${events === 1 ? '' : 's'}, ${formatNumber(left)} left ${left > 0 ? `(expires unused after t = ${formatNumber(burn.endTime)})` : ''}`.trim() + '.';
  renderBurnChart(burn);
  const rows = burn.draws.slice(0, TABLE_LIMIT).map(
    (d) => `<tr><td>${formatNumber(d.timestamp)}</td><td>${escape(d.eventId)}</td><td>${formatNumber(d.amount)}</td></tr>`,
  );
  if (rows.length === 0) rows.push('<tr><td colspan="3" class="draws__none">No draws yet</td></tr>');
  $('burn-draws').tBodies[0].innerHTML = rows.join('');
  $('burn-draws-note').textContent = burn.draws.length > TABLE_LIMIT ? `First ${TABLE_LIMIT} of ${formatNumber(burn.draws.length)} draws.` : '';
  $('grant-end').value = burn.endTime;
  $('burn-card').dataset.grantId = burn.grantId;
}

let burnShown = null;
function renderBurnChart(burn = burnShown) {
  burnShown = burn;
  const box = $('burn-chart');
  if (!burn || $('burn-panel').hidden) return;
  box.replaceChildren(burnDownChart(burn, Math.max(240, box.clientWidth)));
}

$('grant-select').addEventListener('change', (/** @type {any} */ event) => selectGrant(event.target.value));

function grantChange(call) {
  const entry = runCall(call);
  const error = $('burn-error');
  if (entry.outcome === 'error') {
    error.textContent = `${entry.error.message}${entry.error.code ? ` (${entry.error.code})` : ''}`;
  } else if (entry.outcome === 'refused') {
    error.textContent = `Refused: it would leave ${entry.blockingEventId} unfunded. Nothing changed.`;
  } else {
    error.textContent = '';
  }
  if (call.op === 'voidGrant' && entry.outcome === 'applied') {
    $('burn-empty').textContent = `${call.grantId} was voided. Click another grant bar, or choose one here.`;
  }
}

$('void-grant-button').addEventListener('click', () => {
  if (state.selectedGrant !== null) grantChange({ op: 'voidGrant', grantId: state.selectedGrant });
});
$('grant-end-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (state.selectedGrant === null) return;
  const text = $('grant-end').value.trim();
  const n = Number(text);
  // As the forms do: numbers as numbers, anything else as typed, so the ledger's validation speaks.
  grantChange({ op: 'setGrantEnd', grantId: state.selectedGrant, endTime: text === '' ? undefined : Number.isNaN(n) ? text : n });
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
  const threshold = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(threshold) || threshold < 1) {
    out.textContent = 'a whole number of credits, at least 1';
    out.classList.add('is-bad');
    return;
  }
  const t = state.cursor;
  const at = state.session.ledger.nextBelow(threshold, t);
  if (at !== null) out.dataset.at = String(at);
  out.classList.toggle('is-warn', at !== null);
  out.textContent =
    at === null
      ? `never from t = ${formatNumber(t)} on`
      : at === t
        ? `already below at t = ${formatNumber(t)}`
        : `first at t = ${formatNumber(at)}, ${formatNumber(at - t)} after the cursor`;
}
$('alert-threshold').addEventListener('input', updateAlert);
$('alert-form').addEventListener('submit', (event) => event.preventDefault());

// --- scenarios: presets, reset, import/export, URL hash

for (const button of document.querySelectorAll('button[data-preset]')) {
  button.addEventListener('click', () => loadScenario({ preset: { name: /** @type {HTMLElement} */ (button).dataset.preset } }));
}

$('random-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('random-seed').value.trim();
  const seed = /^\d{1,9}$/.test(text) ? Number(text) : 1;
  $('random-seed').value = seed;
  loadScenario({ preset: { name: 'random', seed, ...RANDOM_DEFAULTS } });
});

$('reset-button').addEventListener('click', () => loadScenario());

$('export-button').addEventListener('click', () => {
  const ops = [...presetOps(state.preset), ...state.session.ops];
  const blob = new Blob([toJson({ ops, cursor: state.cursor })], { type: 'application/json' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = 'gpu-credit-ledger-scenario.json';
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
});

function importText(text) {
  $('scenario-error').textContent = '';
  try {
    loadScenario(fromJson(text));
  } catch (error) {
    $('scenario-error').textContent = `Could not import: ${error.message}`;
  }
}

$('import-file').addEventListener('change', async (/** @type {any} */ event) => {
  const [file] = event.target.files;
  if (file) importText(await file.text());
  event.target.value = '';
});
$('import-text-button').addEventListener('click', () => importText($('import-text').value));

let hashTimer = 0;
let hashWrite = Promise.resolve();
function scheduleHashUpdate() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => {
    const { preset, session, cursor } = state;
    hashWrite = encodeHash({ preset, ops: session.ops, cursor }).then((hash) => {
      if (session !== state.session) return;
      history.replaceState(null, '', hash ? `#${hash}` : location.pathname + location.search);
    });
  }, 150);
}

$('copy-link-button').addEventListener('click', async () => {
  clearTimeout(hashTimer);
  const { preset, session, cursor } = state;
  await hashWrite;
  const hash = await encodeHash({ preset, ops: session.ops, cursor });
  history.replaceState(null, '', hash ? `#${hash}` : location.pathname + location.search);
  try {
    await navigator.clipboard.writeText(location.href);
    setStatus('Link copied: it replays this scenario.');
  } catch {
    setStatus('Copy the page address to share this scenario.');
  }
});

async function loadFromHash() {
  try {
    loadScenario((await decodeHash(location.hash)) ?? {});
  } catch (error) {
    loadScenario();
    setStatus(`The scenario in this link could not be read (${error.message}); starting empty.`);
  }
}
window.addEventListener('hashchange', loadFromHash);

// --- cursor and view

$('cursor-range').addEventListener('input', (/** @type {any} */ event) => setCursor(Number(event.target.value)));
$('cursor-time').addEventListener('input', (/** @type {any} */ event) => {
  const t = Number(event.target.value);
  if (event.target.value !== '' && Number.isSafeInteger(t) && t >= 0) setCursor(t);
});

const stack = $('chart-stack');
function cursorFromPointer(event) {
  const svg = stack.querySelector('svg');
  if (!svg || !state.xScale) return;
  const x = event.clientX - svg.getBoundingClientRect().left;
  const [from, to] = state.domain;
  const t = Math.floor(state.xScale.invert(x));
  setCursor(Math.min(to - 1, Number.MAX_SAFE_INTEGER, Math.max(from, t)));
}
// Captured before Plot sees it: a press moves the cursor instead of pinning a tip.
/** Where a press began and on which grant bar, if any: a press and release in place on a bar opens its burn-down. */
let press = null;
stack.addEventListener(
  'pointerdown',
  (event) => {
    if (event.button !== 0) return;
    event.stopPropagation();
    const bar = /** @type {any} */ (event.target).closest?.('rect[data-grant-id]');
    press = { grantId: bar?.dataset.grantId ?? null, x: event.clientX, y: event.clientY };
    stack.setPointerCapture(event.pointerId);
    stack.classList.add('dragging');
    cursorFromPointer(event);
  },
  { capture: true },
);
stack.addEventListener('pointermove', (event) => {
  if (stack.hasPointerCapture(event.pointerId)) cursorFromPointer(event);
});
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

function setView(from, to) {
  const [fullFrom, fullTo] = fullDomain(state.session);
  from = Math.max(0, Math.floor(from));
  to = Math.ceil(to);
  if (!(to - from >= 2)) return;
  state.view = from <= fullFrom && to >= fullTo ? null : [from, to];
  renderCharts();
}

$('view-form').addEventListener('submit', (event) => {
  event.preventDefault();
  setView(Number($('view-from').value), Number($('view-to').value) + 1);
});
for (const id of ['view-from', 'view-to']) {
  $(id).addEventListener('change', () => setView(Number($('view-from').value), Number($('view-to').value) + 1));
}
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
  renderCharts();
});

new ResizeObserver(([entry]) => {
  if (state.session && Math.abs(entry.contentRect.width - state.width) >= 1) {
    requestAnimationFrame(() => {
      renderCharts();
      renderBurnChart();
    });
  }
}).observe(stack);

await loadFromHash();
