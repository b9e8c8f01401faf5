// The same script through the native build (build/native/gcl_script, built by
// scripts/test-native.sh) and through the WASM package: identical answers and snapshots.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { mulberry32 } from './helpers.js';

const runner = fileURLToPath(new URL('../../build/native/gcl_script', import.meta.url));

function makeScript(seed, calls, span, maxAmount) {
  const random = mulberry32(seed);
  const int = (n) => Math.floor(random() * n);
  const lines = [];
  for (let i = 0; i < calls; i++) {
    const roll = random();
    if (roll < 0.25) {
      const start = int(span);
      lines.push(`G g${int(calls)} ${1 + int(maxAmount * 3)} ${start} ${start + int(span / 3)}`);
    } else if (roll < 0.8) {
      lines.push(`C c${int(calls)} ${1 + int(maxAmount)} ${int(span)}`);
    } else if (roll < 0.9) {
      lines.push(`B ${int(span + 10)}`);
    } else {
      lines.push(`A c${int(calls)}`);
    }
  }
  return lines;
}

function runInWasm(lines) {
  const ledger = new GPULedger();
  const out = [];
  for (const line of lines) {
    const [op, ...args] = line.split(' ');
    const id = args[0];
    const [a, b, c] = args.slice(1).map(Number);
    try {
      if (op === 'G') {
        ledger.addGrant(id, a, b, c);
        out.push('OK');
      } else if (op === 'C') {
        out.push(`OK ${ledger.consume(id, a, b) ? 1 : 0}`);
      } else if (op === 'B') {
        out.push(String(ledger.getBalance(Number(id))));
      } else {
        const draws = ledger.allocations(id);
        out.push(draws === null ? 'null' : draws.map((d) => `${d.grantId}:${d.amount}`).join(','));
      }
    } catch (error) {
      out.push(op === 'C' ? `${error.code} 0` : error.code);
    }
  }
  const snapshot = ledger.toJSON();
  ledger.dispose();
  return { out, snapshot };
}

describe('native and WASM builds', () => {
  it('find the native script runner (built by scripts/test-native.sh)', () => {
    expect(existsSync(runner), `${runner} is missing: run scripts/test-native.sh first`).toBe(true);
  });

  const cases = [
    [1, 3000, 200, 40],
    [2, 3000, 1e9, 1e9],
    [3, 20000, 5000, 300],
  ];
  for (const [seed, calls, span, maxAmount] of cases) {
    it(`give identical results and snapshots (seed ${seed}, ${calls} calls)`, () => {
      const lines = makeScript(seed, calls, span, maxAmount);
      const native = execFileSync(runner, { input: `${lines.join('\n')}\n`, maxBuffer: 1 << 28 })
        .toString()
        .trimEnd()
        .split('\n');
      const wasm = runInWasm(lines);
      expect(native.length).toBe(lines.length + 1);
      expect(wasm.out).toEqual(native.slice(0, -1));
      expect(wasm.snapshot).toEqual(JSON.parse(native.at(-1)));
      expect(wasm.out.filter((r) => r === 'OK 1').length).toBeGreaterThan(calls / 20);
    });
  }
});
