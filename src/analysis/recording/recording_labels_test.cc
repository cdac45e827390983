// One synthetic recording per label and per near-miss that must not be labelled; phases found at
// the right change point; the live verdict of `watch`.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/recording/recording_analyze.h"
#include "core/bottleneck.h"
#include "testing/recording_builder.h"

namespace gpuvet {
namespace {

using test::RecordingBuilder;
using test::SetGpus;

AnalyzeReport Analyze(const Recording& r) { return AnalyzeRecording(r, AnalyzeOptions{}); }

void Pegged1(Sample& s) {
  s.host.core_busy_pct.assign(8, 15);
  s.host.core_busy_pct[3] = 100;
  s.host.cpu_user_pct = 24;
  s.processes[0].top_threads = {{100, "python3", 99}, {101, "pt_data_worker", 5}};
}

TEST(RecordingLabelsTest, ComputeBoundWithAndWithoutGpm) {
  AnalyzeReport util_only = Analyze(RecordingBuilder().Add(600).Build());
  ASSERT_EQ(util_only.phases.size(), 1u);
  EXPECT_EQ(util_only.verdict.label, Bottleneck::kComputeBound);
  EXPECT_EQ(util_only.verdict.confidence, "medium");  // GPU-Util alone is coarse
  EXPECT_NEAR(util_only.verdict.share_pct, 100, 0.01);
  EXPECT_FALSE(util_only.gpm);

  AnalyzeReport gpm = Analyze(RecordingBuilder(1, "NVIDIA H100 80GB HBM3")
                                  .Add(600,
                                       [](Sample& s, int) {
                                         SetGpus(s, 98, 88);
                                         for (GpuSample& g : s.gpus)
                                           g.tensor_active_pct = 60, g.dram_bw_util_pct = 40;
                                       })
                                  .Build());
  EXPECT_TRUE(gpm.gpm);
  EXPECT_EQ(gpm.verdict.label, Bottleneck::kComputeBound);
  EXPECT_EQ(gpm.verdict.confidence, "high");
  EXPECT_EQ(gpm.phases[0].activity_metric, "sm_active");
}

TEST(RecordingLabelsTest, SingleThreadFeeder) {
  AnalyzeReport r = Analyze(RecordingBuilder()
                                .Add(600,
                                     [](Sample& s, int) {
                                       SetGpus(s, 22);
                                       Pegged1(s);
                                     })
                                .Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kHostCpuBound);
  EXPECT_EQ(r.verdict.detail, Subcase::kSingleThreadFeeder);
  EXPECT_NE(r.verdict.reason.find("99.0 %"), std::string::npos) << r.verdict.reason;
  bool has_threshold = false;
  for (const Evidence& e : r.verdict.evidence) {
    if (e.name == "busiest_thread") has_threshold = e.threshold == ">= 90.0 %";
  }
  EXPECT_TRUE(has_threshold);
  EXPECT_NE(r.verdict.decision.find("num_workers"), std::string::npos);
}

TEST(RecordingLabelsTest, CpuSaturated) {
  AnalyzeReport r = Analyze(RecordingBuilder()
                                .Add(300,
                                     [](Sample& s, int) {
                                       SetGpus(s, 30);
                                       s.host.core_busy_pct.assign(8, 97);
                                       s.host.cpu_user_pct = 90, s.host.cpu_system_pct = 6,
                                       s.host.cpu_idle_pct = 3;
                                       s.processes[0].cpu_pct = 770;
                                     })
                                .Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kHostCpuBound);
  EXPECT_EQ(r.verdict.detail, Subcase::kCpuSaturated);
  EXPECT_EQ(r.verdict.confidence, "medium");  // GPU-Util only
}

// A 2-core host shared with other jobs: the feeder thread gets 85 % of a core (under the 90 %
// pegged line) and busy time reads 75 % because iowait hides the rest, but PSI shows tasks waiting
// for a CPU 40 % of the time: the host is saturated. Without the PSI wait nothing is labelled.
TEST(RecordingLabelsTest, CpuContentionSeenThroughPsi) {
  auto build = [](double psi) {
    return RecordingBuilder()
        .Add(300,
             [psi](Sample& s, int) {
               SetGpus(s, 12);
               s.host.core_busy_pct = {80, 70};
               s.host.cpu_user_pct = 65, s.host.cpu_system_pct = 10, s.host.cpu_iowait_pct = 5,
               s.host.cpu_idle_pct = 20;
               s.host.psi_cpu_some_pct = psi;
               s.processes[0].cpu_pct = 85;
               s.processes[0].top_threads = {{100, "feeder", 85}};
             })
        .Build();
  };
  AnalyzeReport contended = Analyze(build(40));
  EXPECT_EQ(contended.verdict.label, Bottleneck::kHostCpuBound) << contended.verdict.reason;
  EXPECT_EQ(contended.verdict.detail, Subcase::kCpuSaturated);
  EXPECT_NE(contended.verdict.reason.find("40.0 % of the time (PSI)"), std::string::npos)
      << contended.verdict.reason;
  AnalyzeReport quiet = Analyze(build(2));
  EXPECT_NE(quiet.verdict.label, Bottleneck::kHostCpuBound) << quiet.verdict.reason;
}

TEST(RecordingLabelsTest, CgroupQuota) {
  RecordingBuilder b;
  b.meta().cpu_quota_cores = 2;
  AnalyzeReport r = Analyze(b.Add(300, [](Sample& s, int) {
                               SetGpus(s, 25);
                               s.processes[0].cpu_pct = 199;
                               s.workload.cgroup_throttled_pct = 45;
                             }).Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kHostCpuBound);
  EXPECT_EQ(r.verdict.detail, Subcase::kCpuQuota);
  EXPECT_NE(r.verdict.decision.find("cpu.max"), std::string::npos);
}

TEST(RecordingLabelsTest, StorageBound) {
  AnalyzeReport r = Analyze(RecordingBuilder()
                                .Add(300,
                                     [](Sample& s, int) {
                                       SetGpus(s, 15);
                                       s.host.cpu_iowait_pct = 28;
                                       s.host.psi_io_some_pct = 55;
                                       s.host.disks[0].busy_pct = 97;
                                       s.host.disks[0].read_bytes_per_s = 900e6;
                                       s.processes[0].rchar_per_s = 900e6;
                                       s.processes[0].read_syscalls_per_s =
                                           900;  // 1 MB reads: not small files
                                     })
                                .Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kHostIoBound);
  EXPECT_EQ(r.verdict.detail, Subcase::kStorage);
}

// Another tenant's I/O: the host waits on storage, but this job reads nothing and its feeder
// thread is pegged — the storage wait does not explain its starved GPU.
TEST(RecordingLabelsTest, SomeoneElsesStorageWaitIsNotThisJobs) {
  AnalyzeReport r = Analyze(RecordingBuilder()
                                .Add(300,
                                     [](Sample& s, int) {
                                       SetGpus(s, 15);
                                       Pegged1(s);
                                       s.host.cpu_iowait_pct = 28;
                                       s.host.psi_io_some_pct = 55;
                                       s.processes[0].rchar_per_s = 4096;
                                       s.processes[0].read_syscalls_per_s = 2;
                                     })
                                .Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kHostCpuBound);
}

TEST(RecordingLabelsTest, SmallFilesMetadataBound) {
  AnalyzeReport r = Analyze(RecordingBuilder()
                                .Add(300,
                                     [](Sample& s, int) {
                                       SetGpus(s, 18);
                                       s.host.cpu_iowait_pct =
                                           3;  // NFS metadata waits barely show as iowait
                                       s.processes[0].read_syscalls_per_s = 4000;
                                       s.processes[0].rchar_per_s = 4000 * 6 * 1024.0;
                                       s.processes[0].opens_per_s = 800;
                                     })
                                .Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kHostIoBound);
  EXPECT_EQ(r.verdict.detail, Subcase::kSmallFiles);
  EXPECT_NE(r.verdict.reason.find("6.0 KiB"), std::string::npos) << r.verdict.reason;
  EXPECT_NE(r.verdict.decision.find("shard"), std::string::npos);
}

TEST(RecordingLabelsTest, TransferBound) {
  AnalyzeReport r = Analyze(RecordingBuilder()
                                .Add(300,
                                     [](Sample& s, int) {
                                       SetGpus(s, 70);
                                       for (GpuSample& g : s.gpus)
                                         g.pcie_rx_bytes_per_s = 25e9;  // of 31.5 GB/s Gen4 x16
                                     })
                                .Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kTransferBound);
  EXPECT_NEAR(r.phases[0].gpu_activity_pct, 70, 0.01);
}

TEST(RecordingLabelsTest, LaunchBoundBusyButNotProductive) {
  AnalyzeReport r = Analyze(RecordingBuilder(1, "NVIDIA H100 80GB HBM3")
                                .Add(300,
                                     [](Sample& s, int) {
                                       SetGpus(s, 96, 14);
                                       Pegged1(s);
                                     })
                                .Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kLaunchBound);
  EXPECT_EQ(r.verdict.detail, Subcase::kBusyNotProductive);
}

TEST(RecordingLabelsTest, MemoryBound) {
  AnalyzeReport gpm = Analyze(RecordingBuilder(1, "NVIDIA H100 80GB HBM3")
                                  .Add(300,
                                       [](Sample& s, int) {
                                         SetGpus(s, 97, 72);
                                         for (GpuSample& g : s.gpus)
                                           g.dram_bw_util_pct = 93, g.tensor_active_pct = 8;
                                       })
                                  .Build());
  EXPECT_EQ(gpm.verdict.label, Bottleneck::kMemoryBound);
  EXPECT_EQ(gpm.verdict.confidence, "high");
  AnalyzeReport util = Analyze(RecordingBuilder()
                                   .Add(300,
                                        [](Sample& s, int) {
                                          for (GpuSample& g : s.gpus) g.mem_util_pct = 93;
                                        })
                                   .Build());
  EXPECT_EQ(util.verdict.label, Bottleneck::kMemoryBound);
  EXPECT_EQ(util.verdict.confidence, "medium");
}

TEST(RecordingLabelsTest, ThrottledPhase) {
  AnalyzeReport r = Analyze(RecordingBuilder()
                                .Add(300,
                                     [](Sample& s, int) {
                                       for (GpuSample& g : s.gpus) {
                                         g.sm_clock_mhz = 1005;
                                         g.clock_event_reasons = 0x4;  // SW power cap
                                         g.power_w = 399;
                                       }
                                     })
                                .Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kThrottled);
  EXPECT_EQ(r.verdict.detail, Subcase::kPowerCap);
  ASSERT_EQ(r.throttle.size(), 1u);
  EXPECT_NEAR(r.throttle[0].power_cap_pct, 100, 0.01);
  EXPECT_NEAR(*r.throttle[0].clock_loss_pct, 100 * (1 - 1005.0 / 1410), 0.01);
}

TEST(RecordingLabelsTest, IdleAndCpuFallback) {
  AnalyzeReport idle = Analyze(RecordingBuilder()
                                   .Add(300,
                                        [](Sample& s, int) {
                                          SetGpus(s, 0);
                                          s.processes[0].cpu_pct = 2;
                                          s.processes[0].top_threads = {{100, "python3", 2}};
                                        })
                                   .Build());
  EXPECT_EQ(idle.verdict.label, Bottleneck::kIdle);

  AnalyzeReport fb = Analyze(RecordingBuilder()
                                 .Add(300,
                                      [](Sample& s, int) {
                                        SetGpus(s, 0);
                                        for (GpuSample& g : s.gpus) g.processes.clear();
                                        s.processes[0].cpu_pct = 760;
                                        s.host.core_busy_pct.assign(8, 95);
                                        s.host.cpu_user_pct = 94;
                                      })
                                 .Build());
  EXPECT_EQ(fb.verdict.label, Bottleneck::kCpuFallback);
  EXPECT_EQ(fb.verdict.confidence, "high");

  // On a host shared with other jobs the fallback gets 40 % of a core while it waits for more.
  auto squeezed = [](double psi) {
    return RecordingBuilder()
        .Add(300,
             [psi](Sample& s, int) {
               SetGpus(s, 0);
               for (GpuSample& g : s.gpus) g.processes.clear();
               s.processes[0].cpu_pct = 40;
               s.host.core_busy_pct.assign(8, 99);
               s.host.cpu_user_pct = 98;
               s.host.psi_cpu_some_pct = psi;
             })
        .Build();
  };
  EXPECT_EQ(Analyze(squeezed(80)).verdict.label, Bottleneck::kCpuFallback);
  EXPECT_NE(Analyze(squeezed(0)).verdict.label, Bottleneck::kCpuFallback);
  EXPECT_NE(fb.verdict.decision.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
}

// Near-miss: an inference server idle between requests and fast when busy is not a bottleneck.
TEST(RecordingLabelsTest, BurstyInferenceServerIsNotLabelled) {
  // Irregular bursts: busy for 1–4 s, idle for 2–9 s, host quiet throughout.
  const int pattern[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4};
  RecordingBuilder b;
  for (int k = 0; k < 40; ++k) {
    int busy = 1 + pattern[k % 20] % 4, idle = 2 + pattern[(k + 7) % 20] % 8;
    b.Add(busy, [](Sample& s, int) {
      SetGpus(s, 92);
      s.host.cpu_user_pct = 6;
    });
    b.Add(idle, [](Sample& s, int) {
      SetGpus(s, 0);
      s.host.cpu_user_pct = 1;
      s.processes[0].cpu_pct = 3;
      s.processes[0].top_threads = {{100, "python3", 2}};
    });
  }
  AnalyzeReport r = Analyze(b.Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kNone) << r.verdict.reason;
  EXPECT_EQ(r.verdict.detail, Subcase::kBursty);
  EXPECT_FALSE(r.periodic.has_value());
  for (const BottleneckLabel& l : r.labels) {
    EXPECT_TRUE(l.label == Bottleneck::kNone || l.label == Bottleneck::kIdle)
        << l.label << ": " << l.reason;
  }
}

// Near-miss: 30 % GPU-Util on a short job with nothing waiting is not a bottleneck.
TEST(RecordingLabelsTest, LightButFastJobIsNotLabelled) {
  AnalyzeReport r =
      Analyze(RecordingBuilder().Add(90, [](Sample& s, int) { SetGpus(s, 30); }).Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kNone) << r.verdict.reason;
  EXPECT_EQ(r.verdict.detail, Subcase::kNone);
  EXPECT_EQ(r.labels.size(), 1u);
}

TEST(RecordingLabelsTest, PhasesSplitAtTheChangePoint) {
  AnalyzeReport r = Analyze(RecordingBuilder()
                                .Add(300,
                                     [](Sample& s, int) {
                                       SetGpus(s, 20);
                                       Pegged1(s);
                                     })
                                .Add(600)
                                .Build());
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[0].label.label, Bottleneck::kHostCpuBound);
  EXPECT_NEAR(r.phases[0].end_s, 300, 2);
  EXPECT_EQ(r.phases[1].label.label, Bottleneck::kComputeBound);
  EXPECT_NEAR(r.phases[0].label.share_pct, 100.0 / 3, 1);
  // A third of the run is a bottleneck: it wins over compute_bound.
  EXPECT_EQ(r.verdict.label, Bottleneck::kHostCpuBound);
  EXPECT_EQ(r.labels.size(), 2u);
}

TEST(RecordingLabelsTest, SawtoothFeedingIsNamed) {
  AnalyzeReport r = Analyze(RecordingBuilder()
                                .Add(300,
                                     [](Sample& s, int i) {
                                       SetGpus(s, i % 2 ? 85 : 3);
                                       Pegged1(s);
                                     })
                                .Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kHostCpuBound);
  EXPECT_NE(r.verdict.reason.find("sawtooth"), std::string::npos) << r.verdict.reason;
}

TEST(RecordingLabelsTest, EmptyAndUnfinishedRecordings) {
  AnalyzeReport empty = Analyze(RecordingBuilder().Build());
  EXPECT_EQ(empty.verdict.label, Bottleneck::kNone);
  EXPECT_EQ(empty.verdict.confidence, "low");
  ASSERT_FALSE(empty.warnings.empty());

  AnalyzeReport killed = Analyze(RecordingBuilder().Add(50).BuildUnfinished());
  EXPECT_FALSE(killed.complete);
  EXPECT_EQ(killed.verdict.label, Bottleneck::kComputeBound);
  EXPECT_EQ(killed.verdict.confidence, "medium");
  EXPECT_NEAR(killed.duration_s, 50, 1e-9);
}

TEST(RecordingLabelsTest, NoGpuReadingsIsNotAGuess) {
  AnalyzeReport r = Analyze(RecordingBuilder()
                                .Add(100,
                                     [](Sample& s, int) {
                                       for (GpuSample& g : s.gpus) {
                                         GpuSample blank;
                                         blank.gpu = g.gpu;
                                         g = blank;
                                       }
                                     })
                                .Build());
  EXPECT_EQ(r.verdict.label, Bottleneck::kNone);
  EXPECT_EQ(r.verdict.confidence, "low");
}

TEST(RecordingLabelsTest, LiveVerdictForWatch) {
  Recording rec = RecordingBuilder()
                      .Add(10,
                           [](Sample& s, int) {
                             SetGpus(s, 12);
                             Pegged1(s);
                           })
                      .Build();
  LiveVerdict v = VerdictForWindow(rec.meta, rec.samples);
  EXPECT_EQ(v.label, Bottleneck::kHostCpuBound);
  EXPECT_EQ(v.detail, Subcase::kSingleThreadFeeder);
  EXPECT_FALSE(v.evidence.empty());
  EXPECT_FALSE(v.decision.empty());
  EXPECT_EQ(VerdictForWindow(rec.meta, {}).label, Bottleneck::kNone);
}

}  // namespace
}  // namespace gpuvet

namespace gpuvet {
namespace {

// Garbled values a damaged or hostile file could hold: the analysis must finish with finite
// shares and never crash (the suite runs under ASan/UBSan).
TEST(RecordingRobustnessTest, GarbledValuesDoNotCrash) {
  test::RecordingBuilder b(2);
  b.meta().interval_s = 1e-300;
  b.Add(200, [](Sample& s, int i) {
    s.t = i % 7 == 0 ? -5.0 : s.t;  // out of order
    s.interval_s = i % 11 == 0 ? std::nan("") : (i % 13 == 0 ? -1 : s.interval_s);
    for (GpuSample& g : s.gpus) {
      g.util_pct = i % 5 == 0 ? std::numeric_limits<double>::infinity() : 50.0 + i % 50;
      g.energy_j = i % 3 == 0 ? 0 : 1e18;
      g.sm_clock_mhz = std::nan("");
    }
    GpuSample alien;
    alien.gpu = 999'999;
    alien.util_pct = 100;
    s.gpus.push_back(alien);
    s.host.core_busy_pct.clear();
    s.host.disks.clear();
    s.processes[0].rss_bytes = static_cast<uint64_t>(i) << 40;
    s.workload.work_total = i % 4 == 0 ? std::nan("") : 1e300;
  });
  AnalyzeOptions o;
  o.target_gpu = "H200";
  o.price_per_gpu_hour = 1;
  AnalyzeReport r = AnalyzeRecording(b.BuildUnfinished(), o);
  EXPECT_NE(FindBottleneckRow(r.verdict.label, r.verdict.detail), nullptr);
  EXPECT_FALSE(r.warnings.empty());
  for (const AnalyzePhase& p : r.phases) EXPECT_TRUE(std::isfinite(p.label.share_pct));
}

}  // namespace
}  // namespace gpuvet

namespace gpuvet {
namespace {

// An import of nvidia-smi logs has GPU figures only: a starved GPU is reported as such, with low
// confidence, never as "nothing waits".
TEST(RecordingLabelsTest, GpuOnlyImportDoesNotGuessTheCause) {
  test::RecordingBuilder b;
  b.meta().target_pid = 0;
  b.meta().online_cpus = 0;
  AnalyzeReport r = AnalyzeRecording(b.Add(300,
                                           [](Sample& s, int) {
                                             test::SetGpus(s, 30);
                                             s.host = HostSample{};
                                             s.processes.clear();
                                             s.workload = WorkloadSample{};
                                           })
                                         .Build(),
                                     AnalyzeOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kIdle);
  EXPECT_EQ(r.verdict.detail, Subcase::kNoHostData);
  EXPECT_EQ(r.verdict.confidence, "low");
  EXPECT_NE(r.verdict.decision.find("gpuvet record"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet
