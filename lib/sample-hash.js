/**
 * Every `stride`-th byte of a binary, hashed (FNV-1a 32). scripts/inline-wasm.mjs stores
 * the inlined binary's in the main module, and lib/inline-wasm.js compares a .wasm file's
 * with it: a few thousand reads tell a file of another build, where hashing every byte
 * would cost a fresh process milliseconds.
 */
export function sampleHash(bytes, stride) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i += stride) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash >>> 0;
}
