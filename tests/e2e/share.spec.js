// Presets, the scenario in the page address, JSON export and import.
import { readFile } from 'node:fs/promises';
import { expect, headroom, logEntry, open, pendingIds, setCursor, stats, submit, test } from './fixtures.js';

const balance = (page) => page.getAttribute('#balance-readout', 'data-value');

test('seed example 2: the late consumption blocks the earlier one; the seed outcomes are checked', async ({ page }) => {
  await open(page);
  await page.click('button[data-preset="seed2"]');
  const entry = await logEntry(page, 'consume', 'c_early');
  expect(entry.outcome).toBe('rejected');
  expect(entry.text).toMatch(/would leave c_late unfunded \(80 credits at t = 8\)/);
  expect(await balance(page)).toBe('20');
  expect(await headroom(page)).toBe('20');
  expect(await setCursor(page, 2)).toBe('100');
  expect(await headroom(page)).toBe('20');
  // Each seed call carries the outcome the example specifies; the log marks each one.
  await expect(page.locator('.expect--ok')).toHaveCount(3);
  await expect(page.locator('.expect--bad')).toHaveCount(0);
  await page.waitForFunction(() => location.hash.includes('preset=seed2'));
});

test('calls from every panel go into the link, and reloading it replays them', async ({ page }) => {
  await open(page, 'preset=seed1&ops=s,c4,30,12;g,g3,30,12,20;s,c5,500,14;v,g1;e,g1,5;e,g2,25;x,c5');
  const statsBefore = await stats(page);
  expect(statsBefore).toEqual({ grants: 3, accepted: 3, rejected: 1, queued: 0 });
  expect(await setCursor(page, 12)).toBe('10');
  await page.waitForFunction(() => /ops=s,c4,30,12;g,g3,30,12,20;s,c5,500,14;v,g1;e,g1,5;e,g2,25;x,c5&t=12$/.test(location.hash));
  await page.reload();
  await page.waitForSelector('#log li[data-op="cancelPending"]');
  expect(await stats(page)).toEqual(statsBefore);
  expect(await balance(page)).toBe('10');
  expect(await pendingIds(page)).toEqual([]);
  await expect(page.locator('#log li[data-op="acceptPending"][data-id="c4"]')).toHaveCount(1);
});

test('a shared link replays preset and extra calls; export, reset and paste round-trip it', async ({ page }) => {
  await open(page, 'preset=seed1&ops=g,g9,5,20,30&t=25');
  await page.waitForSelector('#log li[data-id="g9"]');
  expect(await balance(page)).toBe('5');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-button')]);
  const exported = await readFile(await download.path(), 'utf8');
  const doc = JSON.parse(exported);
  expect(doc.calls).toHaveLength(8);
  expect(doc.cursor).toBe(25);
  await page.click('#reset-button');
  await expect(page.locator('#log li')).toHaveCount(0);
  expect((await stats(page)).grants).toBe(0);
  await page.click('.paste summary');
  await page.fill('#import-text', exported);
  await page.click('#import-text-button');
  await expect(page.locator('#log li')).toHaveCount(8);
  expect(await balance(page)).toBe('5');
  await page.fill('#import-text', '{"calls": 3}');
  await page.click('#import-text-button');
  await expect(page.locator('#scenario-error')).toContainText('Could not import: expected an object with a "calls" array');
  expect(await balance(page)).toBe('5');
});

test("a pasted ledger snapshot (the package's toJSON, the service's GET .../ledger) replays as its calls", async ({ page }) => {
  await open(page);
  const snapshot = {
    format: 'gpu-credit-ledger',
    version: 2,
    horizon: 0,
    grants: [{ grantId: 'g1', amount: 100, startTime: 0, endTime: 10 }],
    consumptions: [{ eventId: 'c1', amount: 80, timestamp: 6 }],
  };
  await page.click('.paste summary');
  await page.fill('#import-text', JSON.stringify(snapshot));
  await page.click('#import-text-button');
  await expect(page.locator('#log li')).toHaveCount(2);
  expect(await setCursor(page, 6)).toBe('20');
  await page.fill('#import-text', JSON.stringify({ ...snapshot, horizon: 4 }));
  await page.click('#import-text-button');
  await expect(page.locator('#scenario-error')).toContainText('compacted (horizon 4)');
  await expect(page.locator('#log li')).toHaveCount(2);
});

test('a file import of 240 calls with odd ids is kept compressed in the link and replays the same', async ({ page }) => {
  await open(page);
  const calls = [];
  for (let i = 1; i <= 120; i++) {
    calls.push({ op: 'addGrant', grantId: `grant ${i}, ;&=#🙂`, amount: 10 * i, startTime: i, endTime: i + 50 });
    calls.push({ op: 'consume', eventId: `use/${i}`, amount: 7 * i, timestamp: i + 20 });
  }
  await page.setInputFiles('#import-file', {
    name: 'big.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ calls })),
  });
  await page.waitForSelector('#log li[data-id="use/120"]');
  const shown = await balance(page);
  const counts = await stats(page);
  expect(counts.grants).toBe(120);
  await page.waitForFunction(() => location.hash.includes('z='));
  expect(await page.evaluate(() => location.hash.length)).toBeLessThan(4000);
  await page.reload();
  await page.waitForSelector('#log li[data-id="use/120"]');
  expect(await balance(page)).toBe(shown);
  expect(await stats(page)).toEqual(counts);
  await expect(page.locator('#log li')).toHaveCount(200);
  await expect(page.locator('#log-note')).toHaveText('Showing the latest 200 of 240 calls.');
});

test('Back and Forward go between the scenarios opened on the page; calls within one replace its entry', async ({ page }) => {
  await open(page);
  await page.click('button[data-preset="seed1"]');
  await page.waitForFunction(() => location.hash.includes('preset=seed1'));
  await submit(page, 'grant', { grantId: 'g9', amount: 5, startTime: 20, endTime: 30 });
  await page.waitForFunction(() => location.hash.includes('g,g9'));
  const seed1 = await stats(page);
  expect(seed1.grants).toBe(3);
  await page.click('button[data-preset="seed2"]');
  await page.waitForFunction(() => location.hash.includes('preset=seed2'));
  const seed2 = await stats(page);
  await page.goBack();
  await page.waitForSelector('#log li[data-id="g9"]');
  expect(await stats(page)).toEqual(seed1);
  expect(await page.evaluate(() => location.hash)).toMatch(/preset=seed1&ops=g,g9,5,20,30/);
  await page.goBack();
  await expect.poll(() => stats(page)).toEqual({ grants: 0, accepted: 0, rejected: 0, queued: 0 });
  expect(await page.evaluate(() => location.hash)).not.toMatch(/preset|ops/);
  await page.goForward();
  await page.goForward();
  await page.waitForFunction(() => location.hash.includes('preset=seed2'));
  await expect.poll(() => stats(page)).toEqual(seed2);
});

test('an unreadable link starts empty and says why', async ({ page }) => {
  await open(page, 'preset=nope');
  await expect(page.locator('#status')).toContainText('could not be read (unknown preset "nope")');
  expect((await stats(page)).grants).toBe(0);
});

test('a link whose cursor is not a time the ledger takes still replays its scenario', async ({ page }) => {
  await open(page, 'preset=seed1&t=6');
  const seeded = await stats(page);
  for (const t of ['9007199254740992', '99999999999999999999']) {
    await page.goto('about:blank'); // a page of its own, not a change of the hash
    await open(page, `preset=seed1&t=${t}`);
    expect(await stats(page)).toEqual(seeded);
    await expect(page.locator('#status')).not.toContainText('could not be read');
    expect(await page.evaluate(() => location.hash)).toContain('preset=seed1');
  }
});

test('a seed that is not a whole number is refused beside its field, and the scenario stays', async ({ page }) => {
  await open(page, 'preset=seed1&t=6');
  const before = await stats(page);
  for (const text of ['-7', 'abc', '1.5', '', '99999999999999999999']) {
    await page.fill('#random-seed', text);
    await page.press('#random-seed', 'Enter');
    await expect(page.locator('#random-seed-error')).toContainText('seed must be a whole number');
    await expect(page.locator('#random-seed')).toHaveAttribute('aria-invalid', 'true');
    expect(await stats(page)).toEqual(before);
    expect(await page.evaluate(() => location.hash)).toContain('preset=seed1');
  }
});

test('a damaged compressed link says so, not that a network request failed', async ({ page }) => {
  await open(page, 'z=garbage');
  await expect(page.locator('#status')).toContainText('its compressed scenario (z=) is damaged or cut short');
  await expect(page.locator('#status')).not.toContainText('Failed to fetch');
});

test('keyboard focus on the hidden file input shows on its "Import JSON…" label', async ({ page }) => {
  await open(page);
  await page.focus('#export-button');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('import-file');
  expect(await page.evaluate(() => getComputedStyle(document.querySelector('label[for="import-file"]')).outlineStyle)).toBe('solid');
});
