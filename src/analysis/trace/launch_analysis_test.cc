#include "analysis/trace/launch_analysis.h"

#include <gtest/gtest.h>

#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

TEST(LaunchAnalysisTest, LaunchVersusKernelAndDelays) {
  TraceBuilder b;
  b.Launched("tiny", 0, 10, 12, 2);     // 2 µs kernel, 10 µs launch: shorter; delay 12
  b.Launched("tiny", 10, 10, 22, 3);    // shorter; delay 12
  b.Launched("big", 20, 10, 40, 100);   // delay 20
  b.Launched("big", 30, 10, 140, 100);  // delay 110
  b.Kernel("orphan", 300, 5);           // no launch: not counted
  RankTrace t = b.Build();
  LaunchStats s = ComputeLaunchStats(t);
  EXPECT_EQ(s.launches, 4u);
  EXPECT_EQ(s.shorter_than_launch, 2u);
  EXPECT_DOUBLE_EQ(s.shorter_pct, 50);
  EXPECT_EQ(s.launch_mean_ns, 10'000);
  EXPECT_EQ(s.kernel_mean_ns, 51'250);
  EXPECT_EQ(s.kernel_median_ns, 3'000);  // nearest rank: 2nd of {2, 3, 100, 100}
  EXPECT_EQ(s.delay_p50_ns, 12'000);
  EXPECT_EQ(s.delay_p95_ns, 110'000);
}

// One slow first launch (lazy module load) moves the mean, not the median.
TEST(LaunchAnalysisTest, MedianLaunchIgnoresOneSlowLaunch) {
  TraceBuilder b;
  b.Launched("k", 0, 3'000'000, 3'000'010, 5);
  for (int i = 1; i < 9; ++i) b.Launched("k", 3'000'100 + i * 20, 9, 3'000'100 + i * 20 + 10, 5);
  LaunchStats s = ComputeLaunchStats(b.Build());
  EXPECT_EQ(s.launches, 9u);
  EXPECT_EQ(s.launch_median_ns, 9'000);
  EXPECT_GT(s.launch_mean_ns, 300'000'000);
}

// HTA counts an op queued from its launch until it starts, not until it ends: three kernels
// launched at once but run back to back leave the queue empty while the last one runs.
TEST(LaunchAnalysisTest, QueuedUntilTheOpStarts) {
  TraceBuilder b;
  b.Launched("k", 0, 1, 10, 100);
  b.Launched("k", 200, 1, 210, 100);  // launched after the first ended and started
  LaunchStats s = ComputeLaunchStats(b.Build());
  ASSERT_EQ(s.queues.size(), 1u);
  EXPECT_EQ(s.queues[0].max_queue, 1);
}

TEST(LaunchAnalysisTest, QueueLengthAsHta) {
  TraceBuilder b;
  // Launches at 0, 1, 2; kernels end at 20, 30, 40. Samples: 1 2 3 2 1 0.
  b.Launched("k", 0, 1, 10, 10);
  b.Launched("k", 1, 1, 20, 10);
  b.Launched("k", 2, 1, 30, 10);
  RankTrace t = b.Build();
  LaunchStats s = ComputeLaunchStats(t);
  ASSERT_EQ(s.queues.size(), 1u);
  EXPECT_EQ(s.queues[0].stream, 7);
  EXPECT_EQ(s.queues[0].max_queue, 3);
  EXPECT_DOUBLE_EQ(s.queues[0].mean_queue, 9.0 / 6);
}

// HTA's queue length reads the trace after its window cut (the last ProfilerStep's kernels are
// dropped): ops outside the window do not count.
TEST(LaunchAnalysisTest, QueueLengthOverTheAnalysisWindow) {
  TraceBuilder b;
  b.Step("ProfilerStep#1", 0, 100);
  b.Step("ProfilerStep#2", 100, 100);
  b.Launched("k", 0, 1, 10, 10);  // step 1: queue 1
  // Step 2: three launches at once, excluded from HTA's window.
  for (int i = 0; i < 3; ++i) b.Launched("k", 110 + i, 1, 150 + i * 10, 10);
  RankTrace t = b.Build();
  OpWindow w = SelectHtaOps(t);
  ASSERT_TRUE(w.last_step_excluded);
  LaunchStats s = ComputeLaunchStats(t, w);
  ASSERT_EQ(s.queues.size(), 1u);
  EXPECT_EQ(s.queues[0].max_queue, 1);
  EXPECT_EQ(ComputeLaunchStats(t).queues[0].max_queue, 3);  // the whole trace
  EXPECT_EQ(s.launches, 4u);                                // launch figures stay whole-trace
}

}  // namespace
}  // namespace gpuvet
