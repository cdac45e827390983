// KernelLogFollower and its classifier: every kind `record` stores, a file followed from its end
// with a line written in two parts, a missing log, and cut / mutated input that must never crash.
#include "sources/kmsg/kernel_log_follow.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

constexpr char kLines[] =
    "[ 1200.000000] nfs: server fs1 not responding, still trying\n"
    "[ 1245.000000] nfs: server fs1 OK\n"
    "[ 1300.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off "
    "the bus.\n"
    "[ 1400.000000] INFO: task python:4242 blocked for more than 120 seconds.\n"
    "[ 1500.000000] blk_update_request: I/O error, dev nvme0n1, sector 123 op 0x0:(READ)\n"
    "[ 1600.000000] Out of memory: Killed process 4242 (python) total-vm:1kB, anon-rss:1kB\n"
    "[ 1700.000000] eth0: link up\n";

TEST(KernelLogFollowTest, ClassifiesEveryKindRecordStores) {
  std::vector<RecordingEvent> e = ClassifyFollowedLines(kLines, 12.5);
  auto count = [&](RecordingEventKind k, const std::string& subject) {
    int n = 0;
    for (const RecordingEvent& x : e) n += x.kind == k && x.subject == subject;
    return n;
  };
  EXPECT_EQ(count(RecordingEventKind::kNfsNotResponding, "fs1"), 1);
  EXPECT_EQ(count(RecordingEventKind::kNfsOk, "fs1"), 1);
  EXPECT_EQ(count(RecordingEventKind::kXid, "0000:3b:00.0"), 1);
  EXPECT_EQ(count(RecordingEventKind::kHungTask, "python"), 1);
  EXPECT_EQ(count(RecordingEventKind::kOomKill, "python"), 1);
  int io = 0;
  for (const RecordingEvent& x : e) io += x.kind == RecordingEventKind::kIoError;
  EXPECT_EQ(io, 1);
  for (const RecordingEvent& x : e) {
    EXPECT_EQ(x.t, 12.5);
    EXPECT_EQ(x.message.find("link up"), std::string::npos);
  }
}

TEST(KernelLogFollowTest, FollowsAFileFromItsEndAndJoinsAPartialLine) {
  test::TempTree tree("kfollow");
  tree.Write("kern.log", "[ 1.0] nfs: server old not responding, still trying\n");
  auto f = KernelLogFollower::Open(HostPaths(), tree.Path("kern.log"));
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE((*f)->Poll(1).empty());  // what was there before the run is not the run's
  std::ofstream out(tree.Path("kern.log"), std::ios::app);
  out << "[ 2.0] nfs: server fs1 not resp" << std::flush;
  EXPECT_TRUE((*f)->Poll(2).empty());  // half a line waits for its end
  out << "onding, still trying\n" << std::flush;
  std::vector<RecordingEvent> e = (*f)->Poll(3);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].kind, RecordingEventKind::kNfsNotResponding);
  EXPECT_EQ(e[0].subject, "fs1");
  EXPECT_EQ(e[0].t, 3);
}

TEST(KernelLogFollowTest, AMissingLogIsUnavailableNamingIt) {
  auto f = KernelLogFollower::Open(HostPaths(), "/nonexistent/kern.log");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("/nonexistent/kern.log"), std::string::npos);
}

TEST(KernelLogFollowTest, CutAndMutatedLinesNeverCrash) {
  const std::string text = kLines;
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    (void)ClassifyFollowedLines(std::string_view(text).substr(0, cut), 0);
  }
  std::mt19937 rng(14);
  const std::string alphabet =
      std::string("\n :()[]0123456789,.-", 20) + std::string(1, '\0') + "\xff\xc3";
  for (int i = 0; i < 500; ++i) {
    std::string m = text;
    for (int k = 0; k < 4; ++k) m[rng() % m.size()] = alphabet[rng() % alphabet.size()];
    (void)ClassifyFollowedLines(m, 0);
  }
}

}  // namespace
}  // namespace gpuvet
