// Import, export and the page address: the scenario (preset + calls made since +
// cursor) is kept in location.hash, exported as JSON and imported from a file or text.
import { $, checkSnapshot, firstFailure, loadScenario, on, setStatus, state } from '../app.js';
import { decodeHash, encodeHash, fromJson, presetOps, toJson } from '../scenario.js';

let hashTimer = 0;
let hashWrite = Promise.resolve();
/** The next address written gets a history entry of its own (the user opened a scenario). */
let newEntry = false;

function writeHash(hash) {
  const url = hash ? `#${hash}` : location.pathname + location.search;
  // Back returns to the scenario shown before the user opened this one; edits within a
  // scenario (calls, the cursor) replace its entry rather than fill the history.
  if (newEntry && new URL(url, location.href).href !== location.href) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
  newEntry = false;
}

// Coalesced: dragging the cursor changes the scenario many times a second.
on('changed', (change) => {
  if (change?.newEntry) newEntry = true;
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => {
    const { preset, session, cursor } = state;
    hashWrite = encodeHash({ preset, ops: session.ops, cursor }).then((hash) => {
      if (session === state.session) writeHash(hash);
    });
  }, 150);
});

$('copy-link-button').addEventListener('click', async () => {
  clearTimeout(hashTimer);
  const { preset, session, cursor } = state;
  await hashWrite;
  writeHash(await encodeHash({ preset, ops: session.ops, cursor }));
  try {
    await navigator.clipboard.writeText(location.href);
    setStatus('Link copied: it replays this scenario.');
  } catch {
    setStatus('Copy the page address to share this scenario.');
  }
});

$('export-button').addEventListener('click', () => {
  const ops = [...presetOps(state.preset), ...state.session.ops];
  const blob = new Blob([toJson({ ops, cursor: state.cursor })], { type: 'application/json' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = 'gpu-credit-ledger-scenario.json';
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
});

function importText(text) {
  $('scenario-error').textContent = '';
  try {
    const scenario = fromJson(text);
    // A snapshot is what fromJSON would load, or it is refused as fromJSON refuses it.
    if (scenario.snapshot) checkSnapshot(scenario.snapshot);
    // Export writes only calls the ledger took: a file with one it refuses is not one, and
    // the page keeps what it shows rather than a log its link could not reproduce.
    const failed = firstFailure(scenario.ops);
    if (failed !== null) {
      const { op } = scenario.ops[failed.index];
      throw new Error(`calls[${failed.index}] (${op}) is refused by the ledger: ${failed.error.message}`);
    }
    loadScenario(scenario, { newEntry: true });
  } catch (error) {
    $('scenario-error').textContent = `Could not import: ${error.message}`;
  }
}

$('import-file').addEventListener('change', async (/** @type {any} */ event) => {
  const [file] = event.target.files;
  if (file) importText(await file.text());
  event.target.value = '';
});
$('import-text-button').addEventListener('click', () => importText($('import-text').value));

/** Loads the scenario the page address holds (or an empty ledger): on opening, Back and Forward. */
export async function loadFromHash() {
  try {
    await loadScenario((await decodeHash(location.hash)) ?? {});
  } catch (error) {
    await loadScenario();
    setStatus(`The scenario in this link could not be read (${error.message}); starting empty.`);
  }
}
window.addEventListener('hashchange', loadFromHash);
