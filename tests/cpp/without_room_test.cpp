// What a call answers when it has no room to run (the WebAssembly binding at its heap's
// ceiling): Ledger::consumptionWithoutRoom, grantWithoutRoom, grantChangeWithoutRoom,
// compactWithoutRoom, headroomWithoutRoom and balanceCurveWithoutRoom, asked before each
// call of random sequences and held to what the call itself then does.
// An identical retry is answered as the call answers it and changes nothing; a refusal is
// the call's own refusal; anything else is left to the call.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "gtest_printers.h"

namespace gcl_test {
namespace {

using gcl::Status;

// What a call may change, compared before and after it.
struct State {
  size_t grants;
  size_t consumptions;
  size_t pending;
  std::vector<int64_t> balances;
  bool operator==(const State& other) const {
    return grants == other.grants && consumptions == other.consumptions &&
           pending == other.pending && balances == other.balances;
  }
};

State stateOf(const gcl::Ledger& ledger) {
  State state{ledger.grantCount(), ledger.consumptionCount(), ledger.pendingCount(), {}};
  for (int64_t t = 4; t <= 24; t += 2) {  // after the horizon some sequences set
    int64_t balance = 0;
    EXPECT_EQ(ledger.getBalance(t, &balance), Status::kOk);
    state.balances.push_back(balance);
  }
  return state;
}

// Runs body(seed, uniform) for seeds 1 to 200 until a test fails; uniform(lo, hi) draws
// from the seed's generator.
template <typename Body>
void forEachSeed(Body body) {
  for (uint32_t seed = 1; seed <= 200 && !::testing::Test::HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    auto uniform = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(random);
    };
    body(seed, uniform);
  }
}

TEST(WithoutRoom, AnswersWhatTheCallWouldAnswerWhenItChangesNothing) {
  int unchangedConsumptions = 0;
  int unchangedQueued = 0;
  int unchangedGrants = 0;
  int refusals = 0;
  int run = 0;
  forEachSeed([&](uint32_t seed, auto& uniform) {
    gcl::Ledger ledger;
    if (seed % 5 == 0) {
      gcl::CompactResult compacted;
      ASSERT_EQ(ledger.compact(3, &compacted), Status::kOk);  // some calls before the horizon
    }
    for (int step = 0; step < 150 && !::testing::Test::HasFailure(); ++step) {
      // Small pools of ids, each mostly with the same values, so that identical retries and
      // duplicates are common; now and then an id or a value that the checks refuse.
      const int64_t k = uniform(0, 12);
      const bool same = uniform(0, 4) != 0;
      const std::string id = uniform(0, 30) == 0 ? std::string() : std::to_string(k);
      const int64_t amount = uniform(0, 40) == 0 ? 0 : same ? 1 + k % 3 : uniform(1, 3);
      const int64_t time = same ? k + 2 : uniform(0, 20);
      const State before = stateOf(ledger);
      const int64_t roll = uniform(0, 2);
      if (roll == 2) {
        const int64_t end = same ? time + 4 + k % 3 : time + uniform(-1, 6);
        bool unchanged = false;
        const Status answer = ledger.grantWithoutRoom(id, amount, time, end, &unchanged);
        const Status status = ledger.addGrant(id, amount, time, end);
        if (answer != Status::kOk) {
          EXPECT_EQ(status, answer) << "addGrant " << id;
          EXPECT_EQ(stateOf(ledger), before);
          ++refusals;
        } else if (unchanged) {
          EXPECT_EQ(status, Status::kOk) << "addGrant " << id;
          EXPECT_EQ(stateOf(ledger), before);
          ++unchangedGrants;
        } else {
          ++run;
        }
        continue;
      }
      const bool submit = roll == 1;
      bool unchanged = false;
      bool accepted = false;
      const Status answer =
          ledger.consumptionWithoutRoom(id, amount, time, submit, &unchanged, &accepted);
      Status status = Status::kOk;
      bool callAccepted = false;
      if (submit) {
        gcl::SubmitOutcome outcome = gcl::SubmitOutcome::kQueued;
        status = ledger.submit(id, amount, time, &outcome);
        callAccepted = outcome == gcl::SubmitOutcome::kAccepted;
      } else {
        status = ledger.consume(id, amount, time, &callAccepted);
      }
      if (answer != Status::kOk) {
        EXPECT_EQ(status, answer) << (submit ? "submit " : "consume ") << id;
        EXPECT_EQ(stateOf(ledger), before);
        ++refusals;
      } else if (unchanged) {
        EXPECT_EQ(status, Status::kOk) << id;
        EXPECT_EQ(callAccepted, accepted) << id;
        EXPECT_EQ(stateOf(ledger), before);
        ++(accepted ? unchangedConsumptions : unchangedQueued);
      } else {
        ++run;
      }
    }
  });
  EXPECT_GT(unchangedConsumptions, 500);
  EXPECT_GT(unchangedQueued, 100);
  EXPECT_GT(unchangedGrants, 300);
  EXPECT_GT(refusals, 2000);
  EXPECT_GT(run, 2000);
}

// voidGrant, setGrantEnd, compact, headroom and balanceCurve: a refusal is the call's own;
// an end the grant has, or a horizon that does not move, changes nothing; a headroom at or
// after the latest consumption is the call's answer.
TEST(WithoutRoom, AnswersGrantChangesCompactAndPreviewsThatNeedNoRoom) {
  int refusals = 0;
  int unchanged = 0;
  int answered = 0;
  int run = 0;
  forEachSeed([&](uint32_t, auto& uniform) {
    gcl::Ledger ledger;
    for (int step = 0; step < 120 && !::testing::Test::HasFailure(); ++step) {
      const int64_t k = uniform(0, 8);
      const std::string id = uniform(0, 30) == 0 ? std::string() : "g" + std::to_string(k);
      const int64_t time = uniform(-1, 22);  // -1: refused as a time
      bool accepted = false;
      switch (uniform(0, 7)) {
        case 0:  // a grant, mostly the same per id (a few get other windows)
          ledger.addGrant("g" + std::to_string(k), 1 + k % 4, k, k + 6 + uniform(0, 1));
          continue;
        case 1:
          ledger.consume("c" + std::to_string(step), 1 + k % 2, uniform(0, 20), &accepted);
          continue;
        default:
          break;
      }
      const State before = stateOf(ledger);
      const int64_t roll = uniform(0, 4);
      if (roll <= 1) {  // voidGrant, or setGrantEnd often to the end the grant has
        std::optional<int64_t> end;
        if (roll == 1) end = uniform(0, 2) == 0 ? time : k + 6;
        bool same = false;
        const Status answer = ledger.grantChangeWithoutRoom(id, end, &same);
        gcl::GrantChange change;
        const Status status =
            end ? ledger.setGrantEnd(id, *end, &change) : ledger.voidGrant(id, &change);
        if (answer != Status::kOk) {
          EXPECT_EQ(status, answer) << id;
          EXPECT_EQ(stateOf(ledger), before);
          ++refusals;
        } else if (same) {
          EXPECT_EQ(status, Status::kOk) << id;
          EXPECT_TRUE(change.applied) << id;
          EXPECT_EQ(stateOf(ledger), before);
          ++unchanged;
        } else {
          EXPECT_EQ(status, Status::kOk) << id;
          ++run;
        }
      } else if (roll == 2) {  // compact, now and then: mostly at or before the horizon
        const int64_t horizon = uniform(0, 6) == 0 ? uniform(0, 4) : uniform(-1, 1);
        bool same = false;
        const Status answer = ledger.compactWithoutRoom(horizon, &same);
        const int64_t old = ledger.horizon();
        gcl::CompactResult result;
        const Status status = ledger.compact(horizon, &result);
        EXPECT_EQ(status, answer) << horizon;
        if (answer != Status::kOk || same) {
          EXPECT_EQ(stateOf(ledger), before);
          EXPECT_EQ(ledger.horizon(), old);
          ++(answer != Status::kOk ? refusals : unchanged);
        } else {
          ++run;
        }
      } else if (roll == 3) {
        int64_t amount = -1;
        bool done = false;
        const Status answer = ledger.headroomWithoutRoom(time, &amount, &done);
        int64_t headroom = -1;
        const Status status = ledger.headroom(time, &headroom);
        EXPECT_EQ(status, answer) << time;
        if (answer != Status::kOk) {
          ++refusals;
        } else if (done) {
          EXPECT_EQ(amount, headroom) << time;
          ++answered;
        } else {
          ++run;
        }
      } else {
        const int64_t to = uniform(-1, 22);
        const Status answer = ledger.balanceCurveWithoutRoom(time, to);
        std::vector<gcl::BalancePoint> points;
        EXPECT_EQ(ledger.balanceCurve(time, to, &points), answer) << time << " " << to;
        ++(answer != Status::kOk ? refusals : run);
      }
    }
  });
  EXPECT_GT(refusals, 2000);
  EXPECT_GT(unchanged, 500);
  EXPECT_GT(answered, 300);
  EXPECT_GT(run, 1000);
}

}  // namespace
}  // namespace gcl_test
