// The WebAssembly heap budget: every ledger of a module shares one heap that can grow to
// MAXIMUM_MEMORY, and a failed allocation would abort the whole instance (the module is
// built without C++ exceptions). So a call that might need more than the heap can still
// give is refused up front (Status::kOutOfMemory) and changes nothing.
#ifndef GPU_CREDIT_LEDGER_HEAP_BUDGET_H_
#define GPU_CREDIT_LEDGER_HEAP_BUDGET_H_

#include <cstddef>

namespace gcl_wasm {

// Heap kept free for what no ledger accounts for: the id buffers, result arrays and
// curves on their way to JS, and the JS glue's own allocations. (Heap slack, in bytes;
// nothing to do with a ledger's credit headroom.)
inline constexpr size_t kHeapSlackBytes = size_t{64} << 20;

// What a call may allocate at worst, relative to the ledger's current size.
enum class CallCost {
  kGrow,     // appends: the ledger's largest arrays may double
  kRebuild,  // builds a second state beside the first (rebuilds, dry runs, indexes)
};

// One ledger's share of the budget: the bytes it held after its last call. The sum over
// live ledgers is what the budget counts; the worst case of the next call is added to it.
class HeapShare {
 public:
  HeapShare() = default;
  ~HeapShare();
  HeapShare(const HeapShare&) = delete;
  HeapShare& operator=(const HeapShare&) = delete;

  // Whether a call of this cost fits under the heap's ceiling.
  bool allows(CallCost cost) const;
  // What is left under the ceiling beyond a call of this cost's worst case: the room an
  // optional index may take (gcl::Ledger::setIndexAllowance).
  size_t spareBytes(CallCost cost) const;
  // Whether this ledger may grow by `extra` bytes while still holding a copy of itself
  // (a reserve reallocates its arrays): a bulk load's one-time reservation.
  bool allowsBytes(size_t extra) const;
  // Whether a result of `bytes` fits beside every ledger's share, with `copied` bytes more
  // that the call holds while it encodes (ResultBuffer::encode).
  bool allowsTransient(size_t bytes, size_t copied) const;
  // Whether a new ledger of about `bytes` fits under the ceiling beside the slack. The shares
  // count what each ledger holds, not the allocator's own overhead, which many small ledgers
  // add up (an empty one holds about 4 KiB of heap): this asks the heap itself, walking it
  // only once its top is near the ceiling.
  static bool allowsNew(size_t bytes);
  // The heap's ceiling, MAXIMUM_MEMORY.
  size_t ceiling() const;
  // Grows the WebAssembly memory at once to hold every ledger's share plus `extra` bytes.
  // Growing it step by step as malloc asks costs a full garbage collection of the JS heap
  // per step in V8 (memory growth counts as external memory pressure).
  void growHeapFor(size_t extra) const;
  // Records the ledger's size after a call.
  void update(size_t bytes);

 private:
  // Every ledger's share plus this call's worst case and the slack: what must fit.
  size_t neededFor(CallCost cost) const;

  size_t held_ = 0;
};

// Bytes of the heap in use (walks the heap: for diagnostics and leak tests only).
double heapBytesInUse();
// The size the heap may grow to.
double heapMaxBytes();

}  // namespace gcl_wasm

#endif  // GPU_CREDIT_LEDGER_HEAP_BUDGET_H_
