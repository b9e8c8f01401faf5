// End-to-end test of the browser demo: builds web/ with Vite, serves it with
// `vite preview` on a free port and drives Debian's Chromium through playwright-core.
// Usage: node tests/e2e/demo.e2e.mjs   (needs dist/gpu_credit_ledger_wasm.mjs)
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const viteBin = path.join(root, 'node_modules/vite/bin/vite.js');
const resultsDir = path.join(root, 'test-results');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WATCHDOG_MS = 240_000;
const STEP_MS = 15_000;

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? '  ok  ' : '  FAIL'} ${name}${ok || !detail ? '' : `: ${detail}`}`);
}

const children = new Set();
let browser = null;
let page = null;

function run(args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [viteBin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.add(child);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => stopChild(child), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      children.delete(child);
      if (code === 0) resolve(output);
      else reject(new Error(`vite ${args[0]} exited with ${code ?? 'a signal'}:\n${output}`));
    });
  });
}

function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM'); // its own process group: vite and anything it started
  } catch {
    child.kill('SIGTERM');
  }
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startPreview(port) {
  const child = spawn(process.execPath, [viteBin, 'preview', 'web', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.add(child);
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  child.on('exit', () => children.delete(child));
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`vite preview exited:\n${log}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return url;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`vite preview did not answer within 20 s:\n${log}`);
}

async function cleanup() {
  if (browser) {
    const closing = browser.close().catch(() => {});
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 5000))]);
    browser = null;
  }
  for (const child of children) stopChild(child);
}

// --- page helpers

const renders = (page) => page.evaluate(() => Number(document.body.dataset.renders ?? 0));

async function submit(page, formId, fields) {
  for (const [name, value] of Object.entries(fields)) await page.fill(`#${formId}-${name}`, String(value));
  const last = Object.keys(fields).at(-1);
  await page.press(`#${formId}-${last}`, 'Enter');
}

async function logEntry(page, op, id) {
  const entry = page.locator(`#log li[data-op="${op}"][data-id="${id}"]`).first();
  await entry.waitFor({ timeout: STEP_MS });
  return { outcome: await entry.getAttribute('data-outcome'), text: (await entry.innerText()).replace(/\s+/g, ' ') };
}

async function setCursor(page, t) {
  await page.fill('#cursor-time', String(t));
  return page.getAttribute('#balance-readout', 'data-value');
}

const headroom = (page) => page.getAttribute('#headroom-readout', 'data-value');
const logCount = (page) => page.locator('#log li').count();
const pendingIds = (page) => page.$$eval('#pending-list li[data-id]', (items) => items.map((li) => li.dataset.id));
const stat = (page, name) =>
  page.evaluate((n) => {
    const item = [...document.querySelectorAll('#stats div')].find((d) => d.querySelector('dt').textContent === n);
    return item ? Number(item.querySelector('dd').textContent.replaceAll(',', '')) : null;
  }, name);

async function main() {
  await mkdir(resultsDir, { recursive: true });
  await readFile(path.join(root, 'dist/gpu_credit_ledger_wasm.mjs')).catch(() => {
    throw new Error('dist/gpu_credit_ledger_wasm.mjs is missing: run `bash scripts/build-wasm.sh` first');
  });

  const buildStarted = Date.now();
  await run(['build', 'web', '--logLevel', 'warn'], 120_000).then((out) => out.trim() && console.log(out.trim()));
  console.log(`built web/ in ${Date.now() - buildStarted} ms`);
  const url = await startPreview(await freePort());
  console.log(`preview at ${url}`);

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    timeout: 30_000,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  context.setDefaultTimeout(STEP_MS);
  page = await context.newPage();
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
  });

  await page.goto(url, { waitUntil: 'load', timeout: STEP_MS });
  await page.waitForSelector('body[data-renders]');

  // Seed example 1, through the forms.
  console.log('seed example 1 through the forms');
  check('grant id is prefilled g1', (await page.inputValue('#grant-grantId')) === 'g1');
  check('event id is prefilled c1', (await page.inputValue('#consume-eventId')) === 'c1');
  await submit(page, 'grant', { grantId: 'g1', amount: 100, startTime: 0, endTime: 10 });
  let entry = await logEntry(page, 'addGrant', 'g1');
  check('addGrant g1 accepted', entry.outcome === 'accepted', entry.text);
  check('grant id advances to g2', (await page.inputValue('#grant-grantId')) === 'g2');
  await submit(page, 'grant', { grantId: 'g2', amount: 50, startTime: 5, endTime: 15 });
  entry = await logEntry(page, 'addGrant', 'g2');
  check('addGrant g2 accepted', entry.outcome === 'accepted', entry.text);

  await submit(page, 'consume', { eventId: 'c1', amount: 80, timestamp: 6 });
  entry = await logEntry(page, 'consume', 'c1');
  check('consume c1 80 @6 accepted', entry.outcome === 'accepted', entry.text);
  check('c1 funded by g1 alone', /Funded by g1 \(80\)\./.test(entry.text), entry.text);
  check('balance readout at 6 is 70', (await setCursor(page, 6)) === '70');
  // headroom(6) is the most consume(_, x, 6) accepts now: 70 while nothing later relies on credit.
  check('headroom readout at 6 is 70 (nothing reserved yet)', (await headroom(page)) === '70' && (await page.textContent('#headroom-note')) === '');

  await submit(page, 'consume', { eventId: 'c2', amount: 60, timestamp: 11 });
  entry = await logEntry(page, 'consume', 'c2');
  check('consume c2 60 @11 rejected', entry.outcome === 'rejected', entry.text);
  check('c2 rejection says not enough credit', /Not enough credit valid at t = 11: 50 available/.test(entry.text), entry.text);
  await submit(page, 'consume', { eventId: 'c3', amount: 40, timestamp: 11 });
  entry = await logEntry(page, 'consume', 'c3');
  check('consume c3 40 @11 accepted', entry.outcome === 'accepted', entry.text);
  check('c3 funded by g2', /Funded by g2 \(40\)\./.test(entry.text), entry.text);
  check('balance readout at 11 is 10', (await setCursor(page, 11)) === '10');
  check('headroom readout at 11 is 10', (await headroom(page)) === '10');
  // c3 (40 at t = 11) can only draw from g2, so 40 of the 70 credits at t = 6 are reserved for it.
  await setCursor(page, 6);
  const note = await page.textContent('#headroom-note');
  check('headroom at 6 drops to 30 after c3, with a note on what is reserved', (await headroom(page)) === '30' && /at most 30: later accepted consumptions reserve 40 of the 70 credits/.test(note), `${await headroom(page)}: ${note}`);
  check('event id advances to c4', (await page.inputValue('#consume-eventId')) === 'c4');

  const bars = await page.locator('#timeline svg g.grant-bars rect').count();
  check('one timeline bar per grant', bars === 2, `${bars} bars`);
  const dots = await page.evaluate(() =>
    [...document.querySelectorAll('#timeline svg g.consumption-markers circle')].map((c) => c.getAttribute('fill')),
  );
  check('three consumption markers, one hollow', dots.length === 3 && dots.filter((f) => f === 'none').length === 1, JSON.stringify(dots));
  const curve = await page.getAttribute('#balance-chart svg g.balance-curve path', 'd');
  check('balance curve path is drawn', typeof curve === 'string' && curve.length > 10, String(curve));

  await submit(page, 'grant', { grantId: 'g3', amount: 1.5, startTime: 0, endTime: 10 });
  const inline = await page.textContent('#grant-amount-error');
  check('library error shown next to the amount field', inline.startsWith('addGrant: amount must be an integer in [1, 2^53 - 1], got 1.5'), inline);
  entry = await logEntry(page, 'addGrant', 'g3');
  check('error logged', entry.outcome === 'error', entry.text);

  // Preview: tryConsume with { dryRun: true }, nothing changes.
  console.log('preview, queue, burn-down');
  let logBefore = await logCount(page);
  await page.fill('#consume-amount', '40');
  await page.fill('#consume-timestamp', '3');
  await page.click('#preview-button');
  let preview = await page.locator('#consume-preview').innerText();
  check(
    'preview of 40 @3 says it would leave c3 unfunded',
    (await page.getAttribute('#consume-preview', 'data-reason')) === 'WOULD_UNFUND' && /would leave c3 unfunded/.test(preview) && /Nothing was changed/.test(preview),
    preview,
  );
  await page.fill('#consume-amount', '5');
  await page.fill('#consume-timestamp', '11');
  await page.click('#preview-button');
  preview = (await page.locator('#consume-preview').innerText()).replace(/\s+/g, ' ');
  check('preview of 5 @11 would be funded by g2', /would accept it, funded by g2 \(5\)/.test(preview), preview);
  check('a preview changes nothing', (await logCount(page)) === logBefore && (await stat(page, 'accepted')) === 2 && (await setCursor(page, 11)) === '10');

  await submit(page, 'consume', { eventId: 'c4', amount: 40, timestamp: 3 });
  entry = await logEntry(page, 'consume', 'c4');
  check('40 @3 rejected: would leave c3 unfunded', entry.outcome === 'rejected' && /would leave c3 unfunded \(40 credits at t = 11\)/.test(entry.text), entry.text);

  // The queue: submit instead of consume; a top-up grant lets it in (onPendingAccepted).
  await page.check('#consume-queue');
  await submit(page, 'consume', { eventId: 'c4', amount: 30, timestamp: 12 });
  entry = await logEntry(page, 'submit', 'c4');
  check('c4 30 @12 is queued (g2 holds 10 then)', entry.outcome === 'queued', entry.text);
  check('the queue panel lists c4', JSON.stringify(await pendingIds(page)) === '["c4"]' && (await stat(page, 'queued')) === 1);
  await submit(page, 'grant', { grantId: 'g3', amount: 30, startTime: 12, endTime: 20 });
  entry = await logEntry(page, 'acceptPending', 'c4');
  check(
    'the top-up grant g3 lets queued c4 in, logged',
    entry.outcome === 'accepted' && /accepted after the new grant g3/.test(entry.text) && /Funded by g2 \(10\), g3 \(20\)/.test(entry.text),
    entry.text,
  );
  check('the queue is empty again', (await pendingIds(page)).length === 0 && (await stat(page, 'queued')) === 0 && (await stat(page, 'accepted')) === 3);
  check('balance at 12 is 10 after c4', (await setCursor(page, 12)) === '10');
  await submit(page, 'consume', { eventId: 'c5', amount: 500, timestamp: 14 });
  entry = await logEntry(page, 'submit', 'c5');
  check('c5 500 @14 waits in the queue', entry.outcome === 'queued' && JSON.stringify(await pendingIds(page)) === '["c5"]', entry.text);
  await page.uncheck('#consume-queue');

  // Burn-down: click g1's bar.
  await page.locator('#timeline svg rect[data-grant-id="g1"]').click();
  await page.waitForSelector('#burn-panel:not([hidden])');
  const draws = await page.$$eval('#burn-draws tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent).join(' ')));
  check('clicking g1 opens its burn-down: c1 drew 80 at t = 6', JSON.stringify(draws) === '["6 c1 80"]', JSON.stringify(draws));
  check('burn-down step curve is drawn', ((await page.getAttribute('#burn-chart svg g.burn-curve path', 'd')) ?? '').length > 10);
  check('g1 bar is outlined and picked in the list', (await page.locator('#timeline rect.is-selected[data-grant-id="g1"]').count()) === 1 && (await page.inputValue('#grant-select')) === 'g1');
  await page.click('#void-grant-button');
  entry = await logEntry(page, 'voidGrant', 'g1');
  check('voiding g1 is refused, naming c1', entry.outcome === 'refused' && /would leave c1 unfunded/.test(entry.text), entry.text);
  check('the refusal shows in the panel too', /would leave c1 unfunded/.test(await page.textContent('#burn-error')));
  await page.fill('#grant-end', '5');
  await page.press('#grant-end', 'Enter');
  entry = await logEntry(page, 'setGrantEnd', 'g1');
  check('ending g1 at 5 is refused, naming c1', entry.outcome === 'refused' && /would leave c1 unfunded/.test(entry.text), entry.text);
  await page.selectOption('#grant-select', 'g2');
  await page.waitForFunction(() => document.querySelector('#burn-card').dataset.grantId === 'g2');
  await page.fill('#grant-end', '25');
  await page.press('#grant-end', 'Enter');
  await page.waitForFunction(() => document.querySelector('#log li[data-op="setGrantEnd"][data-id="g2"]'));
  entry = await logEntry(page, 'setGrantEnd', 'g2');
  check('extending g2 to 25 (chosen in the list) is applied', entry.outcome === 'applied' && /Extended: valid until t = 25, was 15/.test(entry.text), entry.text);
  // g3 (ends 20) now expires before g2 (ends 25), so EDF takes all of c4 from g3.
  check('the extension moves c4 to g3, logged', /Moved the funding of c4 \(t = 12\) now g3 30, was g2 10 \+ g3 20/.test(entry.text), entry.text);
  const g2draws = await page.$$eval('#burn-draws tbody tr', (rows) => rows.map((r) => r.cells[1].textContent));
  check('g2 burn-down now lists c3 only', JSON.stringify(g2draws) === '["c3"]', JSON.stringify(g2draws));
  await page.fill('#alert-threshold', '50');
  await setCursor(page, 0);
  check('low-balance alert: below 50 first at t = 11', (await page.getAttribute('#alert-readout', 'data-at')) === '11', await page.textContent('#alert-readout'));
  await setCursor(page, 6);

  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(resultsDir, 'desktop.png') });
  await page.screenshot({ path: path.join(resultsDir, 'desktop-full.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check('no horizontal overflow at 390 px', overflow <= 0, `${overflow} px too wide`);
  await page.screenshot({ path: path.join(resultsDir, 'narrow.png') });
  await page.screenshot({ path: path.join(resultsDir, 'narrow-full.png'), fullPage: true });
  await page.locator('.charts').screenshot({ path: path.join(resultsDir, 'narrow-charts.png') });
  await page.locator('#burn-card').screenshot({ path: path.join(resultsDir, 'narrow-burn.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForTimeout(200);
  await page.locator('#burn-card').screenshot({ path: path.join(resultsDir, 'desktop-burn.png') });

  logBefore = await logCount(page);
  await page.click('#pending-list button[data-cancel="c5"]');
  entry = await logEntry(page, 'cancelPending', 'c5');
  check('cancelling queued c5 empties the queue', entry.outcome === 'cancelled' && (await pendingIds(page)).length === 0 && (await logCount(page)) === logBefore + 1, entry.text);
  // The queue calls and grant changes are part of the scenario link: a reload replays them.
  await page.waitForFunction(() => /s,c4,30,12;.*v,g1;e,g1,5;e,g2,25;x,c5/.test(location.hash), null, { timeout: 5000 }).then(
    () => check('submit, voidGrant, setGrantEnd and cancelPending are in the link', true),
    () => check('submit, voidGrant, setGrantEnd and cancelPending are in the link', false, page.url()),
  );
  const statsBefore = await page.textContent('#stats');
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => document.querySelector('#log li[data-op="cancelPending"]'), null, { timeout: 5000 });
  check(
    'reloading the link replays queue and grant changes',
    (await page.textContent('#stats')) === statsBefore && (await setCursor(page, 12)) === '10' && (await pendingIds(page)).length === 0 &&
      (await page.locator('#log li[data-op="acceptPending"][data-id="c4"]').count()) === 1,
    `${await page.textContent('#stats')} vs ${statsBefore}`,
  );

  // Seed example 2 preset, then the link and JSON round trips.
  console.log('presets, link and JSON');
  await page.click('button[data-preset="seed2"]');
  entry = await logEntry(page, 'consume', 'c_early');
  check('seed 2: c_early rejected: WOULD_UNFUND names c_late', entry.outcome === 'rejected' && /would leave c_late unfunded \(80 credits at t = 8\)/.test(entry.text), entry.text);
  check('seed 2: balance readout at 8 is 20', (await page.getAttribute('#balance-readout', 'data-value')) === '20');
  check('seed 2: headroom at 8 is 20, and at 2 also 20 (c_late reserves 80)', (await headroom(page)) === '20' && (await setCursor(page, 2)) === '100' && (await headroom(page)) === '20');
  const expectations = await page.evaluate(() => [document.querySelectorAll('.expect--ok').length, document.querySelectorAll('.expect--bad').length]);
  check('seed 2: every call matches the seed example', expectations[0] === 3 && expectations[1] === 0, JSON.stringify(expectations));
  await page.waitForFunction(() => location.hash.includes('preset=seed2'), null, { timeout: 5000 });
  check('scenario is in the URL hash', true);

  await page.evaluate(() => (location.hash = '#preset=seed1&ops=g,g9,5,20,30&t=25'));
  await page.waitForFunction(() => document.querySelector('#log li[data-id="g9"]'), null, { timeout: 5000 });
  check('a shared link replays preset and extra calls', (await page.getAttribute('#balance-readout', 'data-value')) === '5');

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-button')]);
  const exported = await readFile(await download.path(), 'utf8');
  check('export holds every call', JSON.parse(exported).calls.length === 8, exported.slice(0, 200));
  await page.click('#reset-button');
  check('reset empties the ledger', (await page.locator('#log li').count()) === 0);
  await page.click('.paste summary');
  await page.fill('#import-text', exported);
  await page.click('#import-text-button');
  await page.waitForFunction(() => document.querySelectorAll('#log li').length === 8, null, { timeout: 5000 });
  check('pasted JSON replays the scenario', (await page.getAttribute('#balance-readout', 'data-value')) === '5');

  await page.fill('#import-text', '{"calls": 3}');
  await page.click('#import-text-button');
  check('bad JSON is refused with a message', /Could not import/.test(await page.textContent('#scenario-error')));

  const calls = [];
  for (let i = 1; i <= 120; i++) {
    calls.push({ op: 'addGrant', grantId: `grant ${i}, ;&=#🙂`, amount: 10 * i, startTime: i, endTime: i + 50 });
    calls.push({ op: 'consume', eventId: `use/${i}`, amount: 7 * i, timestamp: i + 20 });
  }
  await page.setInputFiles('#import-file', { name: 'big.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ calls })) });
  await page.waitForFunction(() => document.querySelector('#log li[data-id="use/120"]'), null, { timeout: 5000 });
  const balance = await page.getAttribute('#balance-readout', 'data-value');
  await page.waitForFunction(() => location.hash.includes('z='), null, { timeout: 5000 });
  check('a file import of 240 calls is stored compressed in the URL', (await page.evaluate(() => location.hash.length)) < 4000);
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => document.querySelector('#log li[data-id="use/120"]'), null, { timeout: 5000 });
  check(
    'reloading the compressed link replays the same ledger',
    (await page.getAttribute('#balance-readout', 'data-value')) === balance && (await page.locator('#log li').count()) === 200,
  );

  await page.click('button[data-preset="seed1"]');
  await page.waitForFunction(() => document.querySelector('#log li[data-id="c3"]'), null, { timeout: 5000 });
  const tick = page.locator('#balance-chart svg [aria-label="x-axis tick label"] text', { hasText: /^6$/ });
  const tickBox = await tick.boundingBox();
  await page.mouse.click(tickBox.x + tickBox.width / 2 + 3, tickBox.y - 40);
  check('clicking the chart moves the cursor (t = 6, balance 70)', (await page.getAttribute('#balance-readout', 'data-value')) === '70');

  // The large random preset, then one more event.
  console.log('large random preset');
  let before = await renders(page);
  let started = Date.now();
  await page.click('#random-button');
  await page.waitForFunction((n) => Number(document.body.dataset.renders) > n, before, { timeout: 60_000 });
  const loadWall = Date.now() - started;
  const stats = await page.evaluate(() =>
    Object.fromEntries([...document.querySelectorAll('#stats div')].map((d) => [d.querySelector('dt').textContent, Number(d.querySelector('dd').textContent.replaceAll(',', ''))])),
  );
  check(
    'random preset loads 1,000 grants and 10,000 consumptions',
    stats.grants === 1000 && stats.accepted + stats.rejected === 10000,
    JSON.stringify(stats),
  );
  console.log(`  random preset: ${await page.textContent('#status')} (${loadWall} ms wall clock)`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(resultsDir, 'random-desktop.png') });
  check('headroom readout on the big preset', Number.isSafeInteger(Number(await headroom(page))));
  started = Date.now();
  await page.selectOption('#grant-select', 'g500');
  await page.waitForFunction(() => document.querySelector('#burn-card').dataset.grantId === 'g500' && !document.querySelector('#burn-panel').hidden);
  const burnWall = Date.now() - started;
  const burnRows = await page.locator('#burn-draws tbody tr').count();
  check('big preset: burn-down of g500 opens', burnRows > 0, `${burnRows} rows`);
  console.log(`  big preset burn-down of g500: ${burnRows} rows, ${burnWall} ms wall clock`);
  await page.locator('#burn-card').screenshot({ path: path.join(resultsDir, 'random-burn.png') });

  // One more event on the big ledger, then four more to see the spread.
  const inPage = [];
  const wallClock = [];
  for (const timestamp of [50_000, 60_000, 70_000, 80_000, 90_000]) {
    before = await renders(page);
    await page.fill('#consume-amount', '20');
    await page.fill('#consume-timestamp', String(timestamp));
    started = Date.now();
    await page.press('#consume-timestamp', 'Enter');
    await page.waitForFunction((n) => Number(document.body.dataset.renders) > n, before, { timeout: 30_000 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    wallClock.push(Date.now() - started);
    inPage.push(Number(await page.evaluate(() => document.body.dataset.updateMs)));
  }
  entry = await logEntry(page, 'consume', 'c10001');
  check('one more consumption on the big ledger is logged', ['accepted', 'rejected'].includes(entry.outcome), entry.text);
  await page
    .waitForFunction(() => location.hash.startsWith('#preset=random&seed=1&ops=c,c10001,20,50000;c,c10002,20,60000'), null, { timeout: 5000 })
    .then(
      () => check('the big scenario link holds the seed and the extra calls only', true),
      () => check('the big scenario link holds the seed and the extra calls only', false, page.url()),
    );
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  console.log(
    `  big preset, one more consume: ${inPage[0].toFixed(1)} ms in page (ledger call + redraw), ${wallClock[0]} ms wall clock to the next frame; ` +
      `median of ${inPage.length}: ${median(inPage).toFixed(1)} ms in page, ${median(wallClock)} ms wall clock`,
  );

  check('no console errors or warnings', problems.length === 0, problems.join('\n'));
}

const watchdog = setTimeout(async () => {
  console.log(`  FAIL watchdog: e2e took longer than ${WATCHDOG_MS / 1000} s`);
  failed++;
  await cleanup();
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  process.exit(1);
}, WATCHDOG_MS);

try {
  await main();
} catch (error) {
  failed++;
  console.log(`  FAIL ${error.stack ?? error}`);
  await page?.screenshot({ path: path.join(resultsDir, 'failure.png'), fullPage: true, timeout: 5000 }).catch(() => {});
} finally {
  await cleanup();
  clearTimeout(watchdog);
}
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
