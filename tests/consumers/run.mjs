// The consumer matrix (cells.mjs): packs the package, installs the tarball into a fresh
// project per cell, builds each project the way its setup does (Node, TypeScript 5.9,
// Vite, esbuild, webpack) and runs it (Node, or headless Chromium after `vite preview`). Prints
// one PASS/FAIL line per cell, the bundle sizes, and `N passed, N failed`.
// Usage: node tests/consumers/run.mjs [cell-name ...]   (KEEP=1 keeps the temp folder)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { cells } from './cells.mjs';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const tsc = join(repo, 'node_modules/typescript-5/bin/tsc');
const STEP_TIMEOUT_MS = 120_000;
const PAGE_TIMEOUT_MS = 30_000;
// A guard against hangs: the matrix needs about 55 s of CPU in all (measured), but other
// work sharing the 2 cores can stretch its wall time several times over.
const MATRIX_TIMEOUT_MS = 360_000;
const CONCURRENCY = 3;

const only = process.argv.slice(2);
const selected = only.length ? cells.filter((cell) => only.includes(cell.name)) : cells;
if (selected.length === 0) throw new Error(`no cell named ${only.join(', ')}`);

const work = mkdtempSync(join(tmpdir(), 'gcl-consumers-'));
const sizes = [];
let browser; // a promise: cells running at once share one Chromium

// The whole matrix is bounded: past the deadline it stops and counts as failed.
setTimeout(() => {
  console.error(`matrix: over ${MATRIX_TIMEOUT_MS / 1000} s, stopping`);
  console.log(`0 passed, ${selected.length} failed`);
  process.exit(1);
}, MATRIX_TIMEOUT_MS).unref();

async function sh(command, args, cwd, env = {}) {
  try {
    const { stdout } = await run(command, args, {
      cwd,
      env: { ...process.env, ...env },
      timeout: STEP_TIMEOUT_MS,
      maxBuffer: 16 << 20,
    });
    return stdout;
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim();
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${output || error.message}`);
  }
}

async function packTarball() {
  const packDir = join(work, 'pack');
  mkdirSync(packDir);
  await sh('npm', ['pack', '--pack-destination', packDir, '--silent'], repo, { GCL_SKIP_PREPACK_BUILD: '1' });
  const [tarball, ...more] = readdirSync(packDir).filter((name) => name.endsWith('.tgz'));
  if (!tarball || more.length) throw new Error(`expected one tarball in ${packDir}`);
  await checkTarball(join(packDir, tarball));
  return join(packDir, tarball);
}

// What the tarball holds: every document its README names (the README is the package's
// page), and nothing of the service, the demo, the tests or the C++ sources.
async function checkTarball(tarball) {
  const files = (await sh('tar', ['-tzf', tarball], work))
    .split('\n')
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ''));
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  for (const doc of new Set(readme.match(/docs\/[\w-]+\.md/g))) {
    assert.ok(files.includes(doc), `the README names ${doc}, which the tarball lacks`);
  }
  for (const folder of ['server/', 'web/', 'tests/', 'cpp/', 'bench/', 'scripts/', 'build/']) {
    assert.deepEqual(
      files.filter((path) => path.startsWith(folder)),
      [],
      `the tarball holds ${folder}`,
    );
  }
}

async function makeProject(cell, tarball) {
  const dir = join(work, cell.name);
  cpSync(join(here, 'fixtures', cell.fixture ?? cell.name), dir, { recursive: true });
  for (const file of cell.shared) cpSync(join(here, 'fixtures/shared', file), join(dir, file));
  if (cell.compilerOptions) {
    // A fixture's project under other TypeScript options (the same program).
    const path = join(dir, 'tsconfig.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    Object.assign(config.compilerOptions, cell.compilerOptions);
    writeFileSync(path, JSON.stringify(config, null, 2));
  }
  // The tarball has no dependencies: nothing to download, from a fresh machine too.
  await sh('npm', ['install', tarball, '--offline', '--no-save', '--no-audit', '--no-fund', '--loglevel=error'], dir);
  return dir;
}

function parseResult(stdout) {
  const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
  if (!line) throw new Error(`no RESULT line in output:\n${stdout}`);
  return JSON.parse(line.slice('RESULT '.length));
}

async function runNode(cell, dir) {
  return parseResult(await sh(process.execPath, ['main.js'], dir));
}

async function runTsc(cell, dir) {
  await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], dir);
  return parseResult(await sh(process.execPath, ['out/typed.js'], dir));
}

async function runTscCheck(cell, dir) {
  await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], dir);
  return { typeChecked: true };
}

async function openPage(url, { before } = {}) {
  browser ??= import('playwright-core').then(({ chromium }) =>
    chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] }),
  );
  const page = await (await browser).newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  try {
    if (before) await before(page);
    await page.goto(url);
    await page.waitForFunction(() => window.__result || window.__error, null, { timeout: PAGE_TIMEOUT_MS }).catch(() => {});
    const { result, error, streamed } = await page.evaluate(() => ({
      result: window.__result,
      error: window.__error,
      streamed: window.__streamed,
    }));
    if (!result) throw new Error(`page gave no result: ${error ?? 'timeout'}${errors.length ? `; errors: ${errors.join(' | ')}` : ''}`);
    return { result, streamed };
  } finally {
    await page.close();
  }
}

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

// Bytes a browser downloads for the app, raw and gzipped, by kind (js, wasm).
function recordSize(cell, files) {
  const size = { cell: cell.name };
  for (const kind of ['js', 'wasm']) {
    const bodies = files.filter((path) => path.endsWith(`.${kind}`)).map((path) => readFileSync(path));
    if (bodies.length === 0) continue;
    size[kind] = bodies.reduce((sum, body) => sum + body.length, 0);
    size[`${kind}Gzip`] = bodies.reduce((sum, body) => sum + gzipSync(body).length, 0);
  }
  sizes.push(size);
  return size;
}

// Streaming compilation is observed, not assumed: the page counts instantiateStreaming calls.
async function countStreaming(page) {
  await page.addInitScript(() => {
    window.__streamed = 0;
    const original = WebAssembly.instantiateStreaming;
    WebAssembly.instantiateStreaming = function (...args) {
      window.__streamed += 1;
      return original.apply(this, args);
    };
  });
}

async function runVite(cell, dir) {
  const { build, preview } = await import('vite');
  const warnings = [];
  const logger = {
    info() {},
    warn: (message) => warnings.push(message),
    warnOnce: (message) => warnings.push(message),
    error: (message) => warnings.push(message),
    clearScreen() {},
    hasErrorLogged: () => false,
    hasWarned: false,
  };
  await build({ root: dir, logLevel: 'warn', customLogger: logger });
  if (warnings.length) console.log(`  ${cell.name}: vite said: ${warnings.join(' | ')}`);
  const files = filesUnder(join(dir, 'dist'));
  const size = recordSize(cell, files);
  if (cell.separateWasm) {
    assert.ok(size.wasm > 0, 'the build has no separate .wasm asset');
    for (const path of files.filter((file) => file.endsWith('.js'))) {
      // 'AGFzbQ' is the base64 of the wasm magic number, '\0asm'.
      assert.ok(!readFileSync(path, 'utf8').includes('AGFzbQ'), `${path} inlines the wasm`);
    }
  }
  const server = await preview({
    root: dir,
    logLevel: 'silent',
    preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
  });
  try {
    const url = server.resolvedUrls.local[0];
    const { result, streamed } = await openPage(url, { before: cell.separateWasm ? countStreaming : undefined });
    if (cell.separateWasm) assert.equal(streamed, 1, 'the .wasm was not compiled with instantiateStreaming');
    return result;
  } finally {
    await server.close();
  }
}

// The dev server serves the package's files as they are (dependency pre-bundling included).
async function runViteDev(cell, dir) {
  const { createServer } = await import('vite');
  const server = await createServer({ root: dir, logLevel: 'silent', server: { host: '127.0.0.1', port: 0, strictPort: false } });
  try {
    await server.listen();
    const { result, streamed } = await openPage(server.resolvedUrls.local[0], { before: countStreaming });
    if (cell.separateWasm) assert.equal(streamed, 1, 'the .wasm was not compiled with instantiateStreaming');
    return result;
  } finally {
    await server.close();
  }
}

async function runEsbuild(cell, dir) {
  const esbuild = await import('esbuild');
  const outfile = join(dir, 'out/app.js');
  const { warnings } = await esbuild.build({
    absWorkingDir: dir,
    entryPoints: ['app.js'],
    bundle: true,
    format: 'iife',
    target: 'es2020',
    platform: 'browser',
    outfile,
    logLevel: 'silent',
  });
  // e.g. an `import.meta` that an iife would leave empty
  assert.deepEqual(
    warnings.map((warning) => warning.text),
    [],
    'esbuild warned',
  );
  recordSize(cell, [outfile]);
  // Served as a classic script from a page of its own (no server needed).
  const { result } = await openPage('http://consumer.test/', {
    before: (page) =>
      page.route('http://consumer.test/', (route) =>
        route.fulfill({ contentType: 'text/html', body: `<!doctype html><script>${readFileSync(outfile, 'utf8')}</script>` }),
      ),
  });
  // The same bundle run by Node as a classic script: the module must do without the
  // `import.meta` an iife leaves empty there too.
  writeFileSync(join(dir, 'out/app.cjs'), readFileSync(outfile));
  writeFileSync(
    join(dir, 'out/node-run.cjs'),
    `globalThis.window = globalThis;
require('./app.cjs');
const wait = () => window.__result || window.__error ? console.log('RESULT ' + JSON.stringify(window.__result ?? { error: window.__error })) : setTimeout(wait, 5);
wait();
`,
  );
  assert.deepEqual(parseResult(await sh(process.execPath, ['out/node-run.cjs'], dir)), result, 'the bundle in Node');
  return result;
}

// webpack 5 with its defaults (production mode, web target, no configuration file; a
// cell's `resolve` options where it has them), the output served as it is from a page of
// its own.
async function runWebpack(cell, dir) {
  const { default: webpack } = await import('webpack');
  const out = join(dir, 'out');
  const stats = await new Promise((resolve, reject) => {
    const config = { context: dir, entry: './app.js', mode: 'production', output: { path: out, filename: 'app.js' } };
    webpack(cell.resolve ? { ...config, resolve: cell.resolve } : config, (error, result) => (error ? reject(error) : resolve(result)));
  });
  const { errors, warnings } = stats.toJson({ all: false, errors: true, warnings: true });
  // Its size advice aside (a bundle over 244 KiB), webpack must have nothing to say.
  const advice = /^(asset size limit|entrypoint size limit|webpack performance recommendations)/;
  const said = [...errors, ...warnings].map((item) => item.message).filter((text) => !advice.test(text));
  assert.deepEqual(said, [], 'webpack reported');
  const files = filesUnder(out);
  // webpack writes import.meta.url as the module's path on the build machine: no such path
  // may reach a bundle.
  for (const file of files.filter((name) => name.endsWith('.js'))) {
    assert.ok(!readFileSync(file, 'utf8').includes('file:///'), `${file} holds a path of the build machine`);
  }
  const size = recordSize(cell, files);
  if (cell.separateWasm) assert.ok(size.wasm > 0, 'the build has no separate .wasm asset');
  const types = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
  const { result, streamed } = await openPage('http://consumer.test/', {
    before: async (page) => {
      if (cell.separateWasm) await countStreaming(page);
      await page.route('http://consumer.test/**', (route) => {
        const path = new URL(route.request().url()).pathname;
        if (path === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><script src="/app.js"></script>' });
        const file = join(out, path);
        const type = types[path.slice(path.lastIndexOf('.'))];
        if (!file.startsWith(out) || type === undefined || !files.includes(file)) return route.fulfill({ status: 404, body: '' });
        return route.fulfill({ contentType: type, body: readFileSync(file) });
      });
    },
  });
  if (cell.separateWasm) assert.equal(streamed, 1, 'the .wasm was not compiled with instantiateStreaming');
  return result;
}

const runners = {
  node: runNode,
  tsc: runTsc,
  'tsc-check': runTscCheck,
  vite: runVite,
  'vite-dev': runViteDev,
  esbuild: runEsbuild,
  webpack: runWebpack,
};

let passed = 0;
let failed = 0;
try {
  console.log(
    `matrix: TypeScript ${JSON.parse(readFileSync(join(repo, 'node_modules/typescript-5/package.json'), 'utf8')).version}, Node ${process.version}, in ${work}`,
  );
  const tarball = await packTarball();
  console.log(`matrix: packed ${tarball}`);
  // A few cells at a time: most of a cell's time is process start-up and waiting.
  const queue = [...selected];
  const worker = async () => {
    for (let cell = queue.shift(); cell; cell = queue.shift()) {
      const started = Date.now();
      const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
      try {
        const dir = await makeProject(cell, tarball);
        const result = await runners[cell.kind](cell, dir);
        assert.deepEqual(result, cell.expect);
        passed += 1;
        console.log(`PASS ${cell.name} (${seconds()} s)`);
      } catch (error) {
        failed += 1;
        console.log(`FAIL ${cell.name} (${seconds()} s): ${error.message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  sizes.sort((a, b) => a.cell.localeCompare(b.cell));
  for (const size of sizes) {
    const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
    const parts = ['js', 'wasm'].filter((kind) => size[kind]).map((kind) => `${kind} ${kB(size[kind])} (gzip ${kB(size[`${kind}Gzip`])})`);
    console.log(`size ${size.cell}: ${parts.join(', ')}`);
  }
} catch (error) {
  failed += 1;
  console.log(`FAIL matrix: ${error.message}`);
} finally {
  await (await browser?.catch(() => null))?.close();
  if (!process.env.KEEP) rmSync(work, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
