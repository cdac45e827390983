// XidCounter: per-record dedup of Xid reports across kernel log re-reads (see xid_counter.h).
#include "core/xid_counter.h"

#include <algorithm>

namespace gpuvet {

void XidCounter::Observe(const std::vector<XidOccurrence>& occurrences) {
  std::map<Key, Seen> now;
  for (const XidOccurrence& o : occurrences) {
    Seen& s = now[Key{o.time, o.text}];
    s.pci_address = o.pci_address;
    s.xid = o.xid;
    ++s.multiplicity;
  }
  for (auto& [key, s] : now) {
    uint32_t before = 0;
    if (auto it = seen_.find(key); it != seen_.end()) before = it->second.multiplicity;
    if (s.multiplicity > before) {
      totals_[{s.pci_address, s.xid}] += s.multiplicity - before;
    }
    s.multiplicity = std::max(s.multiplicity, before);
  }
  seen_ = std::move(now);
}

}  // namespace gpuvet
