// The demo imports the package by its own name ('gpu-credit-ledger'); Vite resolves
// that through the package self-reference (the repo's package.json "exports"), the
// same entry npm users get. The entry uses top-level await, hence 'esnext'.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  // The package inlines its WebAssembly, so the one chunk is large by design.
  build: { target: 'esnext', outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 4096 },
  // Served as source, like any file of the repo: the WASM is inlined in it, nothing to pre-bundle.
  optimizeDeps: { exclude: ['gpu-credit-ledger'] },
  // The replay worker imports the package, whose entry uses top-level await: ES module workers.
  worker: { format: 'es' },
});
