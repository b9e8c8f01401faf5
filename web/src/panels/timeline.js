// The timeline: one bar per grant over its window (drawn part dark), and the draws
// (accepted, rejected, queued) as markers underneath, on the balance chart's x scale.
import { $, marksFor, on, state } from '../app.js';
import { timelineCharts } from '../charts.js';

const box = $('timeline');

on('view', () => {
  const { charts, caption } = timelineCharts(state.session, state.domain, Math.max(280, state.width), {
    marks: marksFor(state.session),
    selected: state.selectedGrant,
  });
  // A chart whose axes did not change comes back as the same element, repainted.
  if (charts.some((chart, i) => box.children[i] !== chart)) box.replaceChildren(...charts);
  $('timeline-caption').textContent = caption;
});
// Outlines the chosen grant's bar: a repaint of the bars, not a new plot.
on('selection', () => box.firstElementChild?.select(state.selectedGrant));

/** The grant whose bar is under a pointer event, if any (the cursor panel asks on a press). */
state.grantAt = (event) => {
  const chart = box.firstElementChild;
  if (!chart?.contains(event.target)) return null;
  const { left, top } = chart.getBoundingClientRect();
  return chart.grantAt(event.clientX - left, event.clientY - top);
};
