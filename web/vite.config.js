// The demo imports the package by its own name ('gpu-credit-ledger'); Vite resolves
// that through the package self-reference (the repo's package.json "exports"), the
// same entry npm users get. The entry uses top-level await, hence 'esnext'.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  build: { target: 'esnext', outDir: 'dist', emptyOutDir: true },
  // Served as source, like any file of the repo: the WASM is inlined in it, nothing to pre-bundle.
  optimizeDeps: { exclude: ['gpu-credit-ledger'] },
});
