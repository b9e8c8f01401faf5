// The pending queue: submit queues what cannot be funded, credit added lets it in.
import { expect, logCount, logEntry, open, pendingIds, setCursor, stats, submit, test } from './fixtures.js';

test('a queued consumption is let in by a top-up grant, logged, and the queue empties', async ({ page }) => {
  await open(page, 'preset=seed1');
  await page.check('#consume-queue');
  await expect(page.locator('#consume-button')).toHaveText('Consume or queue');
  await submit(page, 'consume', { eventId: 'c4', amount: 30, timestamp: 12 });
  let entry = await logEntry(page, 'submit', 'c4');
  expect(entry.outcome).toBe('queued');
  expect(await pendingIds(page)).toEqual(['c4']);
  expect((await stats(page)).queued).toBe(1);

  await submit(page, 'grant', { grantId: 'g3', amount: 30, startTime: 12, endTime: 20 });
  entry = await logEntry(page, 'acceptPending', 'c4');
  expect(entry.outcome).toBe('accepted');
  expect(entry.text).toMatch(/accepted after the new grant g3/);
  expect(entry.text).toMatch(/Funded by g2 \(10\), g3 \(20\)/);
  expect(await pendingIds(page)).toEqual([]);
  expect(await stats(page)).toMatchObject({ queued: 0, accepted: 3 });
  expect(await setCursor(page, 12)).toBe('10');
});

test('cancelling a queued consumption removes it and logs one entry', async ({ page }) => {
  await open(page, 'preset=seed1&ops=s,c5,500,14');
  expect(await pendingIds(page)).toEqual(['c5']);
  const before = await logCount(page);
  await page.click('#pending-list button[data-cancel="c5"]');
  const entry = await logEntry(page, 'cancelPending', 'c5');
  expect(entry.outcome).toBe('cancelled');
  expect(entry.text).toMatch(/Dropped from the queue \(500 credits at t = 14\)/);
  expect(await pendingIds(page)).toEqual([]);
  expect(await logCount(page)).toBe(before + 1);
  await expect(page.locator('#pending-empty')).toBeVisible();
});
