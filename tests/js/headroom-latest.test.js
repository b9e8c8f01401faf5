// headroom(t) for t at or after the latest accepted consumption is answered from the
// balance, without the index (preview.cpp). Checked against the brute-force oracle's
// headroom (trial replays, tests/js/oracle.js) on random ledgers, interleaved with queries
// at earlier times that go through the index, so that neither path leaves the other stale.
import { describe, expect, it } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';
import { OracleLedger } from './oracle.js';
import { mulberry32 } from './helpers.js';

const BASE_SEED = Number(process.env.GCL_DIFF_SEED ?? 20261201);

describe('headroom at or after the latest accepted consumption', () => {
  for (let round = 0; round < 40; round++) {
    const seed = BASE_SEED + round;
    it(`equals the oracle's (seed ${seed})`, () => {
      const random = mulberry32(seed);
      const ledger = new GPULedger();
      const oracle = new OracleLedger();
      const int = (n) => Math.floor(random() * n);
      let latest = -1;
      let checked = 0;
      for (let step = 0; step < 60; step++) {
        if (random() < 0.3) {
          const start = int(50);
          const args = [`g${step}`, 1 + int(10), start, start + int(25)];
          ledger.addGrant(...args);
          oracle.addGrant(...args);
        } else {
          // Mostly at the head, sometimes backdated.
          const t = random() < 0.7 ? Math.max(0, latest) + int(4) : int(Math.max(1, latest + 1));
          const args = [`c${step}`, 1 + int(6), t];
          const accepted = ledger.consume(...args);
          expect(accepted, `seed ${seed} step ${step}`).toBe(oracle.consume(...args));
          if (accepted) latest = Math.max(latest, t);
        }
        const times = [Math.max(0, latest), Math.max(0, latest) + int(10), latest + 40];
        if (latest > 0 && random() < 0.3) times.push(int(latest)); // an earlier time: the index path
        for (const t of times) {
          expect(ledger.headroom(t), `seed ${seed} step ${step} t ${t}`).toBe(oracle.headroom(t));
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(150);
      ledger.dispose();
    });
  }
});
