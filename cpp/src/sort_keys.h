// One sort for the core's sorts by a 64-bit key: (key, value) pairs into ascending
// (key, value) order. Each std::sort or std::stable_sort with its own comparator is one
// more copy of the sort's code in the WebAssembly module (2-9 kB each); the sorts that can
// say what they order by as one number share this one instead. With each item's position
// as its value, the order among equal keys is the order before: a stable sort by key.
#ifndef GPU_CREDIT_LEDGER_SORT_KEYS_H_
#define GPU_CREDIT_LEDGER_SORT_KEYS_H_

#include <cstdint>
#include <vector>

namespace gcl {

struct SortKey {
  int64_t key;
  int64_t value;
};

// Sorts `keys` by key, then by value. O(n log n).
void sortKeys(std::vector<SortKey>* keys);

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_SORT_KEYS_H_
