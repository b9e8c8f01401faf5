// Presets: the two seed examples, the random generator and reset.
import { $, loadScenario } from '../app.js';
import { RANDOM_DEFAULTS } from '../scenario.js';

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
