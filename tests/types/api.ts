// Compiled by `tsc --noEmit` only: the public types accept what the README shows and
// refuse what the ledger refuses.
import { GPULedger, LedgerError, loadLedger, type Allocation, type BalancePoint, type LedgerSnapshot } from 'gpu-credit-ledger';
import { loadLedger as loadFromLoad } from 'gpu-credit-ledger/load';

const ledger = new GPULedger();
ledger.addGrant('g1', 100, 0, 10);
const accepted: boolean = ledger.consume('c1', 80, 6);
const balance: number = ledger.getBalance(6);
const draws: Allocation[] | null = ledger.allocations('c1');
const curve: BalancePoint[] = ledger.balanceCurve(0, 20);
const [time, value] = curve[0];
const counts: number = ledger.grantCount + ledger.consumptionCount + time + value;
const doc: LedgerSnapshot = ledger.toJSON();
const copy: GPULedger = GPULedger.fromJSON(JSON.stringify(doc));
const heap: number = GPULedger.wasmHeapBytes() + GPULedger.maxHeapBytes;
copy.dispose();
ledger.dispose();
{
  using scoped = new GPULedger();
  scoped.getBalance(0);
}

try {
  ledger.consume('c1', 1, 1);
} catch (error) {
  if (error instanceof LedgerError) {
    const code: 'DUPLICATE_ID' | 'DISPOSED' | 'LIMIT_EXCEEDED' | 'OUT_OF_MEMORY' | 'INVALID_SNAPSHOT' = error.code;
    void code;
  }
}

async function viaLoader(): Promise<void> {
  const api = await loadLedger();
  const other = await loadFromLoad();
  new api.GPULedger().dispose();
  new other.GPULedger().dispose();
}

// @ts-expect-error amounts are numbers, not strings
ledger.addGrant('g2', '5', 0, 1);
// @ts-expect-error consume takes three arguments
ledger.consume('c2', 1);

void [accepted, balance, draws, counts, viaLoader, heap];
