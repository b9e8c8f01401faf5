// Compiled by `tsc --noEmit` only: the public types accept what the README shows and
// refuse what the ledger refuses.
import { GPULedger, LedgerError, loadLedger, type Allocation, type BalancePoint, type LedgerSnapshot } from 'gpu-credit-ledger';
import type {
  AcceptedPending,
  BurnDown,
  BurnDownDraw,
  ColumnResults,
  CompactResult,
  ConsumeResult,
  EventColumns,
  GrantChangeResult,
  GrantEndResult,
  GrantState,
  LedgerSnapshotV1,
  PendingConsumption,
  Reallocation,
  RejectReason,
  RemainingPoint,
} from 'gpu-credit-ledger';
import { loadLedger as loadFromLoad } from 'gpu-credit-ledger/load';

const ledger = new GPULedger();
ledger.addGrant('g1', 100, 0, 10);
const accepted: boolean = ledger.consume('c1', 80, 6);
const balance: number = ledger.getBalance(6);
const draws: Allocation[] | null = ledger.allocations('c1');
const curve: BalancePoint[] = ledger.balanceCurve(0, 20);
const [time, value] = curve[0];
const counts: number = ledger.grantCount + ledger.consumptionCount + time + value;
const compacted: CompactResult = ledger.compact(5);
const dropped: PendingConsumption[] = compacted.droppedPending;
const horizonNow: number = ledger.horizon + compacted.horizon + compacted.droppedGrants + compacted.droppedConsumptions;
void dropped;
void horizonNow;
// @ts-expect-error the horizon moves only through compact()
ledger.horizon = 3;
const doc: LedgerSnapshot = ledger.toJSON();
const docVersion: 2 = doc.version;
const docHorizon: number = doc.horizon;
void docVersion;
void docHorizon;
const older: LedgerSnapshotV1 = { format: 'gpu-credit-ledger', version: 1, grants: [], consumptions: [] };
GPULedger.fromJSON(older).dispose();
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
    const code: 'DUPLICATE_ID' | 'DISPOSED' | 'LIMIT_EXCEEDED' | 'OUT_OF_MEMORY' | 'INVALID_SNAPSHOT' | 'UNKNOWN_ID' | 'BEFORE_HORIZON' =
      error.code;
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

// Previews, grant lifecycle and pending consumptions.
function previews(l: GPULedger): void {
  const room: number = l.headroom(5);
  const preview: ConsumeResult = l.tryConsume('c9', 5, 5, { dryRun: true });
  const real: ConsumeResult = l.tryConsume('c9', 5, 5);
  const reason: RejectReason | null = preview.reason;
  const blocking: string | null = real.blockingEventId;
  const drawn: Allocation[] = preview.allocations;
  const states: GrantState[] = l.grantsAt(5);
  const left: number = states[0].remaining;
  const burn: BurnDown | null = l.burnDown('g1');
  if (burn !== null) {
    const [when, remaining]: RemainingPoint = burn.remaining[0];
    const first: BurnDownDraw = burn.draws[0];
    void [when, remaining, first.eventId];
  }
  const below: number | null = l.nextBelow(10, 0);
  const voided: GrantChangeResult = l.voidGrant('g1');
  const moved: GrantEndResult = l.setGrantEnd('g2', 20);
  const letIn: string[] = moved.acceptedPending;
  const outcome: 'accepted' | 'queued' = l.submit('p1', 5, 5);
  const queue: PendingConsumption[] = l.pending();
  const dropped: boolean = l.cancelPending('p1');
  const unsubscribe: () => void = l.onPendingAccepted((list: AcceptedPending[]) => {
    void list[0].allocations;
  });
  unsubscribe();
  // @ts-expect-error dryRun is a boolean
  l.tryConsume('c9', 5, 5, { dryRun: 'yes' });
  // @ts-expect-error unknown options are refused
  l.tryConsume('c9', 5, 5, { dryrun: true });
  // @ts-expect-error listeners receive an array
  l.onPendingAccepted((one: PendingConsumption) => void one);
  const rerouted: Reallocation[] = l.reallocated();
  const movedTo: string = rerouted[0].allocations[0].grantId;
  // @ts-expect-error reallocated takes no arguments
  l.reallocated('c1');
  void [room, reason, blocking, drawn, left, below, voided.applied, letIn, outcome, queue, dropped, movedTo];
}
void previews;

// applyColumns: typed-array columns in, a code per event and the errors out.
function columns(l: GPULedger) {
  const { results, errors }: ColumnResults = l.applyColumns({
    kinds: new Uint8Array([0, 1]),
    ids: new TextEncoder().encode('g1c1'),
    idEnds: new Uint32Array([2, 4]),
    amounts: new Float64Array([10, 4]),
    times: new Float64Array([0, 5]),
    endTimes: new Float64Array([9, 0]),
  });
  const code: number = results[1];
  const failure: Error | undefined = errors.get(0);
  const shape: EventColumns = {
    kinds: results,
    ids: results,
    idEnds: new Uint32Array(0),
    amounts: new Float64Array(0),
    times: new Float64Array(0),
    endTimes: new Float64Array(0),
  };
  // @ts-expect-error the ids travel as UTF-8 bytes, not strings
  l.applyColumns({ ...shape, ids: ['g1'] });
  void [code, failure, shape];
}
void columns;

// A remote ledger: every member a method returning a promise; a boolean property one
// method returning Promise<boolean> (not a union of two).
import type { RemoteLedger } from 'gpu-credit-ledger/remote';
type Exactly<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const remoteDisposed: Exactly<RemoteLedger['disposed'], () => Promise<boolean>> = true;
const remoteHorizon: Exactly<RemoteLedger['horizon'], () => Promise<number>> = true;
const remoteConsume: Exactly<RemoteLedger['consume'], (eventId: string, amount: number, timestamp: number) => Promise<boolean>> = true;
void [remoteDisposed, remoteHorizon, remoteConsume];
