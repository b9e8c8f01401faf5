import { GPULedger } from 'gpu-credit-ledger';
import './style.css';
import { balanceChart, formatNumber, fullDomain, timelineCharts } from './charts.js';
import { clearErrors, readCall, showError } from './forms.js';
import { renderLog } from './log-view.js';
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
};

const domainNow = () => state.view ?? fullDomain(state.session);

function setStatus(text) {
  $('status').textContent = text;
}

function renderStats() {
  const { session } = state;
  const rejected = session.attempts.length - session.accepted.size;
  const items = [
    ['grants', session.ledger.grantCount],
    ['accepted', session.ledger.consumptionCount],
    ['rejected', rejected],
  ];
  $('stats').innerHTML = items.map(([label, n]) => `<div><dt>${label}</dt><dd>${formatNumber(n)}</dd></div>`).join('');
}

function renderCharts() {
  const { session } = state;
  state.domain = domainNow();
  state.width = $('chart-stack').clientWidth;
  const width = Math.max(280, state.width);
  const { charts, caption } = timelineCharts(session, state.domain, width);
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

// --- forms

function submitCall(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const started = performance.now();
  const entry = state.session.run(readCall(form));
  if (entry.outcome === 'error') {
    showError(form, entry.error);
    renderLog($('log'), $('log-note'), state.session);
    $('log-empty').hidden = true;
  } else {
    clearErrors(form);
    prefillIds();
    if (entry.call.op === 'consume') state.cursor = entry.call.timestamp;
    render();
    scheduleHashUpdate();
  }
  const ms = performance.now() - started;
  document.body.dataset.updateMs = ms.toFixed(1);
  setStatus(
    entry.outcome === 'error'
      ? `${entry.call.op} refused the input (${entry.error.name}); the ledger is unchanged.`
      : `${entry.call.op}: ${entry.outcome} · ledger call and redraw took ${ms.toFixed(1)} ms.`,
  );
}

grantForm.addEventListener('submit', submitCall);
consumeForm.addEventListener('submit', submitCall);

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
stack.addEventListener(
  'pointerdown',
  (event) => {
    if (event.button !== 0) return;
    event.stopPropagation();
    stack.setPointerCapture(event.pointerId);
    stack.classList.add('dragging');
    cursorFromPointer(event);
  },
  { capture: true },
);
stack.addEventListener('pointermove', (event) => {
  if (stack.hasPointerCapture(event.pointerId)) cursorFromPointer(event);
});
stack.addEventListener('pointerup', () => stack.classList.remove('dragging'));
stack.addEventListener('pointercancel', () => stack.classList.remove('dragging'));

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
  if (state.session && Math.abs(entry.contentRect.width - state.width) >= 1) requestAnimationFrame(renderCharts);
}).observe(stack);

await loadFromHash();
