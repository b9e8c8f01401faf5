// The demo page: each panel is a module that subscribes to the app's events (app.js);
// they are imported in drawing order, since the charts' x scale (balance panel) is
// read by the cursor panel on the same event.
import './style.css';
import { emit, redrawCharts, state, $ } from './app.js';
import './panels/forms.js';
import './panels/timeline.js';
import './panels/balance.js';
import './panels/cursor.js';
import './panels/log.js';
import './panels/pending.js';
import './panels/finalize.js';
import './panels/burndown.js';
import './panels/presets.js';
import { loadFromHash } from './panels/share.js';

new ResizeObserver(([entry]) => {
  if (state.session && Math.abs(entry.contentRect.width - state.width) >= 1) {
    requestAnimationFrame(() => {
      redrawCharts();
      emit('resize');
    });
  }
}).observe($('chart-stack'));

await loadFromHash();
