// A consumption's draws in draw order. Most consumptions draw from one grant, so one draw
// is stored inline and only longer lists allocate: this is most of the engine's memory.
#ifndef GPU_CREDIT_LEDGER_DRAW_LIST_H_
#define GPU_CREDIT_LEDGER_DRAW_LIST_H_

#include <memory>
#include <vector>

#include "engine.h"

namespace gcl {

class DrawList {
 public:
  size_t size() const { return more_ ? more_->size() : (one_.amount > 0 ? 1 : 0); }
  bool empty() const { return size() == 0; }
  const Draw& operator[](size_t i) const { return more_ ? (*more_)[i] : one_; }
  const Draw& back() const { return (*this)[size() - 1]; }

  void assign(const std::vector<Draw>& draws) {
    if (draws.size() <= 1) {
      more_.reset();
      one_ = draws.empty() ? Draw{0, 0} : draws[0];
    } else if (more_) {
      more_->assign(draws.begin(), draws.end());  // re-drawn lists keep their allocation
    } else {
      more_ = std::make_unique<std::vector<Draw>>(draws);
    }
  }
  void copyTo(std::vector<Draw>* out) const {
    out->clear();
    for (size_t i = 0; i < size(); ++i) out->push_back((*this)[i]);
  }
  // The amount drawn from grant g (0 if none).
  int64_t amountFrom(uint32_t g) const {
    for (size_t i = 0; i < size(); ++i) {
      if ((*this)[i].grant == g) return (*this)[i].amount;
    }
    return 0;
  }
  size_t heapBytes() const { return more_ ? sizeof(*more_) + more_->capacity() * sizeof(Draw) : 0; }

 private:
  Draw one_{0, 0};
  std::unique_ptr<std::vector<Draw>> more_;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_DRAW_LIST_H_
