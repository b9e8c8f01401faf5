// The event log and the counts in the masthead.
import { $, on, state } from '../app.js';
import { formatNumber } from '../charts.js';
import { renderLog } from '../log-view.js';

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

function renderEntries() {
  renderLog($('log'), $('log-note'), state.session);
  $('log-empty').hidden = state.session.log.length > 0;
}

on('render', () => {
  renderEntries();
  renderStats();
});
// A refused input is logged, and changes nothing else.
on('log', renderEntries);
