// Finalize before t: ledger.compact(horizon) makes everything before the horizon final;
// the charts shade the final part, and calls that need it are refused (BEFORE_HORIZON).
import { $, on, runCall, state } from '../app.js';
import { formatNumber } from '../charts.js';
import { typedNumber } from '../forms.js';
import { droppedText } from '../log-view.js';

const shade = $('horizon-shade');

$('finalize-form').addEventListener('submit', (event) => {
  event.preventDefault();
  // As the forms read numbers: 0b101 or a decimal a double would round goes as typed, so the ledger's validation speaks.
  const entry = runCall({ op: 'compact', horizon: typedNumber($('finalize-time').value) });
  const error = $('finalize-error');
  const result = $('finalize-result');
  if (entry.outcome === 'error') {
    error.textContent = `${entry.error.message}${entry.error.code ? ` (${entry.error.code})` : ''}`;
    return;
  }
  error.textContent = '';
  result.innerHTML = entry.dropped
    ? droppedText(entry.call.horizon, entry.dropped)
    : `${entry.note[0].toUpperCase()}${entry.note.slice(1)}.`;
});

/** Shades the charts before the horizon (the part that is final), up to the cursor line's height. */
function placeShade() {
  const horizon = state.session.horizon;
  const [from, to] = state.domain;
  shade.hidden = !(horizon > from) || !state.xScale;
  if (shade.hidden) return;
  const left = state.xScale.apply(from);
  const right = state.xScale.apply(Math.min(horizon, to));
  shade.style.left = `${left}px`;
  shade.style.width = `${right - left}px`;
  $('horizon-label').textContent = `final before t = ${formatNumber(horizon)}`;
}

on('view', placeShade);
on('load', () => {
  $('finalize-error').textContent = '';
  $('finalize-result').textContent = '';
});
on('render', () => {
  const horizon = state.session.horizon;
  if ($('finalize-time').value === '' && horizon > 0) $('finalize-time').value = horizon;
});
