// Browser tests of the demo (web/): Vite builds it, `vite preview` serves the build on
// 127.0.0.1, and Debian's Chromium runs each test on a page of its own.
// Run: npx playwright test -c tests/e2e/playwright.config.js   (needs the WASM module built)
import { defineConfig } from '@playwright/test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const port = Number(process.env.E2E_PORT ?? 4178);
const vite = `node ${JSON.stringify(path.join(root, 'node_modules/vite/bin/vite.js'))}`;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.js',
  // Screenshots (saved by the tests, and on failure) stay here as artifacts.
  outputDir: path.join(root, 'test-results'),
  // Two shared cores: one test at a time keeps the timings meaningful.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  globalTimeout: 600_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}/`,
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    acceptDownloads: true,
    actionTimeout: 15_000,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] },
  },
  webServer: {
    command: `${vite} build web --logLevel warn && ${vite} preview web --host 127.0.0.1 --port ${port} --strictPort`,
    cwd: root,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 150_000,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 2000 },
  },
});
