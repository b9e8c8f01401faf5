// The two forms, the readouts at the cursor and the dry-run preview, on seed example 1.
import { expect, headroom, logCount, logEntry, open, setCursor, stats, submit, test } from './fixtures.js';

test('seed example 1 through the forms: outcomes, funding, balance and headroom', async ({ page }) => {
  await open(page);
  await expect(page.locator('#grant-grantId')).toHaveValue('g1');
  await expect(page.locator('#consume-eventId')).toHaveValue('c1');
  await submit(page, 'grant', { grantId: 'g1', amount: 100, startTime: 0, endTime: 10 });
  expect((await logEntry(page, 'addGrant', 'g1')).outcome).toBe('accepted');
  await expect(page.locator('#grant-grantId')).toHaveValue('g2');
  await submit(page, 'grant', { grantId: 'g2', amount: 50, startTime: 5, endTime: 15 });
  expect((await logEntry(page, 'addGrant', 'g2')).outcome).toBe('accepted');

  await submit(page, 'consume', { eventId: 'c1', amount: 80, timestamp: 6 });
  let entry = await logEntry(page, 'consume', 'c1');
  expect(entry.outcome).toBe('accepted');
  expect(entry.text).toMatch(/Funded by g1 \(80\)\./);
  expect(await setCursor(page, 6)).toBe('70');
  // headroom(6) is the most consume(_, x, 6) accepts now: 70 while nothing later relies on credit.
  expect(await headroom(page)).toBe('70');
  await expect(page.locator('#headroom-note')).toHaveText('');

  await submit(page, 'consume', { eventId: 'c2', amount: 60, timestamp: 11 });
  entry = await logEntry(page, 'consume', 'c2');
  expect(entry.outcome).toBe('rejected');
  expect(entry.text).toMatch(/Not enough credit valid at t = 11: 50 available, 60 needed/);
  await submit(page, 'consume', { eventId: 'c3', amount: 40, timestamp: 11 });
  entry = await logEntry(page, 'consume', 'c3');
  expect(entry.outcome).toBe('accepted');
  expect(entry.text).toMatch(/Funded by g2 \(40\)\./);
  expect(await setCursor(page, 11)).toBe('10');
  expect(await headroom(page)).toBe('10');
  // c3 (40 at t = 11) can only draw from g2, so 40 of the 70 credits at t = 6 are reserved for it.
  expect(await setCursor(page, 6)).toBe('70');
  expect(await headroom(page)).toBe('30');
  await expect(page.locator('#headroom-note')).toContainText('at most 30: later accepted consumptions reserve 40 of the 70 credits');
  await expect(page.locator('#consume-eventId')).toHaveValue('c4');
  expect(await stats(page)).toEqual({ grants: 2, accepted: 2, rejected: 1, queued: 0 });
});

test('a refused input shows the library message at the field, is logged, and changes nothing', async ({ page }) => {
  await open(page, 'preset=seed1');
  const before = await stats(page);
  const balance = await setCursor(page, 5);
  await submit(page, 'grant', { grantId: 'g3', amount: 1.5, startTime: 0, endTime: 10 });
  await expect(page.locator('#grant-amount-error')).toHaveText(/^addGrant: amount must be an integer in \[1, 2\^53 - 1\], got 1\.5/);
  await expect(page.locator('#grant-amount')).toHaveAttribute('aria-invalid', 'true');
  expect((await logEntry(page, 'addGrant', 'g3')).outcome).toBe('error');
  expect(await stats(page)).toEqual(before);
  expect(await setCursor(page, 5)).toBe(balance);
  // A good grant afterwards clears the message.
  await submit(page, 'grant', { grantId: 'g3', amount: 2, startTime: 0, endTime: 10 });
  await expect(page.locator('#grant-amount-error')).toHaveText('');
  expect((await stats(page)).grants).toBe(before.grants + 1);
});

test('preview (tryConsume with dryRun) says what Consume would do and changes nothing', async ({ page }) => {
  await open(page, 'preset=seed1');
  const logBefore = await logCount(page);
  await page.fill('#consume-amount', '40');
  await page.fill('#consume-timestamp', '3');
  await page.click('#preview-button');
  const preview = page.locator('#consume-preview');
  await expect(preview).toHaveAttribute('data-reason', 'WOULD_UNFUND');
  await expect(preview).toContainText('would leave c3 unfunded');
  await expect(preview).toContainText('Nothing was changed');
  await page.fill('#consume-amount', '5');
  await page.fill('#consume-timestamp', '11');
  await page.click('#preview-button');
  await expect(preview).toHaveAttribute('data-accepted', 'true');
  await expect(preview).toContainText(/would accept it, funded by g2\s\(5\)/);
  expect(await logCount(page)).toBe(logBefore);
  expect((await stats(page)).accepted).toBe(2);
  expect(await setCursor(page, 11)).toBe('10');

  await page.fill('#consume-amount', '40');
  await page.fill('#consume-timestamp', '3');
  await page.press('#consume-timestamp', 'Enter');
  const entry = await logEntry(page, 'consume', 'c4');
  expect(entry.outcome).toBe('rejected');
  expect(entry.text).toMatch(/would leave c3 unfunded \(40 credits at t = 11\)/);
});

test('a late grant that ends first re-routes an earlier draw, and the log says which moved', async ({ page }) => {
  await open(page, 'preset=seed1');
  // g0 ends at 7, before g1 (10): earliest expiry first now funds c1 (80 at t = 6) from g0.
  await submit(page, 'grant', { grantId: 'g0', amount: 100, startTime: 0, endTime: 7 });
  const entry = await logEntry(page, 'addGrant', 'g0');
  expect(entry.outcome).toBe('accepted');
  expect(entry.text).toMatch(/Moved the funding of c1 \(t = 6\) now g0 80, was g1 80\./);
  // c3 (t = 11) stays on g2: only what moved is listed.
  expect(entry.text).not.toMatch(/c3/);
  await page.selectOption('#grant-select', 'g1');
  await expect(page.locator('#burn-draws tbody tr')).toHaveText(['No draws yet']);
  // A backdated consumption at t = 1 takes g0 too (it ends first) and moves nothing.
  await submit(page, 'consume', { eventId: 'c4', amount: 10, timestamp: 1 });
  const backdated = await logEntry(page, 'consume', 'c4');
  expect(backdated.text).toMatch(/Funded by g0 \(10\)\.$/);
  // One more at t = 2 for 20 does not fit beside c1's 80 in g0 before t = 7: c1 spills onto g1.
  await submit(page, 'consume', { eventId: 'c5', amount: 20, timestamp: 2 });
  const spill = await logEntry(page, 'consume', 'c5');
  expect(spill.text).toMatch(/Funded by g0 \(20\)\. Moved the funding of c1 \(t = 6\) now g0 70 \+ g1 10, was g0 80\./);
});
