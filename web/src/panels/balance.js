// The balance curve: the exact step function balanceCurve(from, to). Its x scale is
// the one every chart and the cursor use.
import { $, marksFor, on, state } from '../app.js';
import { balanceChart } from '../charts.js';

on('view', () => {
  const chart = balanceChart(state.session, state.domain, Math.max(280, state.width), { marks: marksFor(state.session) });
  const box = $('balance-chart');
  if (box.firstElementChild !== chart) box.replaceChildren(chart);
  state.xScale = chart.scale('x');
});
