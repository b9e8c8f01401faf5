// Packs the package, installs the tarball into an empty project and runs seed
// example 1 there by package name: proves the published files are complete.
// Usage: node tests/pack/pack-smoke.mjs   (exits non-zero on failure)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(join(tmpdir(), 'gcl-pack-smoke-'));
const packDir = join(work, 'pack');
const consumerDir = join(work, 'consumer');

const consumerScript = `
import assert from 'node:assert/strict';
import { GPULedger, LedgerError } from 'gpu-credit-ledger';
import { loadLedger } from 'gpu-credit-ledger/load';

const ledger = new GPULedger();
ledger.addGrant('g1', 100, 0, 10);
ledger.addGrant('g2', 50, 5, 15);
assert.equal(ledger.consume('c1', 80, 6), true);
assert.deepEqual(ledger.allocations('c1'), [{ grantId: 'g1', amount: 80 }]);
assert.equal(ledger.getBalance(6), 70);
assert.equal(ledger.consume('c2', 60, 11), false);
assert.equal(ledger.consume('c3', 40, 11), true);
assert.equal(ledger.getBalance(11), 10);
assert.throws(() => ledger.addGrant('g1', 1, 0, 10), (e) => e instanceof LedgerError && e.code === 'DUPLICATE_ID');
ledger.dispose();
assert.throws(() => ledger.getBalance(0), (e) => e instanceof LedgerError && e.code === 'DISPOSED');

const loaded = await loadLedger();
const second = new loaded.GPULedger();
second.addGrant('g1', 100, 0, 10);
assert.equal(second.consume('c_late', 80, 8), true);
assert.equal(second.consume('c_early', 30, 2), false);
assert.equal(second.getBalance(8), 20);
second.dispose();
console.log('consumer: seed examples OK');
`;

// Every file package.json points at ("exports" conditions and "types").
function exportTargets() {
  const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const targets = new Set();
  const collect = (node) => {
    if (typeof node === 'string') targets.add(node.replace(/^\.\//, ''));
    else if (node && typeof node === 'object') Object.values(node).forEach(collect);
  };
  collect(manifest.exports);
  collect(manifest.types);
  return [...targets];
}

function run(command, args, cwd, env = {}) {
  console.log(`$ (cd ${cwd} && ${command} ${args.join(' ')})`);
  return execFileSync(command, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

let failed = false;
try {
  mkdirSync(packDir);
  mkdirSync(consumerDir);
  run('npm', ['pack', '--pack-destination', packDir], repo, { GCL_SKIP_PREPACK_BUILD: '1' });
  const tarballs = readdirSync(packDir).filter((name) => name.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new Error(`expected one tarball in ${packDir}, found ${tarballs.length}`);
  const tarball = join(packDir, tarballs[0]);

  const listing = run('tar', ['-tzf', tarball], work);
  const files = new Set(listing.split('\n'));
  const distFiles = ['dist/gpu_credit_ledger_wasm.mjs', 'dist/gpu_credit_ledger.wasm'];
  for (const required of ['package.json', ...distFiles, ...exportTargets()]) {
    if (!files.has(`package/${required}`)) throw new Error(`tarball lacks ${required}`);
  }
  for (const forbidden of ['package/tests/', 'package/cpp/', 'package/node_modules/']) {
    if (listing.includes(forbidden)) throw new Error(`tarball should not contain ${forbidden}`);
  }

  writeFileSync(join(consumerDir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  run('npm', ['install', tarball, '--no-audit', '--no-fund', '--offline'], consumerDir);
  writeFileSync(join(consumerDir, 'smoke.mjs'), consumerScript);
  process.stdout.write(run(process.execPath, ['smoke.mjs'], consumerDir));
  console.log(`PASS pack-smoke: ${tarballs[0]} installs into an empty project and runs the seed examples`);
} catch (error) {
  failed = true;
  console.error(`FAIL pack-smoke: ${error.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
