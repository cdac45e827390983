// XidCounter: each kernel log record counted once across re-reads; the count never decreases.
#include "core/xid_counter.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

XidOccurrence Xid(const std::string& time, int xid, const std::string& addr = "0000:3b:00.0") {
  return {addr, xid, time,
          "NVRM: Xid (PCI:" + addr.substr(0, 12) + "): " + std::to_string(xid) + ", pid=1", ""};
}

uint64_t Total(const XidCounter& c, const std::string& addr, int xid) {
  auto it = c.totals().find({addr, xid});
  return it == c.totals().end() ? 0 : it->second;
}

TEST(XidCounter, CountsEachRecordOnceAcrossReads) {
  XidCounter c;
  c.Observe({Xid("100.000001", 13), Xid("101.000001", 13)});
  EXPECT_EQ(Total(c, "0000:3b:00.0", 13), 2u);
  c.Observe({Xid("100.000001", 13), Xid("101.000001", 13)});  // same buffer again
  EXPECT_EQ(Total(c, "0000:3b:00.0", 13), 2u);
  c.Observe({Xid("100.000001", 13), Xid("101.000001", 13), Xid("150.5", 13), Xid("151.0", 79)});
  EXPECT_EQ(Total(c, "0000:3b:00.0", 13), 3u);
  EXPECT_EQ(Total(c, "0000:3b:00.0", 79), 1u);
}

TEST(XidCounter, RecordsScrollingOutDoNotLowerTheCountAndAreForgotten) {
  XidCounter c;
  c.Observe({Xid("1.0", 13), Xid("2.0", 13), Xid("3.0", 13)});
  c.Observe({Xid("3.0", 13), Xid("4.0", 13)});  // 1.0 and 2.0 left the ring buffer
  EXPECT_EQ(Total(c, "0000:3b:00.0", 13), 4u);
  EXPECT_EQ(c.remembered_records(), 2u);
  c.Observe({});  // a quiet buffer keeps the total
  EXPECT_EQ(Total(c, "0000:3b:00.0", 13), 4u);
  EXPECT_EQ(c.remembered_records(), 0u);
}

TEST(XidCounter, IdenticalLinesWithoutTimesCountByMultiplicity) {
  XidCounter c;
  c.Observe({Xid("", 43), Xid("", 43)});
  EXPECT_EQ(Total(c, "0000:3b:00.0", 43), 2u);
  c.Observe({Xid("", 43), Xid("", 43)});
  EXPECT_EQ(Total(c, "0000:3b:00.0", 43), 2u);
  c.Observe({Xid("", 43), Xid("", 43), Xid("", 43)});
  EXPECT_EQ(Total(c, "0000:3b:00.0", 43), 3u);
  c.Observe({Xid("", 43)});  // two scrolled out: no decrease, and no recount when seen again
  c.Observe({Xid("", 43), Xid("", 43)});
  EXPECT_EQ(Total(c, "0000:3b:00.0", 43), 3u);
}

TEST(XidCounter, KeepsGpusApart) {
  XidCounter c;
  c.Observe({Xid("5.0", 79, "0000:3b:00.0"), Xid("5.1", 79, "0000:5d:00.0")});
  EXPECT_EQ(Total(c, "0000:3b:00.0", 79), 1u);
  EXPECT_EQ(Total(c, "0000:5d:00.0", 79), 1u);
}

TEST(XidCounter, MemoryFollowsTheBufferNotTheNumberOfReads) {
  XidCounter c;
  for (int round = 0; round < 500; ++round) {
    std::vector<XidOccurrence> buffer;
    for (int i = 0; i < 50; ++i) buffer.push_back(Xid(std::to_string(round + i) + ".0", 13));
    c.Observe(buffer);
  }
  EXPECT_EQ(c.remembered_records(), 50u);
  EXPECT_EQ(Total(c, "0000:3b:00.0", 13), 549u);  // 50 at first, then one new record per read
}

}  // namespace
}  // namespace gpuvet
