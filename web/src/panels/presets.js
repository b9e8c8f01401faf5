// Presets: the two seed examples, the random generator and reset.
import { $, loadScenario } from '../app.js';
import { RANDOM_DEFAULTS } from '../scenario.js';

for (const button of document.querySelectorAll('button[data-preset]')) {
  button.addEventListener('click', () =>
    loadScenario({ preset: { name: /** @type {HTMLElement} */ (button).dataset.preset } }, { newEntry: true }),
  );
}

// A seed that is not a whole number (up to 9 digits) is refused beside the field, and the
// scenario on the page stays: it is not replaced by another seed's.
$('random-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = $('random-seed');
  const text = input.value.trim();
  if (!/^\d{1,9}$/.test(text)) {
    input.setAttribute('aria-invalid', 'true');
    $('random-seed-error').textContent = `seed must be a whole number from 0 to 999999999, got "${text}"`;
    input.focus();
    input.select();
    return;
  }
  input.removeAttribute('aria-invalid');
  $('random-seed-error').textContent = '';
  loadScenario({ preset: { name: 'random', seed: Number(text), ...RANDOM_DEFAULTS } }, { newEntry: true });
});

$('reset-button').addEventListener('click', () => loadScenario({}, { newEntry: true }));
