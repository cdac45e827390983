// Periodic stalls (period, length, coinciding write burst), memory growth (slope, time to OOM,
// warm-up that plateaus), energy from counter deltas with resets and gaps, work per kJ and per
// dollar, worked out by hand.
#include "analysis/recording/recording_detectors.h"

#include <gtest/gtest.h>

#include "analysis/recording/recording_analyze.h"
#include "analysis/recording/recording_energy.h"
#include "analysis/recording/recording_signals.h"
#include "core/bottleneck.h"
#include "testing/recording_builder.h"

namespace gpuvet {
namespace {

using test::kGiB;
using test::RecordingBuilder;
using test::SetGpus;

// Compute-bound with a 30 s checkpoint stall every 10 minutes that writes 800 MB/s.
Recording Checkpointing(int minutes) {
  RecordingBuilder b;
  b.Add(minutes * 60, [](Sample& s, int i) {
    if (i % 600 >= 300 && i % 600 < 330) {
      SetGpus(s, 2);
      s.host.disks[0].write_bytes_per_s = 800e6;
      s.host.disks[0].busy_pct = 60;
      s.processes[0].write_bytes_per_s = 800e6;
    }
  });
  return b.Build();
}

TEST(PeriodicStallTest, CheckpointEveryTenMinutes) {
  Recording rec = Checkpointing(60);
  AnalyzeThresholds th;
  std::optional<PeriodicStall> p = DetectPeriodicStalls(ComputeSignals(rec, th), th);
  ASSERT_TRUE(p.has_value());
  EXPECT_NEAR(p->period_s, 600, 1e-9);
  EXPECT_NEAR(p->stall_s, 30, 1e-9);
  EXPECT_EQ(p->count, 6);
  EXPECT_NEAR(p->first_s, 300, 1e-9);
  EXPECT_NEAR(p->share_pct, 100.0 * 180 / 3600, 1e-9);
  EXPECT_TRUE(p->write_burst);
  EXPECT_NEAR(p->write_bytes_per_s_during, 800e6, 1);

  AnalyzeReport r = AnalyzeRecording(rec, AnalyzeOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kPeriodicStall);
  EXPECT_EQ(r.verdict.detail, Subcase::kWriteBurst);
  EXPECT_EQ(r.verdict.confidence, "high");
  EXPECT_NE(r.verdict.reason.find("every 10.0 min for 30.0 s"), std::string::npos)
      << r.verdict.reason;
  // 30 s dips stay inside the compute-bound phase.
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_EQ(r.phases[0].label.label, Bottleneck::kComputeBound);
}

TEST(PeriodicStallTest, IrregularDipsAreNotPeriodic) {
  const int starts[] = {100, 520, 700, 1500, 1630, 2900};
  RecordingBuilder b;
  b.Add(3600, [&](Sample& s, int i) {
    for (int st : starts) {
      if (i >= st && i < st + 20) SetGpus(s, 2);
    }
  });
  AnalyzeThresholds th;
  EXPECT_FALSE(DetectPeriodicStalls(ComputeSignals(b.Build(), th), th).has_value());
}

TEST(PeriodicStallTest, StallsWithoutWritesAreStillPeriodic) {
  RecordingBuilder b;
  b.Add(1200, [](Sample& s, int i) {
    if (i % 120 >= 60 && i % 120 < 70) SetGpus(s, 1);  // evaluation every 2 minutes
  });
  AnalyzeThresholds th;
  auto p = DetectPeriodicStalls(ComputeSignals(b.Build(), th), th);
  ASSERT_TRUE(p.has_value());
  EXPECT_NEAR(p->period_s, 120, 1e-9);
  EXPECT_NEAR(p->stall_s, 10, 1e-9);
  EXPECT_FALSE(p->write_burst);
}

TEST(MemoryGrowthTest, LeakingProcessWithTimeToOom) {
  RecordingBuilder b;
  const double slope = 2.0 * 1024 * 1024;  // 2 MiB/s
  b.Add(1800, [&](Sample& s, int i) {
    s.processes[0].rss_bytes = static_cast<uint64_t>(6 * kGiB + slope * i);
    s.host.mem_available_bytes = static_cast<uint64_t>(100 * kGiB - slope * i);
  });
  Recording rec = b.Build();
  AnalyzeThresholds th;
  std::vector<MemoryGrowth> g = DetectMemoryGrowth(rec, {0}, th);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].subject, "pid 100 (python3)");
  EXPECT_EQ(g[0].kind, "host_rss");
  EXPECT_NEAR(g[0].slope_bytes_per_s, slope, 1);
  EXPECT_GT(g[0].r2, 0.999);
  double avail_end = 100.0 * kGiB - slope * 1799;
  ASSERT_TRUE(g[0].time_to_oom_s.has_value());
  EXPECT_NEAR(*g[0].time_to_oom_s, avail_end / slope, 1);

  AnalyzeReport r = AnalyzeRecording(rec, AnalyzeOptions{});
  bool leak = false;
  for (const BottleneckLabel& l : r.labels) leak |= l.label == Bottleneck::kMemoryLeak;
  EXPECT_TRUE(leak);
  EXPECT_EQ(r.verdict.label, Bottleneck::kMemoryLeak);  // nothing else is wrong with this run
}

TEST(MemoryGrowthTest, GpuMemoryLeakAgainstTotal) {
  RecordingBuilder b;
  b.Add(600, [](Sample& s, int i) {
    for (GpuSample& g : s.gpus)
      g.memory_used_bytes = 40 * kGiB + static_cast<uint64_t>(i) * 50'000'000;
  });
  std::vector<MemoryGrowth> g = DetectMemoryGrowth(b.Build(), {0}, AnalyzeThresholds{});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].subject, "gpu0");
  EXPECT_NEAR(g[0].slope_bytes_per_s, 50e6, 1);
  double end = 40.0 * kGiB + 599 * 50e6;
  EXPECT_NEAR(*g[0].time_to_oom_s, (80.0 * kGiB - end) / 50e6, 1);
}

// GPU 0's memory is unread in the first sample while GPU 1's is read: the detector's remembered
// lookup for position 1 pads position 0, and that padding must never stand for GPU 0 (found by
// fuzz_smi_csv: a null dereference, or GPU 0's series silently skipped).
TEST(MemoryGrowthTest, AGpuUnreadAtFirstIsStillFollowed) {
  RecordingBuilder b(2);
  b.Add(600, [](Sample& s, int i) {
    for (GpuSample& g : s.gpus) {
      g.memory_used_bytes = 40 * kGiB + static_cast<uint64_t>(i) * 50'000'000;
    }
    if (i == 0) s.gpus[0].memory_used_bytes.reset();
  });
  std::vector<MemoryGrowth> g = DetectMemoryGrowth(b.Build(), {0, 1}, AnalyzeThresholds{});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].subject == "gpu0" || g[1].subject == "gpu0", true);
  for (const MemoryGrowth& m : g) EXPECT_NEAR(m.slope_bytes_per_s, 50e6, 1) << m.subject;
}

TEST(MemoryGrowthTest, WarmUpThatPlateausIsNotALeak) {
  RecordingBuilder b;
  b.Add(1800, [](Sample& s, int i) {
    double grow = std::min(i, 600) * 10.0 * 1024 * 1024;  // allocator warm-up, then flat
    s.processes[0].rss_bytes = static_cast<uint64_t>(6 * kGiB + grow);
  });
  EXPECT_TRUE(DetectMemoryGrowth(b.Build(), {0}, AnalyzeThresholds{}).empty());
}

TEST(EnergyTest, CounterDeltasResetsAndWork) {
  RecordingBuilder b;
  b.meta().work_unit = "samples";
  // 100 samples at 300 W; the counter restarts from 5 J at sample 50 (driver reload).
  double counter = 1e6;
  b.Add(100, [&](Sample& s, int i) {
    for (GpuSample& g : s.gpus) {
      g.power_w = 300;
      counter = i == 50 ? 5 : counter + 300;
      g.energy_j = counter;
    }
    s.workload.work_total = 1000 + 10.0 * i;
  });
  Recording rec = b.Build();
  EnergySummary e = ComputeEnergy(rec, {0}, 100, AnalyzeThresholds{}, 4.0);
  ASSERT_EQ(e.gpus.size(), 1u);
  EXPECT_EQ(e.gpus[0].counter_resets, 1);
  EXPECT_EQ(e.gpus[0].method, "counter+power");
  // 99 intervals after the first sample: 98 counter deltas of 300 J + 1 integrated (300 W × 1 s).
  EXPECT_NEAR(e.joules, 99 * 300.0, 1e-6);
  EXPECT_NEAR(e.starved_joules, 0, 1e-9);
  ASSERT_TRUE(e.work.has_value());
  EXPECT_NEAR(*e.work, 990, 1e-9);
  EXPECT_NEAR(*e.work_per_s, 990.0 / 99, 1e-9);
  EXPECT_NEAR(*e.work_per_kj, 990 / 29.7, 1e-6);
  EXPECT_NEAR(e.gpu_hours, 100.0 / 3600, 1e-12);
  EXPECT_NEAR(*e.cost, 4.0 * 100 / 3600, 1e-12);
  EXPECT_NEAR(*e.work_per_dollar, 990 / (4.0 * 100 / 3600), 1e-6);
  EXPECT_EQ(e.work_unit, "samples");
}

TEST(EnergyTest, PowerIntegrationWithoutCounterAndStarvedEnergy) {
  RecordingBuilder b;
  b.Add(100, [](Sample& s, int i) {
    SetGpus(s, i < 40 ? 10 : 95);  // 40 s starved
    for (GpuSample& g : s.gpus) {
      g.power_w = i < 40 ? 100 : 300;
      g.energy_j = std::nullopt;
    }
  });
  // The builder fills the counter from power: take it away again.
  Recording rec = b.Build();
  for (Sample& s : rec.samples) {
    for (GpuSample& g : s.gpus) g.energy_j.reset();
  }
  EnergySummary e = ComputeEnergy(rec, {0}, 100, AnalyzeThresholds{}, std::nullopt);
  EXPECT_EQ(e.method, "mixed");
  EXPECT_EQ(e.gpus[0].method, "power");
  EXPECT_NEAR(e.joules, 40 * 100 + 60 * 300.0, 1e-6);
  EXPECT_NEAR(e.starved_joules, 4000, 1e-6);
  EXPECT_NEAR(e.starved_pct, 100.0 * 4000 / 22000, 1e-9);
  EXPECT_FALSE(e.work.has_value());
  EXPECT_FALSE(e.cost.has_value());
}

TEST(EnergyTest, WorkCounterThatRestarts) {
  RecordingBuilder b;
  b.Add(10, [](Sample& s, int i) { s.workload.work_total = i < 5 ? 100.0 + i : i - 5.0; });
  EnergySummary e = ComputeEnergy(b.Build(), {0}, 10, AnalyzeThresholds{}, std::nullopt);
  // 100..104 (+4), restart at 0 (+0), then 1..4 (+4).
  EXPECT_NEAR(*e.work, 8, 1e-9);
}

}  // namespace
}  // namespace gpuvet

namespace gpuvet {
namespace {

// 45 s stalls every 10 minutes without disk writes, with `nfs: server fs1 not responding` logged
// at the start of each (and OK at its end): the stalls are the NFS server, and the decision says
// so; a recorder fault comes before everything.
Recording NfsStalls(bool every_stall) {
  test::RecordingBuilder b;
  b.Add(3600, [](Sample& s, int i) {
    if (i % 600 >= 300 && i % 600 < 345) test::SetGpus(s, 2);
  });
  Recording rec = b.Build();
  for (int k = 0; k < 6; ++k) {
    if (!every_stall && k % 2) continue;
    rec.events.push_back({300.0 + 600 * k + 2, RecordingEventKind::kNfsNotResponding, "fs1",
                          "nfs: server fs1 not responding, still trying"});
    rec.events.push_back(
        {345.0 + 600 * k, RecordingEventKind::kNfsOk, "fs1", "nfs: server fs1 OK"});
  }
  return rec;
}

TEST(KernelEventsTest, NfsOutagesDuringEachStallNameTheCause) {
  AnalyzeReport r = AnalyzeRecording(NfsStalls(true), AnalyzeOptions());
  ASSERT_TRUE(r.periodic.has_value());
  EXPECT_EQ(r.periodic->cause_kind, "nfs_not_responding");
  EXPECT_EQ(r.periodic->cause_stalls, 6);
  EXPECT_EQ(r.verdict.label, Bottleneck::kPeriodicStall);
  EXPECT_EQ(r.verdict.detail, Subcase::kNfsOutage);
  EXPECT_NE(r.verdict.reason.find(
                "coinciding with `nfs: server fs1 not responding, still trying` each time"),
            std::string::npos)
      << r.verdict.reason;
  EXPECT_EQ(r.verdict.decision, DecisionFor(Bottleneck::kPeriodicStall, Subcase::kNfsOutage));
  ASSERT_EQ(r.kernel_events.size(), 1u);  // OK lines end outages; they are not events
  EXPECT_EQ(r.kernel_events[0].count, 6);
  EXPECT_EQ(r.kernel_events[0].stalls_with, 6);
  EXPECT_TRUE(r.faults.empty());
}

TEST(KernelEventsTest, OutagesInHalfTheStallsStillNameItWithTheCount) {
  AnalyzeReport r = AnalyzeRecording(NfsStalls(false), AnalyzeOptions());
  ASSERT_TRUE(r.periodic.has_value());
  EXPECT_EQ(r.periodic->cause_stalls, 3);
  EXPECT_NE(r.verdict.reason.find("in 3 of 6 stalls"), std::string::npos) << r.verdict.reason;
}

TEST(KernelEventsTest, AnEventOutsideTheStallsIsNoCause) {
  Recording rec = NfsStalls(true);
  for (RecordingEvent& e : rec.events) e.t += 120;  // two minutes after each stall
  AnalyzeReport r = AnalyzeRecording(rec, AnalyzeOptions());
  ASSERT_TRUE(r.periodic.has_value());
  EXPECT_TRUE(r.periodic->cause_kind.empty());
  EXPECT_EQ(r.verdict.detail, Subcase::kNone);
}

TEST(KernelEventsTest, ALostGpuComesFirstAndIsNeverNothingToFix) {
  test::RecordingBuilder b;
  b.Add(600, [](Sample& s, int) { test::SetGpus(s, 95); });
  Recording rec = b.Build();
  rec.events.push_back({120, RecordingEventKind::kGpuLost, "gpu0",
                        "lost: nvmlDeviceGetUtilizationRates answered GPU_IS_LOST"});
  AnalyzeReport r = AnalyzeRecording(rec, AnalyzeOptions());
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_EQ(r.faults[0].kind, "gpu_lost");
  EXPECT_EQ(r.faults[0].t, 120);
  EXPECT_EQ(r.verdict.confidence, "low");
  EXPECT_EQ(r.verdict.decision.rfind("First the node: gpu0 was lost at 120 s", 0), 0u)
      << r.verdict.decision;
}

}  // namespace
}  // namespace gpuvet
