// The grant burn-down: one grant's draws and remaining credit over its window, with
// the grant picker and the two lifecycle changes (void, change end).
import { $, on, runCall, selectGrant, state, TABLE_LIMIT } from '../app.js';
import { burnDownChart, formatNumber } from '../charts.js';
import { typedNumber } from '../forms.js';
import { escape } from '../log-view.js';

const EMPTY_HINT = 'Click a grant bar in the timeline, or choose a grant here, to see its draws and remaining credit over time.';

/** Which session and grants version the picker lists: it is rebuilt only when grants come, go or change. */
let picker = { session: null, version: -1 };
/** The burn-down shown, redrawn at the new width when the page is resized. */
let shown = null;

function renderPicker() {
  const { session } = state;
  const select = $('grant-select');
  if (picker.session !== session || picker.version !== session.grantsVersion) {
    const options = ['<option value="">Choose a grant…</option>'];
    for (const g of session.grants.values()) {
      options.push(
        `<option value="${escape(g.grantId)}">${escape(g.grantId)} · ${formatNumber(g.amount)} credits · t = ${formatNumber(g.startTime)}…${formatNumber(g.endTime)}</option>`,
      );
    }
    select.innerHTML = options.join('');
    picker = { session, version: session.grantsVersion };
  }
  select.value = state.selectedGrant ?? '';
}

function renderChart() {
  const box = $('burn-chart');
  if (!shown || $('burn-panel').hidden) return;
  box.replaceChildren(burnDownChart(shown, Math.max(240, box.clientWidth)));
}

function renderBurnDown() {
  const id = state.selectedGrant;
  const burn = id === null ? null : state.session.ledger.burnDown(id);
  if (id !== null && burn === null) state.selectedGrant = null;
  $('burn-panel').hidden = burn === null;
  $('burn-empty').hidden = burn !== null;
  shown = burn;
  if (burn === null) return;
  const drawn = burn.draws.reduce((sum, d) => sum + d.amount, 0);
  const events = new Set(burn.draws.map((d) => d.eventId)).size;
  const left = burn.amount - drawn;
  $('burn-summary').innerHTML =
    `<b>${escape(burn.grantId)}</b>: ${formatNumber(burn.amount)} credits valid t = ${formatNumber(burn.startTime)}…${formatNumber(burn.endTime)}; ` +
    `${formatNumber(drawn)} drawn by ${formatNumber(events)} consumption${events === 1 ? '' : 's'}, ${formatNumber(left)} left ${left > 0 ? `(expires unused after t = ${formatNumber(burn.endTime)})` : ''}`.trim() +
    '.';
  renderChart();
  const rows = burn.draws
    .slice(0, TABLE_LIMIT)
    .map((d) => `<tr><td>${formatNumber(d.timestamp)}</td><td>${escape(d.eventId)}</td><td>${formatNumber(d.amount)}</td></tr>`);
  if (rows.length === 0) rows.push('<tr><td colspan="3" class="draws__none">No draws yet</td></tr>');
  $('burn-draws').tBodies[0].innerHTML = rows.join('');
  $('burn-draws-note').textContent =
    burn.draws.length > TABLE_LIMIT ? `First ${TABLE_LIMIT} of ${formatNumber(burn.draws.length)} draws.` : '';
  $('grant-end').value = burn.endTime;
  $('burn-card').dataset.grantId = burn.grantId;
}

function render() {
  renderPicker();
  renderBurnDown();
}

on('load', () => {
  $('burn-error').textContent = '';
  $('burn-empty').textContent = EMPTY_HINT;
});
on('render', render);
on('resize', renderChart);
on('selection', ({ scroll = false } = {}) => {
  $('burn-error').textContent = '';
  $('burn-empty').textContent = EMPTY_HINT;
  render();
  if (scroll && state.selectedGrant) $('burn-card').scrollIntoView({ block: 'nearest' });
});

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
  // As the forms read numbers: 0x10 or a decimal a double would round goes as typed, so the ledger's validation speaks.
  grantChange({ op: 'setGrantEnd', grantId: state.selectedGrant, endTime: typedNumber($('grant-end').value) });
});
