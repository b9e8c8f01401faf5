// IdIndex against a std::unordered_map: every id added is found under its own index and
// reads back byte for byte, absent ids are not found, through growth one id at a time
// (each doubling moves every id by its stored hash) and through reservations of any size.
#include "id_index.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace gcl_test {
namespace {

std::string randomId(std::mt19937_64& rng) {
  // Short ids like the service's ("c123"), longer ones, and multi-byte UTF-8.
  static const char* const kPieces[] = {"c", "g", "job-", "\xC3\xA9", "\xE2\x82\xAC", "x"};
  std::string id = kPieces[rng() % 6];
  const int digits = 1 + static_cast<int>(rng() % 12);
  for (int i = 0; i < digits; ++i) id += static_cast<char>('0' + rng() % 10);
  return id;
}

void expectMatches(const gcl::IdIndex& index,
                   const std::unordered_map<std::string, uint32_t>& model,
                   const std::vector<std::string>& order) {
  ASSERT_EQ(index.size(), order.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(index.at(i), order[i]);
    ASSERT_EQ(index.find(order[i]), i) << order[i];
  }
  for (const auto& [id, handle] : model) ASSERT_EQ(index.find(id), handle);
}

TEST(IdIndex, MatchesAHashMapThroughGrowthAndReservations) {
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed);
    gcl::IdIndex index;
    std::unordered_map<std::string, uint32_t> model;
    std::vector<std::string> order;
    const int count = 5000 + static_cast<int>(seed) * 4000;
    for (int step = 0; step < count; ++step) {
      const uint64_t roll = rng() % 100;
      if (roll < 2) {
        // A reservation, from a few ids to many (one rehash to the final size).
        const size_t more = rng() % 2 == 0 ? rng() % 16 : rng() % 20000;
        index.reserve(more, more * 8);
        continue;
      }
      const std::string id = randomId(rng);
      const uint32_t found = index.find(id);
      const auto it = model.find(id);
      if (it == model.end()) {
        ASSERT_EQ(found, gcl::IdIndex::kNotFound) << id;
        if (roll < 80) {
          const uint32_t handle = index.add(id);
          ASSERT_EQ(handle, order.size());
          model.emplace(id, handle);
          order.push_back(id);
        }
      } else {
        ASSERT_EQ(found, it->second) << id;
      }
      if (step % 2500 == 0) expectMatches(index, model, order);
    }
    expectMatches(index, model, order);
    // Ids one byte away from present ones are absent.
    for (const std::string& id : order) {
      ASSERT_EQ(index.find(id + "0"),
                model.count(id + "0") ? model.at(id + "0") : gcl::IdIndex::kNotFound);
      ASSERT_EQ(index.find(id.substr(1)),
                model.count(id.substr(1)) ? model.at(id.substr(1)) : gcl::IdIndex::kNotFound);
    }
  }
}

// Long ids across the arena's chunks: an id that would cross a chunk's end goes to the
// next chunk's start, and every id still reads back byte for byte: ids of 1,024 bytes
// (1,024 of them fill a chunk exactly), of 1,000 (each chunk ends with a gap), and of
// random lengths, with reservations on the way.
TEST(IdIndex, LongIdsReadBackAcrossChunks) {
  std::mt19937_64 rng(42);
  gcl::IdIndex index;
  std::vector<std::string> order;
  size_t bytes = 0;
  for (int i = 0; i < 9000; ++i) {
    const size_t length = i < 3000 ? 1024 : i < 6000 ? 1000 : 1 + rng() % 1024;
    std::string id = std::to_string(i) + ":";
    while (id.size() < length) id += static_cast<char>('a' + rng() % 26);
    if (i % 997 == 0) index.reserve(100, 100 * 1024);
    ASSERT_EQ(index.find(id), gcl::IdIndex::kNotFound);
    ASSERT_EQ(index.add(id), order.size());
    order.push_back(id);
    bytes += id.size();
  }
  for (uint32_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(index.at(i), order[i]) << i;
    ASSERT_EQ(index.find(order[i]), i);
  }
  // 7.6 MB of ids, in blocks of at most a chunk (1 MiB; 2 where the standard library
  // rounds a string's growth up to a doubling), not one block of them all.
  EXPECT_GT(bytes, size_t{7} << 20);
  EXPECT_LE(index.largestArenaBlock(), size_t{2} << 20);
  EXPECT_LT(index.bytes(), 2 * bytes);
}

// A log replayed in runs reserves once per run. Each reservation that outgrows the table
// must at least double it, or every run would rehash every id (quadratic in the log):
// 10^5 ids in runs of 512 may change the table's size a few times, not once per run. A
// first reservation still gets the size it needs, not the next power of two.
TEST(IdIndex, ReservationsInRunsGrowGeometrically) {
  gcl::IdIndex index;
  const size_t kRun = 512;
  const size_t kRuns = 200;
  size_t resizes = 0;
  size_t bytes = index.bytes();
  for (size_t run = 0; run < kRuns; ++run) {
    index.reserve(kRun, 0);
    for (size_t i = 0; i < kRun; ++i) index.add("c" + std::to_string(run * kRun + i));
    if (index.bytes() != bytes) ++resizes;
    bytes = index.bytes();
  }
  // Doublings of the slots (16 to 10^5 / 0.7), the offsets and the arena: about 40 at
  // most, against 200 (one per run) for a table that grows to the exact size each time.
  EXPECT_LE(resizes, 60u) << resizes;

  gcl::IdIndex once;
  const size_t before = once.bytes();
  once.reserve(100000, 0);
  // 100000 / 0.7 slots of 8 bytes and 100000 offsets: well under the 2^18 slots of the
  // next power of two.
  EXPECT_LT(once.bytes() - before, (size_t{1} << 18) * 8);
  for (size_t i = 0; i < kRun * kRuns; ++i) ASSERT_EQ(index.find("c" + std::to_string(i)), i);
}

}  // namespace
}  // namespace gcl_test
