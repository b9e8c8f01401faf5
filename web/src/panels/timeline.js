// The timeline: one bar per grant over its window (drawn part dark), and the draws
// (accepted, rejected, queued) as markers underneath, on the balance chart's x scale.
import { $, on, state } from '../app.js';
import { timelineCharts } from '../charts.js';

/** Outlines the selected grant's bar (a class, no redraw needed). */
function markSelectedBar() {
  const root = $('timeline');
  for (const rect of root.querySelectorAll('rect.is-selected')) rect.classList.remove('is-selected');
  if (state.selectedGrant === null) return;
  for (const rect of root.querySelectorAll('rect[data-grant-id]')) {
    if (rect.dataset.grantId === state.selectedGrant) rect.classList.add('is-selected');
  }
}

on('view', () => {
  const { charts, caption } = timelineCharts(state.session, state.domain, Math.max(280, state.width));
  $('timeline').replaceChildren(...charts);
  $('timeline-caption').textContent = caption;
  markSelectedBar();
});
on('selection', markSelectedBar);

/** The grant whose bar is under a pointer event, if any (the cursor panel asks on a press). */
state.grantAt = (event) => event.target.closest?.('rect[data-grant-id]')?.dataset.grantId ?? null;
