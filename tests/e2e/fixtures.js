// The demo's page fixture and the few helpers the browser tests share. Every test gets
// a fresh page; it fails if the page logs an error or a warning, throws, or gets an
// HTTP error.
import { test as base, expect } from '@playwright/test';

export { expect };

export const test = base.extend({
  page: async ({ page }, use) => {
    const problems = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
    });
    await use(page);
    expect(problems, 'console errors, page errors or HTTP errors').toEqual([]);
  },
});

/** Opens the demo (optionally with a scenario in the hash) and waits for its first render. */
export async function open(page, hash = '', query = '') {
  await page.goto(`./${query}${hash ? `#${hash}` : ''}`);
  await page.waitForSelector('body[data-renders]');
}

/** Fills a form's fields (ids `${form}-${name}`) and presses Enter in the last one. */
export async function submit(page, form, fields) {
  for (const [name, value] of Object.entries(fields)) await page.fill(`#${form}-${name}`, String(value));
  await page.press(`#${form}-${Object.keys(fields).at(-1)}`, 'Enter');
}

/** The newest log entry for an op and id: its outcome and its text on one line. */
export async function logEntry(page, op, id) {
  const entry = page.locator(`#log li[data-op="${op}"][data-id="${id}"]`).first();
  await entry.waitFor();
  return { outcome: await entry.getAttribute('data-outcome'), text: (await entry.innerText()).replace(/\s+/g, ' ') };
}

/** Moves the cursor by typing a time; returns the balance readout there. */
export async function setCursor(page, t) {
  await page.fill('#cursor-time', String(t));
  return page.getAttribute('#balance-readout', 'data-value');
}

export const headroom = (page) => page.getAttribute('#headroom-readout', 'data-value');
export const logCount = (page) => page.locator('#log li').count();
export const pendingIds = (page) => page.$$eval('#pending-list li[data-id]', (items) => items.map((li) => li.dataset.id));

/** The masthead counts: { grants, accepted, rejected, queued }. */
export const stats = (page) =>
  page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('#stats div')].map((d) => [
        d.querySelector('dt').textContent,
        Number(d.querySelector('dd').textContent.replaceAll(',', '')),
      ]),
    ),
  );

/** The on-screen centre of an x-axis tick label of a chart ('#timeline' or '#balance-chart'). */
export async function tickCentre(page, chart, label) {
  const tick = page.locator(`${chart} svg [aria-label="x-axis tick label"] text`, { hasText: new RegExp(`^${label}$`) }).first();
  const box = await tick.boundingBox();
  return box.x + box.width / 2;
}

/** The on-screen centre of a grant's row in the timeline (one labelled row per grant). */
export async function rowCentre(page, grantId) {
  const label = page.locator('#timeline svg [aria-label="y-axis tick label"] text', { hasText: new RegExp(`^${grantId}$`) }).first();
  const box = await label.boundingBox();
  return box.y + box.height / 2;
}

/** The colour [r, g, b, a] the timeline canvases show at a point on screen (canvas marks only). */
export const pixelAt = (page, x, y) =>
  page.evaluate(
    ([px, py]) => {
      for (const canvas of document.querySelectorAll('#chart-stack canvas')) {
        const box = canvas.getBoundingClientRect();
        if (px < box.left || px >= box.right || py < box.top || py >= box.bottom) continue;
        const scale = canvas.width / box.width;
        // Read through a copy made for reading, so the page's own canvas is never read back.
        const copy = document.createElement('canvas');
        copy.width = 1;
        copy.height = 1;
        const ctx = copy.getContext('2d', { willReadFrequently: true });
        ctx.drawImage(canvas, Math.floor((px - box.left) * scale), Math.floor((py - box.top) * scale), 1, 1, 0, 0, 1, 1);
        return [...ctx.getImageData(0, 0, 1, 1).data];
      }
      return null;
    },
    [x, y],
  );

/**
 * Screenshot of the element `selector` once its box has held still (the same box in three
 * samples 50 ms apart, read in the page with timers, not animation frames), as a clip of a
 * full-page screenshot. Fails after `timeout` ms with the boxes it saw: a box that keeps
 * moving is a finding, and Playwright's own element screenshot, which counts animation
 * frames, reported only a timeout when it once waited for 15 s (on a loaded machine).
 */
export async function screenshotSettled(page, selector, path, timeout = 20_000) {
  const { box, seen } = await page.evaluate(
    async ({ selector, timeout }) => {
      const element = document.querySelector(selector);
      const seen = [];
      const started = performance.now();
      let same = 0;
      let last = '';
      while (performance.now() - started < timeout) {
        const r = element.getBoundingClientRect();
        const key = [r.x + window.scrollX, r.y + window.scrollY, r.width, r.height].map((v) => v.toFixed(1)).join(',');
        if (key === last) same += 1;
        else {
          same = 0;
          last = key;
          seen.push(`${Math.round(performance.now() - started)} ms: ${key}`);
        }
        if (same === 2) return { box: { x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height }, seen };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { box: null, seen: seen.slice(-20) };
    },
    { selector, timeout },
  );
  expect(box, `${selector} did not hold still for ${timeout} ms; boxes seen (x, y, width, height):\n${seen.join('\n')}`).not.toBeNull();
  // A full-page screenshot of the big preset took over Playwright's 15 s on a loaded machine.
  await page.screenshot({ path, fullPage: true, clip: box, timeout: 60_000 });
}
