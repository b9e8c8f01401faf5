// The page's shared state and the actions every panel may take. Panels import this
// module (never each other); they subscribe to the events below, and main.js imports
// them in drawing order. Events:
//   'load'      a new session was loaded (before the first 'render')
//   'render'    the ledger changed: every panel redraws what it shows
//   'view'      the time range or the chart width changed: the charts redraw
//   'cursor'    the cursor moved
//   'selection' the grant picked for the burn-down changed
//   'log'       a call was refused (the ledger is unchanged): only the log grows
//   'changed'   the scenario or the cursor changed: the page address follows ({ newEntry:
//               true } when the user opened another scenario: Back returns to this one)
//   'resize'    the page width changed (after the charts redrew)
import { GPULedger } from 'gpu-credit-ledger';
import { formatNumber, fullDomain } from './charts.js';
import { presetOps, SEED_PRESETS } from './scenario.js';
import { replayInWorker } from './replay-client.js';
import { LedgerSession } from './session.js';

/** The page's elements by id; typed loosely since panels only read what index.html declares. */
export const $ = (id) => /** @type {any} */ (document.getElementById(id));

/** At most this many rows in the burn-down draws table and the queue list. */
export const TABLE_LIMIT = 200;

const marksParam = new URLSearchParams(location.search).get('marks');

export const state = {
  /** @type {LedgerSession | null} */
  session: null,
  preset: null,
  cursor: 0,
  /** [from, to) chosen by the user, or null to fit everything */
  view: null,
  /** [from, to) the charts show now */
  domain: [0, 20],
  /** the charts' width in px, and their shared x scale (set by the balance panel) */
  width: 0,
  xScale: null,
  renders: 0,
  /** the grant whose burn-down panel is open */
  selectedGrant: null,
  /** ?marks=svg or ?marks=canvas in the address: how the charts draw their marks (marksFor), else null. */
  marks: ['svg', 'canvas'].includes(marksParam) ? marksParam : null,
  /** (pointer event) => the grant id of the bar under it, or null; set by the timeline panel */
  grantAt: null,
};

const listeners = new Map();

export function on(event, listener) {
  (listeners.get(event) ?? listeners.set(event, []).get(event)).push(listener);
}

export function emit(event, ...args) {
  for (const listener of listeners.get(event) ?? []) listener(...args);
}

export function setStatus(text) {
  $('status').textContent = text;
}

/** Marks (grants and draws) up to which the charts draw them as Plot SVG elements. */
export const SVG_MARKS_LIMIT = 2000;

/**
 * How the charts draw the session's marks: as Plot SVG marks (a bar per grant, a dot per
 * draw, the curve as a line and an area) while the ledger is small, and painted on a
 * canvas under Plot's SVG axes once it holds more than SVG_MARKS_LIMIT (the random preset:
 * 1,000 grants and 10,000 draws), where an element per mark made each redraw several
 * times slower. ?marks=svg or ?marks=canvas fixes one (to compare their speed).
 */
export function marksFor(session) {
  if (state.marks !== null) return state.marks;
  return session.grants.size + session.attempts.length <= SVG_MARKS_LIMIT ? 'svg' : 'canvas';
}

/** Redraws the charts for the current view (and the cursor on them). */
export function redrawCharts() {
  state.domain = state.view ?? fullDomain(state.session);
  state.width = $('chart-stack').clientWidth;
  emit('view');
  emit('cursor');
}

/** Redraws every panel; the time it took goes to body[data-render-ms] (the e2e tests read it). */
export function render() {
  const started = performance.now();
  redrawCharts();
  emit('render');
  const ms = performance.now() - started;
  document.body.dataset.renders = String(++state.renders);
  document.body.dataset.renderMs = ms.toFixed(1);
  return ms;
}

export function setCursor(t) {
  if (!Number.isSafeInteger(t) || t < 0) return;
  state.cursor = t;
  emit('cursor');
  emit('changed');
}

export function selectGrant(grantId, options = {}) {
  state.selectedGrant = grantId || null;
  emit('selection', options);
}

export function setView(from, to) {
  const [fullFrom, fullTo] = fullDomain(state.session);
  from = Math.max(0, Math.floor(from));
  to = Math.ceil(to);
  if (!(to - from >= 2)) return;
  state.view = from <= fullFrom && to >= fullTo ? null : [from, to];
  redrawCharts();
}

/** Counts loads, so that a slow load finishing after a newer one is dropped. */
let loads = 0;

/**
 * Replaces the session by a fresh ledger that replays the scenario: the preset's calls
 * (not recorded: the link names the preset) then the recorded calls. The random preset
 * (11,000 calls) is replayed in a worker, so the page stays responsive meanwhile.
 * `newEntry`: the user opened it on the page (a preset, reset, an import), so the page
 * address gets a history entry of its own; a load from the address itself replaces it.
 * @param {{ preset?: any, ops?: object[], cursor?: number }} [scenario]
 * @param {{ newEntry?: boolean }} [options]
 */
export async function loadScenario({ preset = null, ops = [], cursor } = {}, { newEntry = false } = {}) {
  const ticket = ++loads;
  const started = performance.now();
  emit('loading');
  let session;
  let where = '';
  if (preset?.name === 'random') {
    setStatus(`Replaying the random scenario (seed ${preset.seed}) in a worker…`);
    document.body.dataset.loading = 'true';
    try {
      session = await replayInWorker(preset);
      where = ' (in a worker)';
    } catch (error) {
      // The worker could not run (or its reply could not be loaded): replay here instead, as exact.
      console.info(`replay worker: ${error.message}; replaying on the page`);
      session = new LedgerSession(GPULedger);
      session.runAll(presetOps(preset), { record: false });
    } finally {
      if (ticket === loads) delete document.body.dataset.loading;
    }
    if (ticket !== loads) {
      session.dispose();
      return;
    }
  } else {
    session = new LedgerSession(GPULedger);
    session.runAll(presetOps(preset), { record: false });
  }
  // The calls made on the page, logged as they were then (funded by, moved draws): a link
  // shows the log its page showed.
  session.runAll(ops, { record: true, bulk: false });
  showSession(session, { preset, cursor, where, loadMs: performance.now() - started, newEntry });
}

/** Throws fromJSON's own error when the package would refuse `snapshot` (a document to load as calls). */
export function checkSnapshot(snapshot) {
  GPULedger.fromJSON(snapshot).dispose();
}

/** The first call of `ops` the ledger refuses with an error, replayed on a fresh ledger: { index, error } or null. */
export function firstFailure(ops) {
  const session = new LedgerSession(GPULedger);
  try {
    for (let i = 0; i < ops.length; i++) {
      const entry = session.run(ops[i], { record: true });
      if (entry.outcome === 'error') return { index: i, error: entry.error };
    }
    return null;
  } finally {
    session.dispose();
  }
}

/** Shows a session built elsewhere (a scenario replayed, or a snapshot loaded). */
export function showSession(session, { preset = null, cursor, where = '', loadMs, newEntry = false }) {
  state.session?.dispose();
  state.session = session;
  state.preset = preset;
  state.view = null;
  state.selectedGrant = null;
  const extent = session.extent();
  state.cursor = cursor ?? SEED_PRESETS[preset?.name]?.cursor ?? (extent ? Math.round((extent[0] + extent[1]) / 2) : 0);
  emit('load');
  const renderMs = render();
  if (session.log.length > 0) {
    const name = preset?.name === 'random' ? `Random scenario (seed ${preset.seed})` : (SEED_PRESETS[preset?.name]?.label ?? 'Scenario');
    setStatus(
      `${name}: ${formatNumber(session.log.length)} call${session.log.length === 1 ? '' : 's'} replayed${where} in ${loadMs.toFixed(0)} ms, drawn in ${renderMs.toFixed(0)} ms.`,
    );
  } else {
    setStatus('');
  }
  emit('changed', { newEntry });
}

/**
 * Runs one call on the session, redraws, and says what happened; returns the log entry.
 * An error (the ledger refused the input) redraws only the log: nothing else changed.
 */
export function runCall(call) {
  const started = performance.now();
  const entry = state.session.run(call);
  if (entry.outcome === 'error') {
    emit('log');
  } else {
    if (call.op === 'consume' || call.op === 'submit') state.cursor = call.timestamp;
    render();
    emit('changed');
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
