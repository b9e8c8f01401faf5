// What the page shows is what the package did: the call as made (consume, not the
// tryConsume asked for a rejection's reason), the library's message exactly, numbers as
// typed, the same log after a reload, imports refused as the package refuses them, and the
// hover tip on a narrow screen.
import { expect, logEntry, open, setCursor, stats, submit, test } from './fixtures.js';

test('a consumption is logged as the consume call it was, and its error is the library message exactly', async ({ page }) => {
  await open(page, 'preset=seed1');
  await submit(page, 'consume', { eventId: 'c9', amount: 5, timestamp: 7 });
  const entry = await logEntry(page, 'consume', 'c9');
  expect(entry.outcome).toBe('accepted');
  expect(entry.text).toContain('consume("c9", 5, 7)');
  expect(entry.text).not.toContain('tryConsume');
  await submit(page, 'consume', { eventId: 'c10', amount: 5, timestamp: -1 });
  await expect(page.locator('#consume-timestamp-error')).toHaveText('consume: timestamp must be an integer in [0, 2^53 - 1], got -1');
  await submit(page, 'grant', { grantId: 'g1', amount: 7, startTime: 0, endTime: 1 });
  await expect(page.locator('#grant-grantId-error')).toHaveText(/^addGrant: grant "g1" already exists with different parameters$/);
  await expect(page.locator('#grant-grantId-error')).toHaveAttribute('data-code', 'DUPLICATE_ID');
});

test('numbers go to the ledger as typed: no hexadecimal, no rounding of a decimal to an integer', async ({ page }) => {
  await open(page);
  for (const amount of ['0x10', '1.0000000000000001']) {
    await submit(page, 'grant', { grantId: 'g1', amount, startTime: 0, endTime: 5 });
    await expect(page.locator('#grant-amount-error')).toHaveText(/^addGrant: amount must be a number/);
  }
  expect((await stats(page)).grants).toBe(0);
  await submit(page, 'grant', { grantId: 'g1', amount: '1e3', startTime: 0, endTime: 5 });
  expect(await setCursor(page, 2)).toBe('1000');
});

test('a link shows the log its page showed: a late grant moves a draw, and the reload says so too', async ({ page }) => {
  await open(page);
  await submit(page, 'grant', { grantId: 'long', amount: 10, startTime: 0, endTime: 100 });
  await submit(page, 'consume', { eventId: 'c', amount: 5, timestamp: 10 });
  await submit(page, 'grant', { grantId: 'short', amount: 5, startTime: 0, endTime: 20 });
  const before = [(await logEntry(page, 'consume', 'c')).text, (await logEntry(page, 'addGrant', 'short')).text];
  expect(before[0]).toMatch(/Funded by long \(5\)\./);
  expect(before[1]).toMatch(/short/);
  await page.waitForFunction(() => location.hash.includes('g,short'));
  await page.reload();
  await page.waitForSelector('body[data-renders]');
  expect([(await logEntry(page, 'consume', 'c')).text, (await logEntry(page, 'addGrant', 'short')).text]).toEqual(before);
});

test('an import the package would refuse is refused, and the page keeps what it shows', async ({ page }) => {
  await open(page, 'preset=seed1');
  const shown = await stats(page);
  await page.waitForFunction(() => location.hash.includes('&t='));
  const hash = await page.evaluate(() => location.hash);
  await page.click('.paste summary');
  await page.fill('#import-text', JSON.stringify({ calls: [{ op: 'addGrant', grantId: 'z', amount: -3, startTime: 0, endTime: 1 }] }));
  await page.click('#import-text-button');
  await expect(page.locator('#scenario-error')).toHaveText(
    'Could not import: calls[0] (addGrant) is refused by the ledger: addGrant: amount must be an integer in [1, 2^53 - 1], got -3',
  );
  const snapshot = {
    format: 'gpu-credit-ledger',
    version: 2,
    horizon: 0,
    grants: [{ grantId: 'g1', amount: 100, startTime: 0, endTime: 10 }],
    consumptions: [{ eventId: 'cz', amount: 999, timestamp: 6 }],
  };
  await page.fill('#import-text', JSON.stringify(snapshot));
  await page.click('#import-text-button');
  await expect(page.locator('#scenario-error')).toContainText('Could not import: fromJSON: consumptions[0] ("cz") cannot be funded');
  await page.fill('#import-text', JSON.stringify({ ...snapshot, version: 3, consumptions: [] }));
  await page.click('#import-text-button');
  await expect(page.locator('#scenario-error')).toContainText('Could not import: fromJSON: unknown version 3');
  expect(await stats(page)).toEqual(shown);
  expect(await page.evaluate(() => location.hash)).toBe(hash);
});

test('an id typed while a scenario loads is kept', async ({ page }) => {
  await open(page);
  await page.click('#random-button');
  await page.fill('#grant-grantId', 'typed-while-loading');
  await page.waitForSelector('body:not([data-loading])');
  await expect(page.locator('#grant-grantId')).toHaveValue('typed-while-loading');
  await submit(page, 'grant', { amount: 5, startTime: 0, endTime: 3 });
  expect((await logEntry(page, 'addGrant', 'typed-while-loading')).outcome).toBe('accepted');
  await expect(page.locator('#grant-grantId')).not.toHaveValue('typed-while-loading');
});

test('at 390 px the hover tip stays on the screen', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, 'preset=random&seed=1');
  await expect.poll(async () => (await stats(page)).grants, { timeout: 60_000 }).toBe(1000);
  const chart = page.locator('#balance-chart svg').first();
  await chart.scrollIntoViewIfNeeded();
  const box = await chart.boundingBox();
  for (const share of [0.3, 0.6, 0.95]) {
    await page.mouse.move(box.x + box.width * share, box.y + box.height * 0.6);
    const tip = page.locator('#chart-tip');
    await expect(tip).toBeVisible();
    const at = await tip.boundingBox();
    expect(at.x).toBeGreaterThanOrEqual(0);
    expect(at.x + at.width).toBeLessThanOrEqual(390);
  }
});
