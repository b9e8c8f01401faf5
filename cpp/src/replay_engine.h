// The reference engine: replays every accepted consumption from scratch on every
// mutation, exactly as docs/semantics.md defines the ledger. O(n log n) per call. It stays in
// the tree so that differential tests and the fuzzer can hold the fast engine to it.
#ifndef GPU_CREDIT_LEDGER_REPLAY_ENGINE_H_
#define GPU_CREDIT_LEDGER_REPLAY_ENGINE_H_

#include <memory>
#include <vector>

#include "engine.h"
#include "headroom.h"

namespace gcl {

class ReplayEngine final : public Engine {
 public:
  explicit ReplayEngine(const GrantTable& grants) : grants_(grants) {}

  void addGrant(uint32_t grant) override;
  bool consume(int64_t amount, int64_t timestamp) override;
  int64_t amountOf(uint32_t handle) const override { return consumptions_[handle].amount; }
  int64_t timestampOf(uint32_t handle) const override { return consumptions_[handle].timestamp; }
  int64_t balance(int64_t timestamp) const override;
  void draws(uint32_t handle, std::vector<Draw>* out) const override { *out = draws_[handle]; }
  void balanceCurve(int64_t from, int64_t to, std::vector<BalancePoint>* out) const override;
  size_t bytes() const override;
  EngineKind kind() const override { return EngineKind::kReplay; }
  bool wouldAccept(int64_t amount, int64_t timestamp) override;
  void drawsOn(uint32_t grant, std::vector<GrantDraw>* out) const override;
  int64_t drawnThrough(uint32_t grant, int64_t timestamp) const override;
  // O(n): the reference favours plainness.
  int64_t latestTimestamp() const override {
    int64_t latest = -1;
    for (const Consumption& c : consumptions_) latest = c.timestamp > latest ? c.timestamp : latest;
    return latest;
  }
  int64_t nextBelow(int64_t threshold, int64_t from) const override;
  std::string checkInvariants() const override;
  const HeadroomIndex* headroomIndex() override;

 private:
  struct Consumption {
    int64_t amount;
    int64_t timestamp;
  };
  // Replays all consumptions; returns false (leaving draws_ untouched) if one is unfunded.
  // With noteRedraws, notes every consumption whose draws the replay changed.
  bool replay(bool noteRedraws);

  const GrantTable& grants_;
  std::vector<Consumption> consumptions_;  // in acceptance order
  std::vector<std::vector<Draw>> draws_;   // by consumption, in draw order
  std::unique_ptr<HeadroomIndex> index_;   // of the current state, or none yet
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_REPLAY_ENGINE_H_
