// gpu-credit-ledger: a time-windowed credit ledger with exact earliest-expiry allocation.
// The behavioural contract is SEMANTICS.md; this header is the C++ face of it. It knows
// nothing of JavaScript or Emscripten, returns status codes instead of throwing, and
// leaves the ledger unchanged whenever a call does not return Status::kOk.
#ifndef GPU_CREDIT_LEDGER_LEDGER_H_
#define GPU_CREDIT_LEDGER_LEDGER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
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
  kDuplicateId = 1,       // id exists with different parameters
  kInvalidId = 2,         // empty, longer than kMaxIdBytes, or not well-formed UTF-8
  kInvalidAmount = 3,     // not in [1, kMaxSafeInteger]
  kInvalidTime = 4,       // not in [0, kMaxSafeInteger]
  kInvalidWindow = 5,     // startTime > endTime
  kTotalOverflow = 6,     // the sum of all grant amounts would pass kMaxSafeInteger
  kUnknownId = 7,         // no accepted consumption (or grant) with that id
  kLimitExceeded = 8,     // the ledger's event limit is reached (see Ledger::kMaxEvents)
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

struct BalancePoint {
  int64_t time;
  int64_t balance;
  bool operator==(const BalancePoint& other) const {
    return time == other.time && balance == other.balance;
  }
};

class Engine;
class IdIndex;
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

  // Breakpoints of the balance step function on [from, to]: the first point is `from`,
  // then every time in (from, to] at which the balance changes.
  Status balanceCurve(int64_t from, int64_t to, std::vector<BalancePoint>* out) const;

  size_t grantCount() const;
  size_t consumptionCount() const;

 private:
  std::unique_ptr<GrantTable> grants_;
  std::unique_ptr<IdIndex> eventIds_;
  std::unique_ptr<Engine> engine_;
  int64_t grantTotal_ = 0;
};

// True when `id` is non-empty, at most kMaxIdBytes and well-formed UTF-8 (no surrogates,
// no overlong forms): exactly the ids a well-formed JS string encodes to.
bool isValidId(std::string_view id);

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_LEDGER_H_
