// The random preset (1,000 grants, 10,000 consumptions, some late) and the cost of one
// more consumption on it: the ledger call plus the redraw, with the marks painted on
// canvases and, for comparison in the same run, as Plot SVG marks (?marks=svg).
import { readFile } from 'node:fs/promises';
import { expect, headroom, logEntry, open, screenshotSettled, setCursor, stats, test } from './fixtures.js';

const TIMES = [50_000, 60_000, 70_000, 80_000, 90_000, 55_000, 65_000, 75_000, 85_000];
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function loadRandom(page, query = '') {
  await open(page, 'preset=random&seed=1', query);
  await page.waitForSelector('#log li[data-id="c10000"], #log li[data-op="consume"]');
}

/** One consume per time on the loaded preset; returns what the page measured (body[data-update-ms]). */
async function consumeTimes(page) {
  const ms = [];
  for (const timestamp of TIMES) {
    const before = Number(await page.evaluate(() => document.body.dataset.renders));
    await page.fill('#consume-amount', '20');
    await page.fill('#consume-timestamp', String(timestamp));
    await page.press('#consume-timestamp', 'Enter');
    await page.waitForFunction((n) => Number(document.body.dataset.renders) > n, before);
    ms.push(Number(await page.evaluate(() => document.body.dataset.updateMs)));
  }
  return ms;
}

test('the random preset loads 1,000 grants and 10,000 consumptions, and opens a burn-down', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await loadRandom(page);
  const counts = await stats(page);
  expect(counts.grants).toBe(1000);
  expect(counts.accepted + counts.rejected).toBe(10_000);
  expect(counts.rejected).toBeGreaterThan(0);
  await expect(page.locator('#timeline-caption')).toContainText('1,000 of 1,000 grants in view, packed into');
  // 11,000 marks: painted on canvases under Plot's axes, not an SVG element each.
  await expect(page.locator('#timeline svg g.grant-bars rect')).toHaveCount(0);
  await expect(page.locator('#timeline canvas').first()).toBeAttached();
  // Headroom at the cursor is at most the balance there (later draws may reserve some).
  const balance = Number(await page.getAttribute('#balance-readout', 'data-value'));
  const room = Number(await headroom(page));
  expect(balance).toBeGreaterThan(0);
  expect(room).toBeGreaterThanOrEqual(0);
  expect(room).toBeLessThanOrEqual(balance);
  console.log(`  ${await page.textContent('#status')}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: testInfo.outputPath('random-desktop.png') });
  await page.selectOption('#grant-select', 'g500');
  await expect(page.locator('#burn-card')).toHaveAttribute('data-grant-id', 'g500');
  expect(await page.locator('#burn-draws tbody tr').count()).toBeGreaterThan(0);
  await page.locator('#burn-card').screenshot({ path: testInfo.outputPath('random-burn.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await screenshotSettled(page, '.charts', testInfo.outputPath('random-narrow-charts.png'));
});

test('one more consumption on the big ledger: timed with canvas marks and with SVG marks', async ({ page }) => {
  test.setTimeout(180_000);
  await loadRandom(page, '?marks=svg');
  const svg = await consumeTimes(page);
  await loadRandom(page);
  const canvas = await consumeTimes(page);
  const entry = await logEntry(page, 'consume', 'c10001');
  expect(['accepted', 'rejected']).toContain(entry.outcome);
  await page.waitForFunction(() => location.hash.startsWith('#preset=random&seed=1&ops=c,c10001,20,50000;c,c10002,20,60000'));
  console.log(
    `  one more consume on 1,000 grants / 10,000 draws (ledger call + redraw, in page), median of ${TIMES.length}: ` +
      `canvas ${median(canvas).toFixed(1)} ms [${canvas.join(', ')}], ` +
      `SVG marks ${median(svg).toFixed(1)} ms [${svg.join(', ')}]`,
  );
  // Not a timing test (the machine is shared): only a bound no working build comes near.
  expect(median(canvas)).toBeLessThan(2000);
});

test('the random preset replays in a worker: the page keeps answering meanwhile', async ({ page }) => {
  test.setTimeout(180_000);
  await open(page, 'preset=seed1');
  // A round trip to the page's thread while the worker replays 11,000 calls: the cursor
  // moves, and the readout and the loading flag are read in the same turn of the page, so
  // the answer is known to have come while the replay was still going. The replay takes
  // a few hundred ms; on a loaded machine it can end before the round trip starts, and
  // then the next seed is tried (at most five).
  for (let seed = 2; seed <= 6; seed++) {
    const renders = Number(await page.evaluate(() => document.body.dataset.renders));
    await page.fill('#random-seed', String(seed));
    await page.click('#random-button');
    const started = Date.now();
    const { value, loading, status } = await page.evaluate(() => {
      const input = /** @type {HTMLInputElement} */ (document.querySelector('#cursor-time'));
      input.value = '3';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      const readout = /** @type {HTMLElement} */ (document.querySelector('#balance-readout'));
      const status = document.querySelector('#status')?.textContent;
      return { value: readout.dataset.value, loading: document.body.dataset.loading, status };
    });
    const answered = Date.now() - started;
    await page.waitForFunction((n) => Number(document.body.dataset.renders) > n, renders, { timeout: 60_000 });
    await expect(page.locator('#status')).toContainText(`Random scenario (seed ${seed}): 11,000 calls replayed (in a worker) in`);
    expect(await page.evaluate(() => document.body.dataset.loading)).toBeUndefined();
    if (loading !== 'true') continue; // the replay had ended before the round trip
    expect(status).toBe(`Replaying the random scenario (seed ${seed}) in a worker…`);
    // The ledger on show meanwhile: seed example 1 (100 at t = 3), or the seed before.
    if (seed === 2) expect(value).toBe('100');
    else expect(Number(value)).toBeGreaterThanOrEqual(0);
    console.log(`  while the worker replayed, the page answered a cursor move in ${answered} ms; ${await page.textContent('#status')}`);
    expect(answered).toBeLessThan(5000);
    return;
  }
  throw new Error('in five tries the replay always ended before the page was asked');
});

test('a worker replay equals a replay on the page of the same calls', async ({ page }) => {
  test.setTimeout(180_000);
  await open(page, 'preset=random&seed=3');
  const times = [0, 20_000, 45_000, 70_000, 99_000];
  const read = async () => {
    const out = { stats: await stats(page), at: [] };
    for (const t of times) out.at.push([t, await setCursor(page, t), await headroom(page)]);
    await page.selectOption('#grant-select', 'g700');
    await expect(page.locator('#burn-card')).toHaveAttribute('data-grant-id', 'g700');
    out.burn = await page.$$eval('#burn-draws tbody tr', (rows) => rows.map((r) => r.textContent));
    out.rejected = await page.$$eval('#log li[data-outcome="rejected"]', (items) => items.map((li) => li.textContent.replace(/\s+/g, ' ')));
    // Zoomed in to where few grants are valid, each gets a row labelled with what was drawn from it.
    await page.fill('#view-from', '0');
    await page.fill('#view-to', '1500');
    await page.press('#view-to', 'Enter');
    await expect(page.locator('#timeline-caption')).not.toContainText('packed');
    out.rows = await page.$$eval('#timeline svg [aria-label="y-axis tick label"] text', (labels) => labels.map((t) => t.textContent));
    out.drawn = await page.$$eval('#timeline svg g.grant-overlay text', (labels) => labels.map((t) => t.textContent).sort());
    expect(out.drawn.length).toBeGreaterThan(0);
    await page.click('#zoom-fit');
    return out;
  };
  const inWorker = await read();
  expect(inWorker.stats.grants).toBe(1000);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-button')]);
  const exported = await readFile(await download.path());
  expect(JSON.parse(exported.toString()).calls).toHaveLength(11_000);
  const renders = Number(await page.evaluate(() => document.body.dataset.renders));
  // An import has no preset: its 11,000 calls replay on the page.
  await page.setInputFiles('#import-file', { name: 'random-3.json', mimeType: 'application/json', buffer: exported });
  await page.waitForFunction((n) => Number(document.body.dataset.renders) > n, renders, { timeout: 60_000 });
  await expect(page.locator('#status')).toContainText('Scenario: 11,000 calls replayed in');
  expect(await read()).toEqual(inWorker);
});
