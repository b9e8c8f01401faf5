// The grant burn-down panel and the grant lifecycle calls it makes (voidGrant, setGrantEnd).
import { expect, logEntry, open, pixelAt, rowCentre, setCursor, test, tickCentre } from './fixtures.js';

// Seed example 1, c4 queued then let in by g3, c5 left in the queue.
const SCENARIO = 'preset=seed1&ops=s,c4,30,12;g,g3,30,12,20;s,c5,500,14&t=6';
const drawRows = (page) => page.$$eval('#burn-draws tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent).join(' ')));

test('clicking a grant bar opens its burn-down; void and early end are refused, naming the draw', async ({ page }) => {
  await open(page, SCENARIO, '?marks=canvas'); // the outline is read from the canvas
  await expect(page.locator('#burn-panel')).toBeHidden();
  // g1 is valid on 0..10: click its bar at t = 2.
  await page.mouse.click((await tickCentre(page, '#timeline', '2')) + 5, await rowCentre(page, 'g1'));
  await expect(page.locator('#burn-panel')).toBeVisible();
  expect(await drawRows(page)).toEqual(['6 c1 80']);
  await expect(page.locator('#burn-summary')).toContainText('g1: 100 credits valid t = 0…10; 80 drawn by 1 consumption, 20 left');
  expect(((await page.getAttribute('#burn-chart svg g.burn-curve path', 'd')) ?? '').length).toBeGreaterThan(10);
  await expect(page.locator('#grant-select')).toHaveValue('g1');
  // The chosen bar is outlined (amber): at its start edge (t = 0), not inside it (t = 4).
  const amber = (p) => p !== null && p[3] > 200 && Math.abs(p[0] - 0xf5) < 24 && Math.abs(p[1] - 0x9e) < 24 && Math.abs(p[2] - 0x0b) < 24;
  const amberNear = async (x, y) => {
    for (let dx = -2; dx <= 2; dx++) if (amber(await pixelAt(page, x + dx, y))) return true;
    return false;
  };
  const g1 = await rowCentre(page, 'g1');
  expect(await amberNear(await tickCentre(page, '#timeline', '0'), g1)).toBe(true);
  expect(await amberNear(await tickCentre(page, '#timeline', '4'), g1)).toBe(false);

  await page.click('#void-grant-button');
  let entry = await logEntry(page, 'voidGrant', 'g1');
  expect(entry.outcome).toBe('refused');
  expect(entry.text).toMatch(/would leave c1 unfunded \(80 credits at t = 6\)/);
  await expect(page.locator('#burn-error')).toContainText('would leave c1 unfunded');
  await page.fill('#grant-end', '5');
  await page.press('#grant-end', 'Enter');
  entry = await logEntry(page, 'setGrantEnd', 'g1');
  expect(entry.outcome).toBe('refused');
  expect(entry.text).toMatch(/would leave c1 unfunded/);
  // Read as the forms read numbers: 0x10 is not 16, nor is a decimal a double would round.
  for (const text of ['0x10', '4503599627370496.5']) {
    await page.fill('#grant-end', text);
    await page.press('#grant-end', 'Enter');
    await expect(page.locator('#burn-error')).toContainText('setGrantEnd: endTime');
    await expect(page.locator('#burn-summary')).toContainText('g1: 100 credits valid t = 0…10');
  }
  expect(await setCursor(page, 6)).toBe('70');
});

test('clicking outside any bar moves the cursor but opens nothing', async ({ page }) => {
  await open(page, SCENARIO);
  // g1's row at t = 13 is after g1 ends: no bar there.
  await page.mouse.click((await tickCentre(page, '#timeline', '12')) + 5, await rowCentre(page, 'g1'));
  await expect(page.locator('#cursor-time')).toHaveValue('12');
  await expect(page.locator('#burn-panel')).toBeHidden();
});

test('extending a grant chosen in the list moves a draw onto the grant that now ends first', async ({ page }) => {
  await open(page, SCENARIO);
  await page.selectOption('#grant-select', 'g2');
  await expect(page.locator('#burn-card')).toHaveAttribute('data-grant-id', 'g2');
  expect(await drawRows(page)).toEqual(['11 c3 40', '12 c4 10']);
  await page.fill('#grant-end', '25');
  await page.press('#grant-end', 'Enter');
  const entry = await logEntry(page, 'setGrantEnd', 'g2');
  expect(entry.outcome).toBe('applied');
  expect(entry.text).toMatch(/Extended: valid until t = 25, was 15/);
  // g3 (ends 20) now expires before g2 (ends 25): earliest expiry first takes all of c4 from g3.
  expect(entry.text).toMatch(/Moved the funding of c4 \(t = 12\) now g3 30, was g2 10 \+ g3 20/);
  expect(await drawRows(page)).toEqual(['11 c3 40']);
  // The queued c5 (500 at t = 14) is retried after the extension, and still cannot be funded.
  await expect(page.locator('#pending-list li[data-id="c5"]')).toHaveCount(1);
});

test('low-balance alert: the first time the balance drops below a threshold', async ({ page }) => {
  await open(page, SCENARIO);
  await page.fill('#alert-threshold', '50');
  await setCursor(page, 0);
  await expect(page.locator('#alert-readout')).toHaveAttribute('data-at', '11');
  await expect(page.locator('#alert-readout')).toHaveText('first at t = 11, 11 after the cursor');
  await page.fill('#alert-threshold', '0');
  await expect(page.locator('#alert-readout')).toHaveText('a whole number of credits, at least 1');
  await page.fill('#alert-threshold', '1');
  await setCursor(page, 0);
  // Whatever time it names, the balance is below 1 there and not just before.
  const at = Number(await page.getAttribute('#alert-readout', 'data-at'));
  expect(await setCursor(page, at)).toBe('0');
  expect(Number(await setCursor(page, at - 1))).toBeGreaterThanOrEqual(1);
});
