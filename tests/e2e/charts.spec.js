// The charts: a small ledger's marks as Plot SVG elements (one bar per grant, a dot per
// draw, the curve), a large one's painted on canvases under Plot's axes (checked here with
// ?marks=canvas, by the colours on screen), the cursor, the hover tip and the layout at
// 1280 and 390 px wide.
import { expect, open, pixelAt, rowCentre, test, tickCentre } from './fixtures.js';

const COLORS = { drawn: [0x43, 0x38, 0xca], remaining: [0xc7, 0xd2, 0xfe], accepted: [0x0f, 0x76, 0x6e], rejected: [0xdc, 0x26, 0x26] };
const near = (pixel, rgb) => pixel !== null && pixel[3] > 200 && rgb.every((c, i) => Math.abs(pixel[i] - c) <= 24);

/** The centre of a marker row ('accepted', 'rejected') in the draws chart. */
async function markerRow(page, row) {
  const label = page.locator('#timeline svg [aria-label="y-axis tick label"] text', { hasText: new RegExp(`^${row}$`) }).first();
  const box = await label.boundingBox();
  return box.y + box.height / 2;
}

test('canvas marks: grant bars drawn then left, markers filled when accepted, hollow when rejected', async ({ page }) => {
  await open(page, 'preset=seed1&t=0', '?marks=canvas');
  await expect(page.locator('#timeline .layered').first()).toHaveAttribute('data-bars', '2');
  await expect(page.locator('#timeline .layered').nth(1)).toHaveAttribute('data-markers', '3');
  const g1 = await rowCentre(page, 'g1');
  // g1: 100 credits on 0..10, 80 drawn: the first 80% of its bar is dark, the rest light.
  expect(near(await pixelAt(page, (await tickCentre(page, '#timeline', '2')) + 2, g1), COLORS.drawn)).toBe(true);
  expect(near(await pixelAt(page, (await tickCentre(page, '#timeline', '10')) + 4, g1), COLORS.remaining)).toBe(true);
  // Nothing before g2 starts (t = 5) on its row.
  const g2 = await rowCentre(page, 'g2');
  const empty = await pixelAt(page, (await tickCentre(page, '#timeline', '2')) + 2, g2);
  expect(empty === null || empty[3] === 0).toBe(true);

  const accepted = await markerRow(page, 'accepted');
  const rejected = await markerRow(page, 'rejected');
  // c1 accepted at t = 6: a filled dot. c2 rejected at t = 11: a red ring, empty inside.
  const x6 = await tickCentre(page, '#timeline', '6');
  expect(near(await pixelAt(page, x6, accepted), COLORS.accepted)).toBe(true);
  const x11 =
    (await tickCentre(page, '#timeline', '10')) +
    ((await tickCentre(page, '#timeline', '12')) - (await tickCentre(page, '#timeline', '10'))) / 2;
  const inside = await pixelAt(page, x11, rejected);
  expect(inside === null || inside[3] === 0).toBe(true);
  let ring = false;
  for (let dx = 2; dx <= 9 && !ring; dx++) ring = near(await pixelAt(page, x11 + dx, rejected), COLORS.rejected);
  expect(ring).toBe(true);
  await expect(page.locator('#timeline circle')).toHaveCount(0);
});

test('the balance curve is painted at the exact balance', async ({ page }) => {
  await open(page, 'preset=seed1&t=0', '?marks=canvas');
  // balance(t) = 100 on 0..4: the curve's line crosses t = 2 at the height of the "100" tick.
  const x = await tickCentre(page, '#balance-chart', '2');
  const tick = page.locator('#balance-chart svg [aria-label="y-axis tick label"] text', { hasText: /^100$/ });
  const box = await tick.boundingBox();
  const y = box.y + box.height / 2;
  let hit = false;
  for (let dy = -2; dy <= 2 && !hit; dy++) hit = near(await pixelAt(page, x, y + dy), COLORS.drawn);
  expect(hit).toBe(true);
  // And not at the height of the "50" tick there.
  const fifty = await page.locator('#balance-chart svg [aria-label="y-axis tick label"] text', { hasText: /^50$/ }).boundingBox();
  expect(near(await pixelAt(page, x, fifty.y + fifty.height / 2), COLORS.drawn)).toBe(false);
});

test('a small ledger is drawn as Plot SVG marks: a bar per grant, a dot per draw, the balance curve', async ({ page }) => {
  await open(page, 'preset=seed1');
  await expect(page.locator('#timeline svg g[aria-label="bar"] rect')).toHaveCount(2);
  await expect(page.locator('#timeline svg g.grant-bars rect')).toHaveCount(2);
  await expect(page.locator('#balance-chart svg g[aria-label="line"]')).toHaveCount(1);
  const fills = await page.$$eval('#timeline svg g.consumption-markers circle', (dots) => dots.map((c) => c.getAttribute('fill')));
  expect(fills).toHaveLength(3);
  expect(fills.filter((f) => f === 'none')).toHaveLength(1);
  expect(((await page.getAttribute('#balance-chart svg g.balance-curve path', 'd')) ?? '').length).toBeGreaterThan(10);
  // Clicking a bar works the same way: by position, not by element.
  await page.mouse.click((await tickCentre(page, '#timeline', '2')) + 5, await rowCentre(page, 'g1'));
  await expect(page.locator('#burn-card')).toHaveAttribute('data-grant-id', 'g1');
  await expect(page.locator('#timeline rect.is-selected[data-grant-id="g1"]')).toHaveCount(1);
});

test('clicking or dragging on the charts moves the cursor; hovering shows exact values', async ({ page }) => {
  await open(page, 'preset=seed1');
  const box = await page.locator('#balance-chart svg').boundingBox();
  const y = box.y + 60;
  await page.mouse.click((await tickCentre(page, '#balance-chart', '6')) + 3, y);
  await expect(page.locator('#cursor-time')).toHaveValue('6');
  await expect(page.locator('#balance-readout')).toHaveAttribute('data-value', '70');
  await page.mouse.move((await tickCentre(page, '#balance-chart', '2')) + 3, y);
  await page.mouse.down();
  await page.mouse.move((await tickCentre(page, '#balance-chart', '12')) + 3, y, { steps: 5 });
  await page.mouse.up();
  await expect(page.locator('#cursor-time')).toHaveValue('12');
  await expect(page.locator('#balance-readout')).toHaveAttribute('data-value', '10');
  await expect(page.locator('#cursor-line')).toBeVisible();

  await page.mouse.move((await tickCentre(page, '#balance-chart', '4')) + 3, y + 5);
  await expect(page.locator('#chart-tip')).toBeVisible();
  await expect(page.locator('#chart-tip')).toHaveText(/t = 4\s+balance 100\s+1 grant valid: g1/);
  await page.mouse.move((await tickCentre(page, '#timeline', '14')) + 3, await rowCentre(page, 'g2'));
  await expect(page.locator('#chart-tip')).toHaveText(/^g2\s+50 credits, valid t = 5…15\s+drawn 40, left 10/);
  // A draw marker: c1, accepted at t = 6.
  await page.mouse.move(await tickCentre(page, '#timeline', '6'), await markerRow(page, 'accepted'));
  await expect(page.locator('#chart-tip')).toHaveText(/^c1: 80 credits at t = 6\s+accepted, funded by g1 \(80\)$/);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height + 200);
  await expect(page.locator('#chart-tip')).toBeHidden();
});

test('zoom in, out and fit change the view and keep the cursor', async ({ page }) => {
  await open(page, 'preset=seed1&t=6');
  await expect(page.locator('#view-from')).toHaveValue('0');
  await expect(page.locator('#view-to')).toHaveValue('16');
  await page.click('#zoom-in');
  expect(Number(await page.inputValue('#view-to')) - Number(await page.inputValue('#view-from'))).toBeLessThan(16);
  await expect(page.locator('#cursor-time')).toHaveValue('6');
  await page.click('#zoom-fit');
  await expect(page.locator('#view-to')).toHaveValue('16');
  await page.fill('#view-from', '5');
  await page.fill('#view-to', '9');
  await page.press('#view-to', 'Enter');
  await expect(page.locator('#timeline-caption')).toHaveText('2 of 2 grants in view');
  await page.fill('#view-from', '12');
  await page.fill('#view-to', '14');
  await page.press('#view-to', 'Enter');
  await expect(page.locator('#timeline-caption')).toHaveText('1 of 2 grants in view');
  // A view that ends before it starts is marked and not applied.
  await page.fill('#view-from', '50');
  await page.fill('#view-to', '10');
  await page.press('#view-to', 'Enter');
  await expect(page.locator('#view-from')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#timeline-caption')).toHaveText('1 of 2 grants in view');
  // ... and said in words beside the fields; a valid view clears it.
  await expect(page.locator('#view-error')).toContainText('the view must start before it ends');
  await page.fill('#view-from', '2');
  await page.fill('#view-to', '2');
  await page.press('#view-to', 'Enter');
  await expect(page.locator('#view-error')).toContainText('the view must start before it ends (t 2 … 2)');
  await page.fill('#view-to', '9');
  await page.press('#view-to', 'Enter');
  await expect(page.locator('#view-error')).toHaveText('');
  await expect(page.locator('#view-from')).toHaveValue('2');
});

test('a cursor typed outside the view moves the view to it, and the line shows there', async ({ page }) => {
  await open(page, 'preset=seed1&t=6');
  await page.fill('#view-from', '0');
  await page.fill('#view-to', '8');
  await page.press('#view-to', 'Enter');
  await expect(page.locator('#view-to')).toHaveValue('8');
  await page.fill('#cursor-time', '30');
  await expect(page.locator('#cursor-line')).toBeVisible();
  const [from, to] = [Number(await page.inputValue('#view-from')), Number(await page.inputValue('#view-to'))];
  expect(from <= 30 && 30 <= to && to - from === 8).toBe(true);
  await expect(page.locator('#cursor-range')).toHaveValue('30');
});

test('a cursor time that is not a whole time is marked, moves nothing, and reverts when left, saying so', async ({ page }) => {
  await open(page, 'preset=seed1&t=6');
  for (const typed of ['-5', '1.5', '99999999999999999999']) {
    await page.fill('#cursor-time', typed);
    await expect(page.locator('#cursor-time')).toHaveAttribute('aria-invalid', 'true');
    await expect(page.locator('#balance-readout')).toHaveAttribute('data-value', '70');
  }
  await page.locator('#cursor-time').blur();
  await expect(page.locator('#cursor-time')).toHaveValue('6');
  await expect(page.locator('#cursor-time')).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#status')).toHaveText(
    '"99999999999999999999" is not a time: the cursor takes a whole number from 0 to 9,007,199,254,740,991; it stays at t = 6.',
  );
  await page.fill('#cursor-time', '12');
  await expect(page.locator('#balance-readout')).toHaveAttribute('data-value', '10');
});

for (const [name, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['narrow', { width: 390, height: 844 }],
]) {
  test(`layout at ${viewport.width} px: nothing overflows; screenshots kept`, async ({ page }, testInfo) => {
    await page.setViewportSize(viewport);
    await open(page, 'preset=seed1&ops=s,c4,30,12;g,g3,30,12,20;s,c5,500,14&t=6');
    await page.selectOption('#grant-select', 'g2');
    await expect(page.locator('#burn-panel')).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // The charts fit their card.
    const card = await page.locator('.charts').boundingBox();
    const chart = await page.locator('#balance-chart .layered').boundingBox();
    expect(chart.x + chart.width).toBeLessThanOrEqual(card.x + card.width);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: testInfo.outputPath(`${name}.png`) });
    await page.screenshot({ path: testInfo.outputPath(`${name}-full.png`), fullPage: true });
    await page.locator('.charts').screenshot({ path: testInfo.outputPath(`${name}-charts.png`) });
    await page.locator('#burn-card').screenshot({ path: testInfo.outputPath(`${name}-burn.png`) });
  });
}

test("a grant bar's dark part is the drawn share of the bar in view, zoomed or not", async ({ page }) => {
  // Seed example 1: g1 (0…10) and g2 (5…15) each have 80% of their credit drawn.
  await open(page, 'preset=seed1&t=6', '?marks=svg');
  // Each width as shown: the rect's span cut to the plot's frame (its clip path's rect).
  const shares = () =>
    page.evaluate(() => {
      const frame = document.querySelector('#timeline svg clipPath rect');
      const left = Number(frame.getAttribute('x'));
      const right = left + Number(frame.getAttribute('width'));
      const widths = (label) =>
        [...document.querySelectorAll(`#timeline svg g[aria-label="${label}"] rect`)].map((r) => {
          const x = Number(r.getAttribute('x'));
          return Math.min(x + Number(r.getAttribute('width')), right) - Math.max(x, left);
        });
      const bars = widths('bar');
      return widths('drawn part').map((w, i) => Math.round((100 * w) / bars[i]));
    });
  expect(await shares()).toEqual([80, 80]);
  await page.fill('#view-from', '3');
  await page.fill('#view-to', '6');
  await page.press('#view-to', 'Enter');
  await expect(page.locator('#view-from')).toHaveValue('3');
  expect(await shares()).toEqual([80, 80]);
});
