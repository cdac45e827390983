// The analyses of issue 14 on synthetic recordings: short feeding cycles found from GPU activity
// alone (2 s busy / 3 s idle, 1 s / 1 s, a jittered period) and silence on flat, random and
// irregular series; one GPU among eight (idle, slow clock, throttled, hot, straggler) found and
// named, nothing on balanced data; GPUs idle while the RDMA ports run at line rate or signal
// congestion labelled comm_bound/network with the port and its rate.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/recording/recording_analyze.h"
#include "analysis/recording/recording_detectors.h"
#include "analysis/recording/recording_signals.h"
#include "core/bottleneck.h"
#include "core/gpu_state.h"
#include "testing/recording_builder.h"

namespace gpuvet {
namespace {

using test::RecordingBuilder;
using test::SetGpus;

// GPU-only samples, as an nvidia-smi dmon import has them: no host or process figures.
void GpuOnly(Sample& s) {
  s.host = HostSample{};
  s.processes.clear();
  s.workload = WorkloadSample{};
  for (GpuSample& g : s.gpus) g.processes.clear();
}

// `busy` samples at 90 % then `idle` at 5 %, repeated `cycles` times, GPU figures only.
Recording Cycle(int busy, int idle, int cycles, int gpus = 1) {
  RecordingBuilder b(gpus, "NVIDIA A100-PCIE-40GB");
  for (int k = 0; k < cycles; ++k) {
    b.Add(busy, [](Sample& s, int) {
      GpuOnly(s);
      SetGpus(s, 90);
    });
    b.Add(idle, [](Sample& s, int) {
      GpuOnly(s);
      SetGpus(s, 5);
    });
  }
  return b.Build();
}

std::optional<FeedingCycle> CycleOf(const Recording& rec) {
  AnalyzeThresholds th;
  return DetectFeedingCycle(ComputeSignals(rec, th), th);
}

TEST(FeedingCycleTest, TwoSecondsBusyEveryFiveSecondsWithoutHostData) {
  Recording rec = Cycle(2, 3, 24);
  std::optional<FeedingCycle> c = CycleOf(rec);
  ASSERT_TRUE(c.has_value());
  EXPECT_NEAR(c->period_s, 5, 1e-9);
  EXPECT_NEAR(c->burst_s, 2, 1e-9);
  EXPECT_NEAR(c->duty_pct, 40, 1e-9);
  EXPECT_EQ(c->cycles, 23);  // the first burst starts the recording: no true start
  EXPECT_NEAR(c->regular_pct, 100, 1e-9);
  EXPECT_NEAR(c->busy_level_pct, 90, 1e-9);
  EXPECT_NEAR(c->idle_level_pct, 5, 1e-9);

  AnalyzeReport r = AnalyzeRecording(rec, AnalyzeOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kPeriodicStall);
  EXPECT_EQ(r.verdict.detail, Subcase::kInputBursts);
  EXPECT_NE(r.verdict.reason.find("input arrives in bursts every 5.0 s"), std::string::npos)
      << r.verdict.reason;
  EXPECT_NE(r.verdict.reason.find("40 % duty cycle"), std::string::npos) << r.verdict.reason;
  EXPECT_NE(r.verdict.reason.find("no host figures"), std::string::npos) << r.verdict.reason;
  // The phase label stays what GPU figures alone allow.
  ASSERT_FALSE(r.phases.empty());
  EXPECT_EQ(r.phases[0].label.detail, Subcase::kNoHostData);
}

TEST(FeedingCycleTest, PeriodOfTwoSamplesAndAJitteredPeriod) {
  std::optional<FeedingCycle> c = CycleOf(Cycle(1, 1, 30));
  ASSERT_TRUE(c.has_value());
  EXPECT_NEAR(c->period_s, 2, 1e-9);
  EXPECT_NEAR(c->duty_pct, 50, 1e-9);
  // A 5.5 s cycle sampled at 1 Hz: gaps of 5 and 6 samples alternate around the mean.
  RecordingBuilder b(1);
  for (int k = 0; k < 20; ++k) {
    b.Add(2, [](Sample& s, int) { SetGpus(s, 92); });
    b.Add(k % 2 ? 4 : 3, [](Sample& s, int) { SetGpus(s, 3); });
  }
  c = CycleOf(b.Build());
  ASSERT_TRUE(c.has_value());
  EXPECT_NEAR(c->period_s, 5.5, 0.05);
}

TEST(FeedingCycleTest, SilentOnFlatRandomAndIrregularSeries) {
  EXPECT_FALSE(CycleOf(Cycle(5, 0, 40)).has_value());  // flat busy
  RecordingBuilder flat(1);
  flat.Add(300, [](Sample& s, int) { SetGpus(s, 30); });
  EXPECT_FALSE(CycleOf(flat.Build()).has_value());
  for (unsigned seed = 1; seed <= 8; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 100);
    RecordingBuilder noise(1), binary(1), jitter(1);
    noise.Add(400, [&](Sample& s, int) { SetGpus(s, u(rng)); });
    binary.Add(400, [&](Sample& s, int) { SetGpus(s, rng() % 2 ? 95 : 2); });
    jitter.Add(400, [&](Sample& s, int) { SetGpus(s, 50 + u(rng) / 10); });
    EXPECT_FALSE(CycleOf(noise.Build()).has_value()) << "uniform noise, seed " << seed;
    EXPECT_FALSE(CycleOf(binary.Build()).has_value()) << "random on/off, seed " << seed;
    EXPECT_FALSE(CycleOf(jitter.Build()).has_value()) << "flat with jitter, seed " << seed;
  }
  // A server answering requests at irregular times.
  RecordingBuilder server(1);
  const int busy[] = {2, 1, 3, 1, 4, 2, 1, 3};
  const int idle[] = {5, 9, 3, 7, 2, 8, 4, 6, 11};
  for (int k = 0; k < 60; ++k) {
    server.Add(busy[k % 8], [](Sample& s, int) { SetGpus(s, 88); });
    server.Add(idle[k % 9], [](Sample& s, int) { SetGpus(s, 0); });
  }
  EXPECT_FALSE(CycleOf(server.Build()).has_value());
  // Long bursts with short dips are periodic stalls, not a feeding cycle.
  EXPECT_FALSE(CycleOf(Cycle(9, 1, 30)).has_value());
}

// Eight busy GPUs; `bend(gpu_sample)` changes gpu3 in every sample.
Recording EightWith(const std::function<void(GpuSample&)>& bend, int seconds = 300) {
  RecordingBuilder b(8, "NVIDIA H100 80GB HBM3");
  b.Add(seconds, [&](Sample& s, int) {
    for (GpuSample& g : s.gpus) {
      g.util_pct = 94 + g.gpu % 3;  // balanced, not identical
      g.sm_clock_mhz = 1410 - 5 * (g.gpu % 2);
      g.temperature_c = 60 + g.gpu % 4;
    }
    if (bend) bend(s.gpus[3]);
  });
  return b.Build();
}

std::vector<GpuImbalance> ImbalanceOf(const Recording& rec) {
  AnalyzeThresholds th;
  double total = 0;
  for (const Sample& s : rec.samples) total += s.interval_s;
  return DetectGpuImbalance(rec, WorkloadGpus(rec, th), total, th);
}

TEST(GpuImbalanceTest, BalancedEightGpusSayNothing) {
  EXPECT_TRUE(ImbalanceOf(EightWith(nullptr)).empty());
  AnalyzeReport r = AnalyzeRecording(EightWith(nullptr), AnalyzeOptions{});
  EXPECT_TRUE(r.imbalance.empty());
  EXPECT_EQ(r.verdict.label, Bottleneck::kComputeBound);
  // Random but balanced noise on every GPU.
  std::mt19937 rng(7);
  RecordingBuilder b(8);
  b.Add(600, [&](Sample& s, int) {
    for (GpuSample& g : s.gpus) {
      g.util_pct = 70 + static_cast<double>(rng() % 30);
      g.temperature_c = 55 + static_cast<double>(rng() % 8);
      g.sm_clock_mhz = 1350 + static_cast<double>(rng() % 60);
    }
  });
  EXPECT_TRUE(ImbalanceOf(b.Build()).empty());
}

TEST(GpuImbalanceTest, OneIdleGpuIsNamed) {
  Recording rec = EightWith([](GpuSample& g) { g.util_pct = 2; });
  auto v = ImbalanceOf(rec);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].gpu, 3);
  EXPECT_EQ(v[0].kind, Subcase::kIdleGpu);
  AnalyzeReport r = AnalyzeRecording(rec, AnalyzeOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kGpuImbalance);
  EXPECT_EQ(r.verdict.detail, Subcase::kIdleGpu);
  EXPECT_NE(r.verdict.reason.find("gpu3 idles"), std::string::npos) << r.verdict.reason;
}

TEST(GpuImbalanceTest, SlowClockAndThrottledGpu) {
  Recording slow = EightWith([](GpuSample& g) {
    g.sm_clock_mhz = 1095;
    g.clock_event_reasons = clock_reason::kSwThermalSlowdown;
  });
  auto v = ImbalanceOf(slow);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, Subcase::kSlowGpu);
  EXPECT_EQ(v[0].unit, "MHz");
  EXPECT_NEAR(v[0].value, 1095, 1e-9);
  AnalyzeReport r = AnalyzeRecording(slow, AnalyzeOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kGpuImbalance);
  EXPECT_NE(r.verdict.reason.find("thermal slowdown"), std::string::npos) << r.verdict.reason;
  // Slowdown reasons most of the time, clock still within 10 %: slow by its slowdown share.
  Recording capped = EightWith([](GpuSample& g) {
    g.sm_clock_mhz = 1340;
    g.clock_event_reasons = clock_reason::kSwPowerCap;
  });
  v = ImbalanceOf(capped);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, Subcase::kSlowGpu);
  EXPECT_EQ(v[0].unit, "% of busy time slowed");
}

TEST(GpuImbalanceTest, HotGpuIsReportedButIsNotTheVerdict) {
  Recording rec = EightWith([](GpuSample& g) { g.temperature_c = 79; });
  auto v = ImbalanceOf(rec);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, Subcase::kHotGpu);
  AnalyzeReport r = AnalyzeRecording(rec, AnalyzeOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kComputeBound);
  EXPECT_EQ(r.imbalance.size(), 1u);
}

TEST(GpuImbalanceTest, StragglerTheOthersWaitFor) {
  RecordingBuilder b(8);
  b.Add(300, [](Sample& s, int) {
    for (GpuSample& g : s.gpus) g.util_pct = g.gpu == 5 ? 99 : 62;
  });
  auto v = ImbalanceOf(b.Build());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].gpu, 5);
  EXPECT_EQ(v[0].kind, Subcase::kStraggler);
}

TEST(GpuImbalanceTest, TwoHalvesAreNotOneOddGpu) {
  RecordingBuilder b(8);
  b.Add(300, [](Sample& s, int) {
    for (GpuSample& g : s.gpus) g.sm_clock_mhz = g.gpu < 4 ? 1410 : 1100;
  });
  EXPECT_TRUE(ImbalanceOf(b.Build()).empty());
}

// Eight GPUs and eight HDR ports: the GPUs wait at 25 % while every port moves 22 GB/s (88 % of
// 200 Gb/s) — a multi-node job bound by all-reduce over InfiniBand.
Recording NetworkBound(bool congestion_only) {
  RecordingBuilder b(8, "NVIDIA H100 80GB HBM3");
  b.Add(300, [&](Sample& s, int i) {
    SetGpus(s, 25);
    s.host.cpu_user_pct = 12;
    s.processes[0].cpu_pct = 400;
    for (int p = 0; p < 8; ++p) {
      IbPortSample x;
      x.port = "mlx5_" + std::to_string(p) + "/1";
      x.link_layer = congestion_only ? "Ethernet" : "InfiniBand";
      x.rate_gbps = 200;
      x.active = true;
      double bps = congestion_only ? 8e9 : (p == 2 ? 22.5e9 : 22e9) - (i % 3) * 1e8;
      x.rx_bytes_per_s = bps;
      x.tx_bytes_per_s = bps;
      x.xmit_wait_per_s = 1e6;
      x.cnp_per_s = congestion_only ? 300 : 0;
      x.errors_per_s = 0;
      s.host.ib_ports.push_back(x);
    }
  });
  return b.Build();
}

TEST(NetworkBoundTest, GpusIdleWhileThePortsRunAtLineRate) {
  AnalyzeReport r = AnalyzeRecording(NetworkBound(false), AnalyzeOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kCommBound);
  EXPECT_EQ(r.verdict.detail, Subcase::kNetwork);
  EXPECT_NE(r.verdict.reason.find("InfiniBand port mlx5_2/1 (200 Gb/s)"), std::string::npos)
      << r.verdict.reason;
  EXPECT_NE(r.verdict.reason.find("runs at 89.6 % of its rate"), std::string::npos)
      << r.verdict.reason;
}

TEST(NetworkBoundTest, CongestionAloneAndNearMisses) {
  AnalyzeReport r = AnalyzeRecording(NetworkBound(true), AnalyzeOptions{});
  // 8 ports x 300 CNP/s = 2400/s while each port moves 32 % of its rate.
  EXPECT_EQ(r.verdict.detail, Subcase::kNetwork);
  EXPECT_NE(r.verdict.reason.find("congestion"), std::string::npos) << r.verdict.reason;
  EXPECT_NE(r.verdict.reason.find("RoCE"), std::string::npos) << r.verdict.reason;
  // Light traffic, no congestion: not the network.
  Recording light = NetworkBound(true);
  for (Sample& s : light.samples) {
    for (IbPortSample& p : s.host.ib_ports) p.cnp_per_s = 10;
  }
  EXPECT_NE(AnalyzeRecording(light, AnalyzeOptions{}).verdict.detail, Subcase::kNetwork);
  // Busy GPUs with busy ports: compute overlaps communication, not network-bound.
  Recording busy = NetworkBound(false);
  for (Sample& s : busy.samples) SetGpus(s, 95);
  EXPECT_NE(AnalyzeRecording(busy, AnalyzeOptions{}).verdict.label, Bottleneck::kCommBound);
  // A port that is down carries nothing and is not judged against its rate.
  Recording down = NetworkBound(false);
  for (Sample& s : down.samples) {
    for (IbPortSample& p : s.host.ib_ports) p.active = false;
  }
  EXPECT_NE(AnalyzeRecording(down, AnalyzeOptions{}).verdict.label, Bottleneck::kCommBound);
}

// Above kMaxSignalRows, rows merge `step` samples: the RDMA link share and congestion are
// dt-weighted means of the known values and the row names the port of its busiest sample.
TEST(NetworkBoundTest, MergedSignalRowsKeepTheBusiestPort) {
  RecordingBuilder b(1, "NVIDIA A100-PCIE-40GB");
  b.Add(4, [](Sample& s, int i) {
    SetGpus(s, 50);
    IbPortSample a{"mlx5_0/1", "InfiniBand", 200, true, 0, 0, std::nullopt, std::nullopt, 0};
    IbPortSample c{"mlx5_1/1", "Ethernet", 100, true, 0, 0, std::nullopt, std::nullopt, 0};
    // Row 0: port a at 40 % then port c at 80 %; row 1: port a at 20 %, then no ports at all.
    if (i == 0) a.rx_bytes_per_s = 0.4 * 200e9 / 8, a.cnp_per_s = 10;
    if (i == 1) c.tx_bytes_per_s = 0.8 * 100e9 / 8, c.cnp_per_s = 30;
    if (i == 2) a.rx_bytes_per_s = 0.2 * 200e9 / 8;
    if (i == 0 || i == 2) s.host.ib_ports = {a};
    if (i == 1) s.host.ib_ports = {c};
  });
  Recording rec = b.Build();
  AnalyzeThresholds th;
  SignalSeries series(rec.meta, {0}, th, 2 * kMaxSignalRows);
  for (const Sample& s : rec.samples) series.Add(s);
  RecordingSignals sig = series.Finish();
  ASSERT_EQ(sig.step, 2);
  ASSERT_EQ(sig.samples.size(), 2u);
  ASSERT_EQ(sig.net_ports, (std::vector<std::string>{"mlx5_0/1", "mlx5_1/1"}));
  EXPECT_EQ(sig.net_port_gbps, (std::vector<double>{200, 100}));
  EXPECT_EQ(sig.net_port_layer, (std::vector<std::string>{"InfiniBand", "Ethernet"}));
  EXPECT_NEAR(sig.samples[0].net_link_pct, 60, 1e-9);
  EXPECT_NEAR(sig.samples[0].net_cnp_per_s, 20, 1e-9);
  EXPECT_EQ(sig.samples[0].net_port, 1);
  EXPECT_NEAR(sig.samples[1].net_link_pct, 20, 1e-9);
  EXPECT_TRUE(std::isnan(sig.samples[1].net_cnp_per_s));
  EXPECT_EQ(sig.samples[1].net_port, 0);
}

}  // namespace
}  // namespace gpuvet
