// The consumer matrix: one cell per setup a user may already have. Each cell is a fresh
// project made from fixtures/<name> (plus the listed shared files) with the packed
// tarball installed; `expect` is what its run must report, and is compared exactly.

// The seed example: grants g1 (100 on [0,10]) and g2 (50 on [5,15]); c1 80 at 6 is
// accepted, the balance at 6 is 70, c2 60 at 11 is rejected, c3 40 at 11 is accepted.
export const SEED = { c1: true, balance6: 70, c2: false, c3: true };

export const cells = [
  {
    name: 'node-esm',
    kind: 'node',
    shared: ['seed.js'],
    expect: { main: SEED, load: SEED, sameClasses: true },
  },
  {
    name: 'node-esm-wasm-file',
    kind: 'node',
    shared: ['seed.js'],
    expect: { wasmFile: SEED, sameError: true },
  },
  {
    name: 'node-cjs',
    kind: 'node',
    shared: [],
    expect: { main: SEED, load: SEED, wasmFile: SEED, onlyLoader: 'loadLedger', duplicate: 'DUPLICATE_ID' },
  },
  ...['ts-nodenext-esm', 'ts-bundler', 'ts-node10', 'ts-esnext-lib'].map((name) => ({
    name,
    kind: 'tsc',
    shared: ['typed.ts'],
    expect: { main: SEED, load: SEED, wasmFile: SEED, sameClasses: true, duplicate: 'DUPLICATE_ID' },
  })),
  {
    name: 'ts-default-lib', // TypeScript's default target and lib (ES5): type-checked only
    kind: 'tsc-check',
    shared: [],
    expect: { typeChecked: true },
  },
  {
    name: 'ts-nodenext-cjs',
    kind: 'tsc',
    shared: [],
    expect: { main: SEED, wasmFile: SEED, duplicate: 'DUPLICATE_ID' },
  },
  {
    name: 'ts-node16-cjs',
    fixture: 'ts-nodenext-cjs', // the same CommonJS program under node16
    compilerOptions: { module: 'node16', moduleResolution: 'node16' },
    kind: 'tsc',
    shared: [],
    expect: { main: SEED, wasmFile: SEED, duplicate: 'DUPLICATE_ID' },
  },
  {
    name: 'vite-main',
    kind: 'vite',
    shared: ['seed.js'],
    expect: { main: SEED },
  },
  {
    name: 'vite-dev-main',
    fixture: 'vite-main', // the same app, under `vite` dev: the main module's bundle, lib/index.js and the other entries served apart
    kind: 'vite-dev',
    shared: ['seed.js'],
    expect: { main: SEED },
  },
  {
    name: 'vite-load-es2020',
    kind: 'vite',
    shared: ['seed.js'],
    expect: { load: SEED },
  },
  {
    name: 'vite-wasm-file',
    kind: 'vite',
    shared: ['seed.js'],
    separateWasm: true,
    expect: { wasmFile: SEED },
  },
  {
    name: 'vite-dev-wasm-file',
    fixture: 'vite-wasm-file', // the same app, under `vite` dev instead of build + preview
    kind: 'vite-dev',
    shared: ['seed.js'],
    separateWasm: true,
    expect: { wasmFile: SEED },
  },
  {
    name: 'vite-worker',
    kind: 'vite',
    shared: ['seed.js'],
    expect: { remote: SEED, duplicate: 'DUPLICATE_ID', raw: SEED, rawEcho: 'first' },
  },
  {
    name: 'vite-dev-worker',
    fixture: 'vite-worker', // the same app under `vite` dev, which serves the workers' imports as modules
    kind: 'vite-dev',
    shared: ['seed.js'],
    expect: { remote: SEED, duplicate: 'DUPLICATE_ID', raw: SEED, rawEcho: 'first' },
  },
  {
    name: 'vite-dev-ports', // the worker protocol over MessagePorts (a port sent to a worker, a channel on the page)
    fixture: 'vite-ports',
    kind: 'vite-dev',
    shared: [],
    expect: { sentPort: SEED, localPort: SEED },
  },
  {
    name: 'webpack-main',
    kind: 'webpack',
    shared: ['seed.js'],
    expect: { main: SEED },
  },
  {
    // A resolver that ignores package.json's exports (Parcel 2 unless told otherwise, older
    // tools): the main entry through the "module" field ("main" is the CommonJS entry).
    name: 'webpack-no-exports-map',
    fixture: 'webpack-main',
    kind: 'webpack',
    shared: ['seed.js'],
    resolve: { exportsFields: [] },
    expect: { main: SEED },
  },
  {
    name: 'webpack-wasm-file',
    kind: 'webpack',
    shared: ['seed.js'],
    separateWasm: true,
    expect: { wasmFile: SEED },
  },
  {
    name: 'esbuild-iife-es2020',
    kind: 'esbuild',
    shared: ['seed.js'],
    expect: { load: SEED },
  },
];
