// Engine-level test helpers: a grant appended to a grant table by hand, and a fixture of one
// IncrementalEngine over its own table with an index built from scratch as the reference
// for headroom (the headroom suffix and tracker tests).
#ifndef GCL_TESTS_ENGINE_FIXTURE_H_
#define GCL_TESTS_ENGINE_FIXTURE_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine.h"
#include "headroom.h"
#include "incremental_engine.h"

namespace gcl_test {

// Appends grant "g<index>" to `table` and returns its index; the caller tells its engines.
inline uint32_t appendGrant(gcl::GrantTable* table, int64_t amount, int64_t start, int64_t end) {
  const uint32_t g = table->ids.add("g" + std::to_string(table->size()));
  table->amount.push_back(amount);
  table->startTime.push_back(start);
  table->endTime.push_back(end);
  return g;
}

class EngineFixture : public ::testing::Test {
 protected:
  void grant(int64_t amount, int64_t start, int64_t end) {
    engine_.addGrant(appendGrant(&table_, amount, start, end));
  }
  bool consume(int64_t amount, int64_t t) {
    const bool accepted = engine_.consume(amount, t);
    if (accepted) consumed_.push_back({t, amount});
    return accepted;
  }
  // The headroom from an index of the whole state, built from scratch.
  int64_t fromScratch(int64_t t) const {
    return gcl::HeadroomIndex::of(table_, engine_, consumed_.size())->at(t);
  }

  gcl::GrantTable table_;
  gcl::IncrementalEngine engine_{table_};
  std::vector<gcl::TimedAmount> consumed_;  // accepted, in acceptance order
};

}  // namespace gcl_test

#endif  // GCL_TESTS_ENGINE_FIXTURE_H_
