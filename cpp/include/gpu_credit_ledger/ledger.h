// gpu-credit-ledger: a time-windowed credit ledger with exact earliest-expiry allocation.
// The behavioural contract is docs/semantics.md; this header is the C++ face of it. It knows
// nothing of JavaScript or Emscripten, returns status codes instead of throwing, and
// leaves the ledger unchanged whenever a call does not return Status::kOk.
#ifndef GPU_CREDIT_LEDGER_LEDGER_H_
#define GPU_CREDIT_LEDGER_LEDGER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gcl {

// Largest amount, time and grant total: 2^53 - 1, so every value is an exact JS number.
inline constexpr int64_t kMaxSafeInteger = (int64_t{1} << 53) - 1;
// Ids are at most this many UTF-8 bytes.
inline constexpr size_t kMaxIdBytes = 1024;

// Status codes are stable: the JS wrapper maps them to TypeError/RangeError/LedgerError.
enum class Status : int32_t {
  kOk = 0,
  kDuplicateId = 1,     // id exists with different parameters
  kInvalidId = 2,       // empty, longer than kMaxIdBytes, or not well-formed UTF-8
  kInvalidAmount = 3,   // not in [1, kMaxSafeInteger]
  kInvalidTime = 4,     // not in [0, kMaxSafeInteger]
  kInvalidWindow = 5,   // startTime > endTime
  kTotalOverflow = 6,   // the sum of all grant amounts would pass kMaxSafeInteger
  kUnknownId = 7,       // no accepted consumption (or grant) with that id
  kLimitExceeded = 8,   // the ledger's event limit is reached (see Ledger::kMaxEvents)
  kOutOfMemory = 9,     // the call could need more memory than the WASM heap can grow to
  kBeforeHorizon = 10,  // the call needs history before the finality horizon (Ledger::compact)
};

const char* statusName(Status status);

enum class EngineKind {
  kIncremental,  // cost follows what changes; the default
  kReplay,       // full replay on every call; the reference for differential tests
};

struct Allocation {
  std::string grantId;
  int64_t amount;
  bool operator==(const Allocation& other) const {
    return grantId == other.grantId && amount == other.amount;
  }
};

// A grant as it was added (Ledger::grant).
// A draw by grant index, for Ledger::grant(i) (Ledger::allocationIndexes).
struct IndexedDraw {
  uint32_t grant;
  int64_t amount;
};

struct GrantRecord {
  std::string_view grantId;
  int64_t amount;
  int64_t startTime;
  int64_t endTime;
};

// An accepted consumption as it was submitted (Ledger::consumption).
struct ConsumptionRecord {
  std::string_view eventId;
  int64_t amount;
  int64_t timestamp;
};

struct BalancePoint {
  int64_t time;
  int64_t balance;
  bool operator==(const BalancePoint& other) const {
    return time == other.time && balance == other.balance;
  }
};

// Why tryConsume did not accept a consumption.
enum class RejectReason : int32_t {
  kNone = 0,  // accepted
  // The new consumption is itself the first unfunded one in the replay with it inserted:
  // amount > getBalance(timestamp).
  kInsufficientCredit = 1,
  // It could be funded, but an accepted consumption later in replay order would lose its
  // funding; blockingEventId names the earliest such one.
  kWouldUnfund = 2,
};

struct ConsumeResult {
  bool accepted = false;
  std::vector<Allocation> allocations;  // its draws when accepted, else empty
  RejectReason reason = RejectReason::kNone;
  std::string blockingEventId;  // set for kWouldUnfund only
};

// A grant valid at some time, with what remains of it then (Ledger::grantsAt).
struct GrantState {
  std::string grantId;
  int64_t amount;
  int64_t startTime;
  int64_t endTime;
  int64_t remaining;
};

struct BurnDownDraw {
  int64_t timestamp;
  std::string eventId;
  int64_t amount;
};

struct RemainingPoint {
  int64_t time;
  int64_t remaining;
};

// One grant's history (Ledger::burnDown).
struct BurnDown {
  std::string grantId;
  int64_t amount = 0;
  int64_t startTime = 0;
  int64_t endTime = 0;
  std::vector<BurnDownDraw> draws;        // in replay order
  std::vector<RemainingPoint> remaining;  // step curve on [startTime, endTime]
};

// Outcome of voidGrant / setGrantEnd.
// (The queued consumptions an extension lets in leave through takeAcceptedPending, like
// those any other call lets in.)
struct GrantChange {
  bool applied = false;
  std::string blockingEventId;  // set when refused
};

// A consumption queued by Ledger::submit.
struct PendingConsumption {
  std::string eventId;
  int64_t amount;
  int64_t timestamp;
};

enum class SubmitOutcome : int32_t { kAccepted = 0, kQueued = 1 };

// An accepted consumption whose allocations a call changed (Ledger::reallocated).
struct Reallocation {
  std::string eventId;
  int64_t amount;
  int64_t timestamp;
  std::vector<Allocation> allocations;  // its draws now, in draw order
};

// What Ledger::compact made final and freed.
struct CompactResult {
  int64_t horizon = 0;                             // the horizon in force after the call
  size_t droppedGrants = 0;                        // grants that ended before it
  size_t droppedConsumptions = 0;                  // accepted consumptions before it
  std::vector<PendingConsumption> droppedPending;  // queued consumptions before it, in retry order
};

class Engine;
class IdIndex;
class PendingQueue;
class RedrawLog;
class TimeMirror;
struct GrantTable;

class Ledger {
 public:
  // Grants plus accepted consumptions. A bound keeps every index in 32 bits and memory
  // predictable; callers get kLimitExceeded, never an abort.
  static constexpr size_t kMaxEvents = size_t{1} << 26;

  explicit Ledger(EngineKind kind = EngineKind::kIncremental);
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Adds credits valid on [startTime, endTime]. Retrying with identical parameters is a
  // no-op returning kOk.
  Status addGrant(std::string_view grantId, int64_t amount, int64_t startTime, int64_t endTime);

  // Sets *accepted to whether every accepted consumption, old and new, stays funded.
  // A rejected consumption leaves no trace. Retrying an accepted id with identical
  // parameters sets *accepted = true and changes nothing.
  Status consume(std::string_view eventId, int64_t amount, int64_t timestamp, bool* accepted);

  // Credits left at `timestamp` in grants valid then, after every accepted consumption
  // at or before `timestamp`.
  Status getBalance(int64_t timestamp, int64_t* balance) const;

  // The draws of an accepted consumption under the current replay, in draw order.
  Status allocations(std::string_view eventId, std::vector<Allocation>* out) const;
  // The same draws by grant index, with no copy of an id: for a caller that writes them
  // out itself (the WebAssembly binding, whose result is sized before it is written).
  Status allocationIndexes(std::string_view eventId, std::vector<IndexedDraw>* out) const;

  // Breakpoints of the balance step function on [from, to]: the first point is `from`,
  // then every time in (from, to] at which the balance changes.
  Status balanceCurve(int64_t from, int64_t to, std::vector<BalancePoint>* out) const;

  size_t grantCount() const;
  size_t consumptionCount() const;
  // The index-th grant in the order added, and the index-th accepted consumption in
  // acceptance order: together with horizon() they rebuild an identical ledger
  // (snapshots). A grant whose startTime is before horizon() was carried across it: its
  // amount is what was left at the horizon (restoreGrant takes it back).
  GrantRecord grant(size_t index) const;
  ConsumptionRecord consumption(size_t index) const;
  // Heap bytes held by this ledger (ids, grants, engine), for memory budgets.
  size_t memoryBytes() const;
  // Bulk loading: makes room at once for `consumptions` more accepted consumptions (their
  // ids, the engine's per-consumption arrays), so that loading that many does not grow
  // and copy them step by step. Changes no answer; memoryBytes() counts the room.
  void reserve(size_t consumptions);
  // How many of `count` more events the event limit (kMaxEvents) leaves room for: what
  // reserve() makes room for at most.
  size_t eventRoom(size_t count) const;
  // What reserve(consumptions) would add to memoryBytes(), at most.
  size_t reserveBytes(size_t consumptions) const;
  // Bytes the next calls may allocate for an optional index beyond what they must (see
  // Engine::setIndexAllowance); answers never depend on it. Unlimited by default.
  void setIndexAllowance(size_t bytes);
  // Tests and the fuzzer: the incremental engine's least re-draw budget before its bounds
  // decide (Engine::setMinimumRedrawBudget), so that small ledgers take every path of
  // docs/algorithms.md, facts 18 and 22. Kept across rebuilds. Answers never depend on it.
  void setMinimumRedrawBudget(size_t budget);
  // Whether headroom() now answers from a mirror of the ledger in reversed time (tests; see
  // mirror_ below), and how many mirrors a write that re-drew too much of them gave up.
  bool hasTimeMirror() const { return mirror_ != nullptr; }
  uint32_t timeMirrorsGivenUp() const { return mirrorsGivenUp_; }
  // Bulk loading: reads where the id tables would look up each of `count` ids (`ids[k]`
  // in the grant ids if `grant[k]`, else in the event ids), so that a loader touching the
  // next few events' ids first has their cache misses overlap. Every id is hashed before
  // the first read: the reads then follow one another closely enough to be in flight
  // together. Changes nothing observable. A loader calls it for the next kPrefetchRun
  // events (longer lists are taken kPrefetchRun at a time).
  static constexpr size_t kPrefetchRun = 16;
  void prefetchIds(const std::string_view* ids, const bool* grant, size_t count) const;

  // --- Customer-facing previews (cpp/src/preview.cpp) ---

  // The largest amount consume(_, amount, timestamp) would accept now (0 if none). Exact
  // (docs/algorithms.md, fact 6). The first query after a change builds an index in
  // O((n + G) log(n + G)); later queries are O(log(n + G)).
  Status headroom(int64_t timestamp, int64_t* amount) const;

  // consume() with an explanation. Same validation, retry and DUPLICATE_ID rules. With
  // dryRun nothing changes. A rejection with kWouldUnfund re-draws up to the blocker
  // (docs/algorithms.md, fact 18); a retry is O(log n) until a change reaches the
  // blocker's time (in-order consumptions and grants for the future do not).
  Status tryConsume(std::string_view eventId, int64_t amount, int64_t timestamp, bool dryRun,
                    ConsumeResult* out);

  // The grants valid at `timestamp`, in draw order, with what remains of each after the
  // consumptions at or before `timestamp`.
  Status grantsAt(int64_t timestamp, std::vector<GrantState>* out) const;

  // The draws on one grant and its remaining credit over its window; kUnknownId if absent.
  Status burnDown(std::string_view grantId, BurnDown* out) const;

  // The earliest t >= from with getBalance(t) < threshold, or nullopt if there is none.
  Status nextBelow(int64_t threshold, int64_t from, std::optional<int64_t>* time) const;

  // --- Grant lifecycle (cpp/src/grant_lifecycle.cpp) ---
  // Each is atomic: applied only if every accepted consumption stays funded, otherwise
  // nothing changes and blockingEventId names the earliest unfunded one in replay order.
  // Both rebuild the allocation state: O((n + G) log(n + G)) per call.

  // Removes a grant; its id is free again afterwards.
  Status voidGrant(std::string_view grantId, GrantChange* out);
  // Moves a grant's end (early expiry or extension); kInvalidWindow if endTime < startTime.
  // An extension then retries the queued consumptions (takeAcceptedPending).
  Status setGrantEnd(std::string_view grantId, int64_t endTime, GrantChange* out);

  // --- Pending consumptions (cpp/src/pending.cpp) ---
  // Event ids of queued and accepted consumptions share one namespace.

  // consume(), but an unfundable consumption is queued instead of rejected. Queued ones
  // are retried in (timestamp, arrival) order after every change that adds credit
  // (addGrant, an extending setGrantEnd). Resubmitting a queued id identically: kQueued.
  Status submit(std::string_view eventId, int64_t amount, int64_t timestamp,
                SubmitOutcome* outcome);
  // The queued consumptions in retry order.
  void pending(std::vector<PendingConsumption>* out) const;
  size_t pendingCount() const;
  // Drops a queued consumption; *cancelled is false if the id is not queued.
  Status cancelPending(std::string_view eventId, bool* cancelled);
  // Moves out the queued consumptions accepted by retries since the last call, in the
  // order they were accepted.
  void takeAcceptedPending(std::vector<PendingConsumption>* out);

  // --- Finality horizon (cpp/src/horizon.cpp; docs/semantics.md, "Finality horizon") ---

  // Makes everything strictly before `horizon` final. Afterwards the ledger answers every
  // call it accepts exactly like a fresh ledger built from: each grant with
  // endTime >= horizon, with start max(startTime, horizon) and the credit the
  // consumptions before `horizon` left in it (kept even when that is 0, so its id stays
  // taken); then the accepted consumptions at or after `horizon`, in replay order. Grants
  // that ended and consumptions (accepted or queued) before it are dropped and freed. A
  // call that needs the past returns kBeforeHorizon and changes nothing. A horizon at or
  // below the current one changes nothing (out->horizon reports the current one).
  // Rebuilds the ledger: O((n + G) log(n + G)) for what it keeps, plus what it drops.
  Status compact(int64_t horizon, CompactResult* out);
  // 0 until the first compact().
  int64_t horizon() const { return horizon_; }
  // Adds a grant as a version-2 snapshot lists it. With startTime < horizon() <= endTime it
  // is a grant carried across the horizon: `amount` is what was left at the horizon (0
  // allowed) and it counts as started before the horizon (voidGrant / setGrantEnd rules).
  // Otherwise it is addGrant().
  Status restoreGrant(std::string_view grantId, int64_t amount, int64_t startTime, int64_t endTime);

  // --- Reallocations (cpp/src/reallocation.cpp) ---

  // The accepted consumptions whose allocations the last call changed, in replay order,
  // with their allocations now: a late grant or a backdated consumption re-routes earlier
  // draws, voidGrant / setGrantEnd move draws off a grant. "The last call" is the most
  // recent addGrant, consume, tryConsume (not a dry run), submit, voidGrant, setGrantEnd,
  // cancelPending or compact that returned kOk; a call that fails leaves the answer as it
  // was. Consumptions the call itself accepted are not listed (they had no allocations
  // before it). Cost: the consumptions the engine re-drew in that call.
  void reallocated(std::vector<Reallocation>* out) const;
  // The same consumptions as indexes for consumption(i), in the same order, with no copy of
  // an id: for a caller that reads each one's allocations in turn (the WebAssembly
  // binding, whose result can then be sized before it is written).
  void reallocatedIndexes(std::vector<uint32_t>* out) const;
  // Empties reallocated()'s answer: for a ledger rebuilt call by call from a snapshot,
  // whose own history the caller does not see.
  void clearReallocated() { startReallocations(); }

  // --- Calls with no room to run (the WebAssembly binding, at its heap's ceiling) ---

  // What a consume (`submit` false) or submit (true) may answer when it cannot run,
  // reading only: *unchanged for an identical retry that changes nothing (of an accepted
  // consumption, *accepted true; for submit also of a queued one, *accepted false); a
  // status other than kOk for the refusal the call would give (its input, its id, the
  // horizon, the event limit); kOk without *unchanged when the call would have to run.
  Status consumptionWithoutRoom(std::string_view eventId, int64_t amount, int64_t timestamp,
                                bool submit, bool* unchanged, bool* accepted) const;
  // The same for addGrant: *unchanged for an identical retry.
  Status grantWithoutRoom(std::string_view grantId, int64_t amount, int64_t startTime,
                          int64_t endTime, bool* unchanged) const;
  // The same for voidGrant (no endTime) and setGrantEnd: its refusal (its input, its id, the
  // horizon); *unchanged for an end the grant already has.
  Status grantChangeWithoutRoom(std::string_view grantId, std::optional<int64_t> endTime,
                                bool* unchanged) const;
  // The same for compact: its refusal, or *unchanged for a horizon at or before the current one.
  Status compactWithoutRoom(int64_t horizon, bool* unchanged) const;
  // The same for headroom: its refusal, or *amount with *answered at or after the latest
  // accepted consumption, where the balance answers and no index is needed (fact 7).
  Status headroomWithoutRoom(int64_t timestamp, int64_t* amount, bool* answered) const;
  // The same for balanceCurve: its refusal for its range or the horizon, else kOk.
  Status balanceCurveWithoutRoom(int64_t from, int64_t to) const;

  // Checks the ledger's and its engine's internal invariants (tests and fuzzing; O((n + G)
  // log(n + G))). Empty when they hold, else the first violation in words.
  std::string checkInvariants() const;

 private:
  std::unique_ptr<GrantTable> grants_;
  std::unique_ptr<IdIndex> eventIds_;
  std::unique_ptr<Engine> engine_;
  int64_t grantTotal_ = 0;

  // Pending consumptions (cpp/src/pending.cpp); created on first use.
  Status checkPending(std::string_view eventId, int64_t amount, int64_t timestamp) const;
  // checkPending, also saying whether the id is queued (*queued).
  Status checkQueued(std::string_view eventId, int64_t amount, int64_t timestamp,
                     bool* queued) const;
  // idHash: the id's IdIndex::hash, when the caller has it.
  void acceptEventId(std::string_view eventId);
  void acceptEventId(std::string_view eventId, uint32_t idHash);
  void retryPending();
  // The checks consume() makes before it draws, in order (validation, the horizon, ids,
  // the event limit). Sets *retry for an identical retry of an accepted consumption, and
  // *idHash (if given) to the id's hash once the id is valid.
  Status admitConsumption(std::string_view eventId, int64_t amount, int64_t timestamp, bool* retry,
                          uint32_t* idHash = nullptr) const;
  // kLimitExceeded when one more event would pass kMaxEvents, counting `queued` queued
  // consumptions as events too: the one place the event limit is checked.
  Status roomForEvent(size_t queued = 0) const;
  // Starts what reallocated() reports: called by each call it covers once the call's
  // checks have passed (reallocation.cpp).
  void startReallocations();
  // Notes the consumptions a rebuild (replaceWith) draws differently (reallocation.cpp).
  void noteRebuildRedraws(const GrantTable& table, const Engine& engine,
                          const std::vector<uint32_t>& order);
  // Swaps in `table` if every accepted consumption stays funded under it (grant_lifecycle.cpp).
  void rebuildWith(std::unique_ptr<GrantTable> table, int64_t total, GrantChange* out);

  // Replaces grants, ids and engine by ones rebuilt from `table` and the consumptions
  // `order` (handles in replay order), fed in that order (grant_lifecycle.cpp).
  void replaceWith(std::unique_ptr<GrantTable> table, const std::vector<uint32_t>& order,
                   int64_t total);
  // addGrant after the argument checks (ledger.cpp): an identical retry, DUPLICATE_ID, the
  // grant total, the event limit, then the grant. restoreGrant shares it.
  Status insertGrant(std::string_view grantId, int64_t amount, int64_t startTime, int64_t endTime);
  // insertGrant's checks before it adds, reading only: *retry for an identical retry of an
  // existing grant (kOk), DUPLICATE_ID for one with other arguments, then the grant total
  // and the event limit for a new one. idHash: the id's IdIndex::hash.
  Status admitGrant(std::string_view grantId, uint32_t idHash, int64_t amount, int64_t startTime,
                    int64_t endTime, bool* retry) const;
  // addGrant's argument checks, in order.
  Status checkGrant(std::string_view grantId, int64_t amount, int64_t startTime,
                    int64_t endTime) const;
  // voidGrant's (no endTime) and setGrantEnd's checks, in order, reading only; *grant is
  // the grant's index once its id is found.
  Status checkGrantChange(std::string_view grantId, std::optional<int64_t> endTime,
                          uint32_t* grant) const;
  // setGrantEnd's refusal for a grant that started before the horizon (horizon.cpp).
  bool endChangeReordersFinalDraws(uint32_t grant, int64_t endTime) const;
  bool startedBeforeHorizon(uint32_t grant) const;

  std::unique_ptr<PendingQueue> pending_;
  std::vector<PendingConsumption> acceptedPending_;
  // Everything strictly before it is final (compact); grants whose stored startTime is
  // before it were carried across it and start there.
  int64_t horizon_ = 0;
  // What the last call re-drew (reallocated()); consumptions from handle
  // reallocationFrom_ on were accepted by that call.
  std::unique_ptr<RedrawLog> redrawLog_;
  size_t reallocationFrom_ = 0;
  size_t indexAllowance_ = SIZE_MAX;  // passed on to every engine this ledger makes

  // The ledger in reversed time (time_mirror.h), from which headroom() answers any time in
  // O(log n): built once previews at earlier times come back after writes (mirrorAfter_
  // such queries; doubled each time a mirror is given up), fed every grant and accepted
  // consumption, dropped by a rebuild of the grants or by a write that re-draws too much of
  // it. Only the incremental engine's ledger keeps one.
  __attribute__((noinline)) bool headroomFromMirror() const;
  void mirrorGrant(uint32_t grant);
  void mirrorConsumption(int64_t amount, int64_t timestamp);
  __attribute__((noinline)) void giveUpMirror();
  mutable std::unique_ptr<TimeMirror> mirror_;
  uint64_t writes_ = 0;                          // grants and accepted consumptions, rebuilds
  mutable uint64_t writesAtQuery_ = UINT64_MAX;  // writes_ at the last earlier-time query
  mutable uint32_t queriesAfterWrites_ = 0;
  uint32_t mirrorAfter_ = 2;
  uint32_t mirrorsGivenUp_ = 0;
  // Where prefetchIds's reads go, so that the compiler keeps them.
  mutable uint32_t prefetched_ = 0;
};

// True when `id` is non-empty, at most kMaxIdBytes and well-formed UTF-8 (no surrogates,
// no overlong forms): exactly the ids a well-formed JS string encodes to.
bool isValidId(std::string_view id);

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_LEDGER_H_
