import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** A fresh temporary directory; `remove()` deletes it (call it in an `after` hook). */
export function makeTempDir(prefix) {
  const path = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function randomKey() {
  return randomBytes(24).toString('hex');
}

/**
 * Writes a key file in the format `LEDGER_KEYS` names and returns its path and the keys:
 * one admin, one writer and one reader key, each for every customer.
 */
export function writeKeyFile(dir) {
  const keys = { admin: randomKey(), writer: randomKey(), reader: randomKey() };
  const path = join(dir, 'keys.json');
  writeFileSync(path, JSON.stringify(Object.entries(keys).map(([role, key]) => ({ key, role }))));
  return { path, keys };
}
