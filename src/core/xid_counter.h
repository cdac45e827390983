// XidCounter: turns repeated reads of the kernel log ring buffer into monotonic Xid counters.
// Each read sees every record still in the buffer, so a record must be counted once however many
// reads see it; records that scroll out of the buffer must not lower the count.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/host_state.h"

namespace gpuvet {

class XidCounter {
 public:
  // Folds one complete read of the log. A record is identified by its time and text; when the
  // same (time, text) appears k times in one read (a log without timestamps), it accounts for k
  // occurrences, counted once across reads (the maximum k seen). Records not in this read are
  // forgotten (they scrolled out and cannot come back), so memory follows the buffer, not the
  // uptime. Call only with reads that succeeded: a failed read would forget everything.
  void Observe(const std::vector<XidOccurrence>& occurrences);

  // Total occurrences per (pci_address, xid) since construction; never decreases.
  const std::map<std::pair<std::string, int>, uint64_t>& totals() const { return totals_; }

  // Records currently remembered (for tests of the memory bound).
  size_t remembered_records() const { return seen_.size(); }

 private:
  struct Key {
    std::string time, text;
    bool operator<(const Key& o) const { return std::tie(time, text) < std::tie(o.time, o.text); }
  };
  struct Seen {
    std::string pci_address;
    int xid = 0;
    uint32_t multiplicity = 0;
  };
  std::map<Key, Seen> seen_;
  std::map<std::pair<std::string, int>, uint64_t> totals_;
};

}  // namespace gpuvet
