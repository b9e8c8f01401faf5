#include "heap_budget.h"

#include <emscripten/heap.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <initializer_list>

namespace gcl_wasm {
namespace {

// Sum over live ledgers of their share after their last call.
size_t heldByAllLedgers = 0;

// The ceiling, MAXIMUM_MEMORY (CMakeLists.txt): fixed for the module's life.
constexpr size_t heapMax() { return GCL_HEAP_MAX_BYTES; }

}  // namespace

HeapShare::~HeapShare() { heldByAllLedgers -= held_; }

size_t HeapShare::neededFor(CallCost cost) const {
  // Other ledgers count as they are; this one may at worst double (kGrow) or hold a
  // second copy of itself while it works (kRebuild).
  const size_t extra = cost == CallCost::kGrow ? held_ : 2 * held_;
  return heldByAllLedgers + extra + kHeapSlackBytes;
}

bool HeapShare::allows(CallCost cost) const { return neededFor(cost) <= heapMax(); }

size_t HeapShare::spareBytes(CallCost cost) const {
  const size_t needed = neededFor(cost);
  const size_t max = heapMax();
  return needed < max ? max - needed : 0;
}

bool HeapShare::allowsBytes(size_t extra) const {
  // Written so that no sum wraps, whatever `extra` is (sizes are 32-bit in WebAssembly).
  return extra <= heapMax() && heldByAllLedgers + held_ + kHeapSlackBytes <= heapMax() - extra;
}

bool HeapShare::allowsTransient(size_t bytes, size_t copied) const {
  // Each term is checked against what is left, so that no sum wraps in 32 bits.
  size_t left = heapMax();
  for (const size_t term : {heldByAllLedgers, kHeapSlackBytes, bytes, copied}) {
    if (term > left) return false;
    left -= term;
  }
  return true;
}

bool HeapShare::allowsNew(size_t bytes) {
  const size_t room = heapMax() - kHeapSlackBytes - bytes;  // the ceiling is far above both
  if (heldByAllLedgers > room) return false;
  if (reinterpret_cast<uintptr_t>(sbrk(0)) <= room) return true;
  // Near the ceiling: the heap's own count, walked again only once the ledgers made since
  // the last walk, counted at `bytes` each (several times what one takes), may have used
  // what it left.
  static size_t untilWalk = 0;
  if (untilWalk >= bytes) {
    untilWalk -= bytes;
    return true;
  }
  const auto used = static_cast<size_t>(mallinfo().uordblks);
  untilWalk = used <= room ? room - used : 0;
  return used <= room;
}

size_t HeapShare::ceiling() const { return heapMax(); }

void HeapShare::growHeapFor(size_t extra) const {
  const size_t target = heldByAllLedgers + extra;
  if (target > emscripten_get_heap_size() && target <= heapMax()) {
    emscripten_resize_heap(target);
  }
}

void HeapShare::update(size_t bytes) {
  heldByAllLedgers = heldByAllLedgers - held_ + bytes;
  held_ = bytes;
}

double heapBytesInUse() { return static_cast<double>(mallinfo().uordblks); }

double heapMaxBytes() { return static_cast<double>(heapMax()); }

}  // namespace gcl_wasm
