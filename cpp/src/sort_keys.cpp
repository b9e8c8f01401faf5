#include "sort_keys.h"

#include <algorithm>

namespace gcl {

void sortKeys(std::vector<SortKey>* keys) {
  std::sort(keys->begin(), keys->end(), [](const SortKey& a, const SortKey& b) {
    return a.key < b.key || (a.key == b.key && a.value < b.value);
  });
}

}  // namespace gcl
