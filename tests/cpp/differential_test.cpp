// Random operation sequences of the shapes that stress the engine's paths (backdated
// draws, late grants, long re-draw chains: docs/algorithms.md, facts 12-14), each run
// through the incremental engine, the reference replay and the test model, compared after
// every operation (differential_check.h). A failure prints its seed, the mismatch and a
// shrunken C++ repro.
//
// Environment: GCL_DIFF_SEED (base seed, default fixed), GCL_DIFF_SCALE (multiplies the
// number of sequences, default 1), GCL_DIFF_ONLY_SEED (run just that sequence seed),
// GCL_DIFF_PRINT=1 (print every sequence with the reference's answers).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "differential_check.h"
#include "gpu_credit_ledger/ledger.h"
#include "ledger_ops.h"

namespace gcl_test {
namespace {

using gcl::kMaxSafeInteger;

uint64_t envNumber(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::strtoull(value, nullptr, 0) : fallback;
}

// Builds one sequence: valid operations from a shape, plus retries, duplicates, ids shared
// across namespaces and refused arguments mixed in at a chosen rate.
class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  int64_t between(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(between(0, static_cast<int64_t>(items.size()) - 1))];
  }

  void grant(int64_t amount, int64_t start, int64_t end) {
    push(Op::grant(freshId(&grants_), amount, start, end));
  }
  void consume(int64_t amount, int64_t timestamp) {
    push(Op::consume(freshId(&events_), amount, timestamp));
  }
  // Lifecycle operations aim at ids used before, so that they mostly find their target.
  void voidGrant() { push(Op::voidGrant(usedId(Op::Kind::kAddGrant, &grants_))); }
  void setGrantEnd(int64_t endTime) {
    push(Op::setGrantEnd(usedId(Op::Kind::kAddGrant, &grants_), endTime));
  }
  void submit(int64_t amount, int64_t timestamp) {
    push(Op::submit(freshId(&events_), amount, timestamp));
  }
  void cancelPending() { push(Op::cancelPending(usedId(Op::Kind::kSubmit, &events_))); }
  void setNoise(double rate) { noise_ = rate; }
  std::vector<Op> take() { return std::move(ops_); }

 private:
  // Prefixes that make the (endTime, id) tie-break matter: byte order, multi-byte UTF-8,
  // and U+FF71 vs U+1F600, which UTF-16 order would swap.
  std::string freshId(int* counter) {
    static const std::vector<std::string> prefixes{
        "", "a", "b", "Z", "\xC3\xA9", "\xEF\xBD\xB1", "\xF0\x9F\x98\x80"};
    return pick(prefixes) + std::to_string((*counter)++);
  }

  std::string usedId(Op::Kind kind, int* counter) {
    std::vector<std::string> ids;
    for (const Op& op : ops_) {
      if (op.kind == kind) ids.push_back(op.id);
    }
    return ids.empty() || chance(0.1) ? freshId(counter) : pick(ids);
  }

  void push(Op op) {
    ops_.push_back(std::move(op));
    if (noise_ > 0 && chance(noise_)) addNoise();
  }

  void addNoise() {
    Op op = pick(ops_);
    switch (between(0, 9)) {
      case 0:
      case 1:
      case 2:  // retry, identical
        break;
      case 3:
      case 4:  // same id, one parameter changed
        switch (between(0, 2)) {
          case 0:
            op.amount = op.amount > 1 ? op.amount - 1 : 2;
            break;
          case 1:
            op.time = op.time > 0 ? op.time - 1 : 1;
            break;
          default:
            if (op.isGrant())
              op.endTime = op.endTime < kMaxSafeInteger ? op.endTime + 1 : op.endTime;
            else
              op.amount = op.amount < kMaxSafeInteger ? op.amount + 1 : 1;
        }
        if (op.isGrant() && op.time > op.endTime) op.time = op.endTime;
        break;
      case 5:  // the id in the other namespace
        op.kind = op.isGrant() ? Op::Kind::kConsume : Op::Kind::kAddGrant;
        if (op.isGrant())
          op.endTime = op.time <= kMaxSafeInteger - 10 ? op.time + between(0, 10) : op.time;
        break;
      default:  // one refused argument
        breakOneArgument(&op);
    }
    ops_.push_back(std::move(op));
  }

  void breakOneArgument(Op* op) {
    static const std::vector<std::string> badIds{"", std::string(gcl::kMaxIdBytes + 1, 'x'),
                                                 "\xED\xA0\x80", "\xC0\xAF", "\xE2\x82"};
    static const std::vector<int64_t> badAmounts{0, -1, kMaxSafeInteger + 1, INT64_MIN, INT64_MAX};
    static const std::vector<int64_t> badTimes{-1, kMaxSafeInteger + 1, INT64_MIN, INT64_MAX};
    switch (between(0, op->isGrant() ? 4 : 2)) {
      case 0:
        op->id = pick(badIds);
        break;
      case 1:
        op->amount = pick(badAmounts);
        break;
      case 2:
        op->time = pick(badTimes);
        break;
      case 3:
        op->endTime = pick(badTimes);
        break;
      default:
        if (op->time <= 0 || op->time > kMaxSafeInteger) op->time = 1;
        op->endTime = op->time - 1;
    }
  }

  std::mt19937_64 rng_;
  std::vector<Op> ops_;
  double noise_ = 0.05;
  int grants_ = 0;
  int events_ = 0;
};

using Shape = std::function<void(Gen&)>;

uint64_t nameHash(const char* name) {  // FNV-1a, so that seeds mean the same everywhere
  uint64_t h = 1469598103934665603ULL;
  for (; *name != '\0'; ++name) h = (h ^ static_cast<unsigned char>(*name)) * 1099511628211ULL;
  return h % 1000003;
}

struct ShapeRun {
  const char* name;
  int sequences;
  CheckOptions options;
  Shape make;
};

void runShape(const ShapeRun& run) {
  const uint64_t base = envNumber("GCL_DIFF_SEED", 20240611);
  const uint64_t only = envNumber("GCL_DIFF_ONLY_SEED", 0);
  const bool print = envNumber("GCL_DIFF_PRINT", 0) != 0;
  const double scale =
      std::atof(std::getenv("GCL_DIFF_SCALE") ? std::getenv("GCL_DIFF_SCALE") : "1");
  const int count = std::max(1, static_cast<int>(run.sequences * scale));
  size_t totalOps = 0;
  int ran = 0;
  for (int i = 0; i < count; ++i) {
    const uint64_t seed = (base * 1000003 + nameHash(run.name)) * 100000 + i;
    if (only != 0 && seed != only) continue;
    Gen gen(seed);
    run.make(gen);
    const std::vector<Op> ops = gen.take();
    totalOps += ops.size();
    ++ran;
    SCOPED_TRACE("shape " + std::string(run.name) + ", sequence " + std::to_string(i) +
                 ", GCL_DIFF_ONLY_SEED=" + std::to_string(seed));
    if (print)
      std::printf("-- seed %llu\n%s", static_cast<unsigned long long>(seed),
                  reproText(ops, Mismatch::Kind::kFastVsReference).c_str());
    const Mismatch m = findMismatch(ops, run.options);
    if (!m) continue;
    const std::vector<Op> small = shrink(ops, m.kind);
    FAIL() << (m.kind == Mismatch::Kind::kModelVsReference ? "the model and the reference "
                                                           : "the incremental engine ")
           << "disagree after op #" << m.opIndex << " of " << ops.size() << ": " << m.what
           << "\n  at: " << cppCall(ops[m.opIndex]) << "\nshrunk to " << small.size() << " ops:\n"
           << reproText(small, m.kind);
  }
  std::printf("[ shape    ] %s: %d sequences, %zu ops\n", run.name, ran, totalOps);
}

// Tiny time ranges: many equal timestamps, equal end times and window-edge hits.
TEST(Differential, SmallTimeRangesWithCollisions) {
  runShape({"small-ranges", 12000, {1, true}, [](Gen& g) {
              const int64_t horizon = g.between(1, 12);
              const int64_t n = g.between(5, 40);
              for (int64_t i = 0; i < n; ++i) {
                if (g.chance(0.4)) {
                  const int64_t start = g.between(0, horizon);
                  g.grant(g.between(1, 8), start, g.between(start, horizon));
                } else {
                  g.consume(g.between(1, 6), g.between(0, horizon));
                }
              }
            }});
}

// The common case: time moves forward, ~10% of usage arrives late within a bounded lag.
TEST(Differential, InOrderAppendsWithBackdatedDraws) {
  runShape({"in-order-backdated", 400, {8, true}, [](Gen& g) {
              g.setNoise(0.02);
              const int64_t n = g.between(100, 250);
              int64_t clock = 0;
              for (int64_t i = 0; i < n; ++i) {
                clock += g.between(0, 3);
                if (g.chance(0.15)) {
                  const int64_t start = std::max<int64_t>(0, clock - g.between(0, 5));
                  g.grant(g.between(20, 200), start, start + g.between(5, 80));
                } else {
                  const bool late = g.chance(0.1);
                  g.consume(g.between(1, 20),
                            late ? std::max<int64_t>(0, clock - g.between(1, 20)) : clock);
                }
              }
            }});
}

// Grants arrive after draws in their window, ending before, after and together with the
// grants already drawn (end times on a coarse grid, so the id tie-break decides often).
TEST(Differential, OutOfOrderGrants) {
  runShape({"out-of-order-grants", 3000, {1, true}, [](Gen& g) {
              const int64_t n = g.between(20, 90);
              g.grant(g.between(10, 80), 0, 100);
              for (int64_t i = 0; i < n; ++i) {
                if (g.chance(0.45)) {
                  const int64_t end = 10 * g.between(1, 10);
                  g.grant(g.between(1, 20), std::max<int64_t>(0, end - g.between(0, 40)), end);
                } else {
                  g.consume(g.between(1, 10), g.between(0, 100));
                }
              }
            }});
}

// Supply about equal to demand, everything in random order: near exhaustion, long chains.
TEST(Differential, SupplyAboutEqualToDemand) {
  runShape({"supply-equals-demand", 3000, {1, true}, [](Gen& g) {
              const int64_t horizon = g.between(10, 200);
              std::vector<Op> plan;
              int64_t supply = 0;
              for (int64_t k = g.between(2, 16); k > 0; --k) {
                const int64_t start = g.between(0, horizon);
                const int64_t amount = g.between(5, 40);
                supply += amount;
                plan.push_back(Op::grant("", amount, start,
                                         std::min(horizon, start + g.between(0, horizon / 2))));
              }
              const int64_t demand = supply * g.between(90, 115) / 100;
              for (int64_t sum = 0; sum < demand;) {
                const int64_t amount = g.between(1, 10);
                sum += amount;
                plan.push_back(Op::consume("", amount, g.between(0, horizon)));
              }
              for (size_t i = plan.size(); i > 1; --i) {
                std::swap(plan[i - 1],
                          plan[static_cast<size_t>(g.between(0, static_cast<int64_t>(i) - 1))]);
              }
              for (const Op& op : plan) {
                if (op.isGrant())
                  g.grant(op.amount, op.time, op.endTime);
                else
                  g.consume(op.amount, op.time);
              }
            }});
}

// Overlapping grants in a staircase, each window meeting only its neighbours', with demand
// close to supply: a backdated draw or a late grant pushes draws down the whole chain.
TEST(Differential, StaircaseChains) {
  runShape({"staircase", 1500, {1, true}, [](Gen& g) {
              const int64_t step = g.between(1, 4);
              const int64_t steps = g.between(4, 30);
              std::vector<Op> plan;
              int64_t supply = 0;
              for (int64_t i = 0; i < steps; ++i) {
                const int64_t amount = g.between(1, 5);
                supply += amount;
                plan.push_back(Op::grant("", amount, i * step, (i + 2) * step - 1));
              }
              for (int64_t sum = 0; sum < supply;) {
                const int64_t amount = g.between(1, 3);
                sum += amount;
                plan.push_back(Op::consume("", amount, g.between(0, (steps + 1) * step - 1)));
              }
              // Mostly in time order with grants first, then a few swapped far apart.
              std::stable_sort(plan.begin(), plan.end(), [](const Op& a, const Op& b) {
                return a.isGrant() != b.isGrant() ? a.isGrant() : a.time < b.time;
              });
              for (int64_t swaps = g.between(1, 6); swaps > 0; --swaps) {
                const auto last = static_cast<int64_t>(plan.size()) - 1;
                std::swap(plan[static_cast<size_t>(g.between(0, last))],
                          plan[static_cast<size_t>(g.between(0, last))]);
              }
              for (const Op& op : plan) {
                if (op.isGrant())
                  g.grant(op.amount, op.time, op.endTime);
                else
                  g.consume(op.amount, op.time);
              }
            }});
}

// Every grant ends at one of two times: the id decides nearly every draw order.
TEST(Differential, EqualEndTimesEverywhere) {
  runShape({"equal-ends", 1000, {1, true}, [](Gen& g) {
              const int64_t end = g.between(5, 30);
              const int64_t otherEnd = end + g.between(0, 3);
              const int64_t n = g.between(6, 40);
              for (int64_t i = 0; i < n; ++i) {
                if (g.chance(0.4)) {
                  g.grant(g.between(1, 10), g.between(0, end), g.chance(0.7) ? end : otherEnd);
                } else {
                  g.consume(g.between(1, 8), g.between(0, otherEnd));
                }
              }
            }});
}

// Many small grants ending at a few times and large consumptions drawing on dozens of
// them, then late grants ending first: each re-draw offers a consumption more than a dozen
// grants, most ending at the same time (the long path of the late grant's sort).
TEST(Differential, WideDrawsAndLateGrantsOnEqualEnds) {
  runShape({"wide-draws", 300, {1, true}, [](Gen& g) {
              const int64_t end = g.between(40, 60);
              for (int64_t i = g.between(40, 90); i > 0; --i) {
                g.grant(g.between(1, 3), g.between(0, 10), end + g.between(0, 2));
              }
              for (int64_t i = g.between(2, 6); i > 0; --i) {
                g.consume(g.between(15, 60), g.between(10, 30));
              }
              for (int64_t i = g.between(1, 5); i > 0; --i) {
                if (g.chance(0.7)) {
                  g.grant(g.between(5, 40), g.between(0, 12), g.between(30, end));  // ends first
                } else {
                  g.consume(g.between(1, 20), g.between(10, 40));
                }
              }
            }});
}

// One huge grant and many small draws, some backdated, a few short-lived small grants.
TEST(Differential, OneHugeGrantManySmallDraws) {
  runShape({"one-huge-grant", 60, {25, true}, [](Gen& g) {
              g.setNoise(0.02);
              g.grant(g.between(1'000'000'000, 1'000'000'000'000), 0, 1'000'000);
              const int64_t n = g.between(200, 450);
              int64_t clock = 0;
              for (int64_t i = 0; i < n; ++i) {
                clock = std::min<int64_t>(1'000'000, clock + g.between(0, 5000));
                if (g.chance(0.03)) {
                  const int64_t start = g.between(0, 1'000'000);
                  g.grant(g.between(1, 500), start, start + g.between(0, 2000));
                } else {
                  g.consume(g.between(1, 1000), g.chance(0.1) ? g.between(0, 1'000'000) : clock);
                }
              }
            }});
}

// Timestamps uniformly at random: every operation is out of order.
TEST(Differential, RandomTimestamps) {
  runShape({"random-timestamps", 800, {4, true}, [](Gen& g) {
              const int64_t n = g.between(50, 180);
              for (int64_t i = 0; i < n; ++i) {
                if (g.chance(0.25)) {
                  const int64_t start = g.between(0, 1000);
                  g.grant(g.between(10, 100), start, start + g.between(0, 300));
                } else {
                  g.consume(g.between(1, 40), g.between(0, 1000));
                }
              }
            }});
}

// Amounts, times and totals at the edges of 2^53 - 1, where an overflow would show.
TEST(Differential, ValuesNearTheLimits) {
  runShape({"near-limits", 5000, {1, true}, [](Gen& g) {
              const int64_t m = kMaxSafeInteger;
              const std::vector<int64_t> amounts{
                  m, m - 1, m - 2, m / 2, m / 2 + 1, m / 3, int64_t{1} << 52, 1, 2, 3};
              const std::vector<int64_t> times{0, 1, 2, m, m - 1, m - 2, m / 2, int64_t{1} << 52};
              const int64_t n = g.between(4, 30);
              for (int64_t i = 0; i < n; ++i) {
                if (g.chance(0.4)) {
                  int64_t start = g.pick(times), end = g.pick(times);
                  if (start > end) std::swap(start, end);
                  g.grant(g.pick(amounts), start, end);
                } else {
                  g.consume(g.chance(0.5) ? g.pick(amounts) : g.between(1, m), g.pick(times));
                }
              }
            }});
}

// Retries, duplicates, ids in the other namespace and refused arguments at a high rate.
TEST(Differential, RetriesDuplicatesAndBadInput) {
  runShape({"retries-duplicates", 4000, {1, true}, [](Gen& g) {
              g.setNoise(0.45);
              const int64_t horizon = g.between(3, 30);
              const int64_t n = g.between(5, 30);
              for (int64_t i = 0; i < n; ++i) {
                if (g.chance(0.4)) {
                  const int64_t start = g.between(0, horizon);
                  g.grant(g.between(1, 10), start, g.between(start, horizon));
                } else {
                  g.consume(g.between(1, 8), g.between(0, horizon));
                }
              }
            }});
}

// Grant lifecycle and pending-queue operations mixed in: voiding grants and moving their ends
// (which rebuild the engine), queued consumptions retried by later grants, cancellations. Compared
// between the engines only: the model covers the core calls alone.
TEST(Differential, GrantLifecycleAndPendingConsumptions) {
  runShape({"lifecycle-pending", 1500, {1, true}, [](Gen& g) {
              const int64_t horizon = g.between(3, 20);
              const int64_t n = g.between(8, 40);
              for (int64_t i = 0; i < n; ++i) {
                const int64_t roll = g.between(0, 99);
                if (roll < 30) {
                  const int64_t start = g.between(0, horizon);
                  g.grant(g.between(1, 8), start, g.between(start, horizon));
                } else if (roll < 58) {
                  g.consume(g.between(1, 6), g.between(0, horizon));
                } else if (roll < 72) {
                  g.submit(g.between(1, 6), g.between(0, horizon));
                } else if (roll < 81) {
                  g.voidGrant();
                } else if (roll < 94) {
                  g.setGrantEnd(g.between(0, horizon + 3));
                } else {
                  g.cancelPending();
                }
              }
            }});
}

}  // namespace
}  // namespace gcl_test
