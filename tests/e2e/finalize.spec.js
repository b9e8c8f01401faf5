// Finalize before t: ledger.compact(horizon) through the demo's control.
import { expect, logEntry, open, pendingIds, pixelAt, setCursor, stats, submit, test, tickCentre } from './fixtures.js';

// Seed example 1, a small grant g0 that ends at 3, q1 queued at t = 3 and q2 at t = 13.
const SCENARIO = 'preset=seed1&ops=g,g0,5,0,3;s,q1,500,3;s,q2,500,13&t=12';

async function finalize(page, t) {
  await page.fill('#finalize-time', String(t));
  await page.press('#finalize-time', 'Enter');
}

test('finalizing before t drops what ended and what came before, and says what', async ({ page }) => {
  await open(page, SCENARIO);
  expect(await stats(page)).toEqual({ grants: 3, accepted: 2, rejected: 1, queued: 2 });
  await finalize(page, 8);
  await expect(page.locator('#finalize-result')).toHaveText(
    'Final before t = 8: dropped 1 grant (g0), 1 consumption (c1) and 1 queued consumption (q1).',
  );
  const entry = await logEntry(page, 'compact', '');
  expect(entry.outcome).toBe('applied');
  expect(entry.text).toContain('compact(8)');
  // c2 (rejected at t = 11) and c3 (accepted at 11) are after the horizon: kept.
  expect(await stats(page)).toEqual({ grants: 2, accepted: 1, rejected: 1, queued: 1 });
  expect(await pendingIds(page)).toEqual(['q2']);
  // g1 (0…10, 80 of 100 drawn by c1 at t = 6) is carried across: 20 credits from t = 8.
  await page.selectOption('#grant-select', 'g1');
  await expect(page.locator('#burn-summary')).toContainText('g1: 20 credits valid t = 8…10; 0 drawn by 0 consumptions, 20 left');
  expect(await setCursor(page, 8)).toBe('70');
  expect(await setCursor(page, 12)).toBe('10');
  // The charts shade what is final.
  await expect(page.locator('#horizon-shade')).toBeVisible();
  await expect(page.locator('#horizon-label')).toHaveText('final before t = 8');
});

test('after finalizing, calls that need the past are refused inline and change nothing', async ({ page }) => {
  await open(page, `${SCENARIO.replace('&t=12', ';h,8&t=12')}`, '?marks=canvas'); // the curve is read from the canvas
  const before = await stats(page);
  await submit(page, 'consume', { eventId: 'c9', amount: 1, timestamp: 7 });
  // Beside the field at fault: the consumption's timestamp (a grant's start below).
  await expect(page.locator('#consume-timestamp-error')).toContainText('needs history before the finality horizon');
  await expect(page.locator('#consume-timestamp-error')).toHaveAttribute('data-code', 'BEFORE_HORIZON');
  await expect(page.locator('#consume-timestamp')).toHaveAttribute('aria-invalid', 'true');
  expect((await logEntry(page, 'consume', 'c9')).outcome).toBe('error');
  await submit(page, 'grant', { grantId: 'g5', amount: 10, startTime: 2, endTime: 20 });
  await expect(page.locator('#grant-startTime-error')).toHaveAttribute('data-code', 'BEFORE_HORIZON');
  expect(await stats(page)).toEqual(before);
  // Before the horizon the readouts say it is final instead of a balance.
  expect(await setCursor(page, 5)).toBe('');
  await expect(page.locator('#headroom-note')).toHaveText('t = 5 is before the horizon (t = 8): that past is final.');
  // The balance curve starts at the horizon: nothing is painted in the shaded part (the
  // balance was 100 at t = 7), while just after t = 8 the curve's line is.
  const canvas = await page.locator('#balance-chart canvas').boundingBox();
  const strongest = async (x) => {
    let alpha = 0;
    for (let y = canvas.y + 2; y < canvas.y + canvas.height - 2; y += 2) alpha = Math.max(alpha, (await pixelAt(page, x, y))?.[3] ?? 0);
    return alpha;
  };
  const shade = await page.locator('#horizon-shade').boundingBox();
  expect(shade.width).toBeGreaterThan(10);
  expect(await strongest(shade.x + shade.width / 2)).toBe(0);
  expect(await strongest((await tickCentre(page, '#balance-chart', '8')) + 4)).toBeGreaterThan(200);
  // A consumption at the horizon is fine.
  await submit(page, 'consume', { eventId: 'c9', amount: 5, timestamp: 8 });
  expect((await logEntry(page, 'consume', 'c9')).outcome).toBe('accepted');
});

test('the horizon only moves forward; a bad horizon is refused with the library message', async ({ page }) => {
  await open(page, `${SCENARIO.replace('&t=12', ';h,8&t=12')}`);
  const before = await stats(page);
  await finalize(page, 5);
  await expect(page.locator('#finalize-result')).toHaveText('The horizon is already t = 8: nothing changed.');
  await finalize(page, 'soon');
  await expect(page.locator('#finalize-error')).toContainText('compact: horizon');
  expect(await stats(page)).toEqual(before);
  // Read as the forms read numbers: not as 0b1010 = 10, nor rounded to 4503599627370496.
  for (const text of ['0b1010', '0x10', '4503599627370496.5']) {
    await finalize(page, text);
    await expect(page.locator('#finalize-error')).toContainText('compact: horizon');
    expect(await stats(page)).toEqual(before);
    await expect(page.locator('#horizon-label')).toHaveText('final before t = 8');
  }
  await expect(page.locator('#horizon-label')).toHaveText('final before t = 8');
  // The link replays the finalize: reloading gives the same ledger.
  await page.waitForFunction(() => location.hash.includes(';h,8;h,5'));
  await page.reload();
  await page.waitForSelector('body[data-renders]');
  expect(await stats(page)).toEqual(before);
  expect(await setCursor(page, 8)).toBe('70');
});
