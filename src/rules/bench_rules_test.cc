#include "rules/bench_rules.h"

#include <gtest/gtest.h>

#include "rules/bench_expectations.h"

namespace gpuvet {
namespace {

BenchMeasurement M(std::string id, double median, std::string unit, int gpu = 0, int peer = -1) {
  BenchMeasurement m;
  m.id = std::move(id);
  m.gpu = gpu;
  m.peer = peer;
  m.unit = std::move(unit);
  m.median = m.min = m.max = median;
  m.samples = {median};
  m.method = "test";
  return m;
}

BenchGpu H100(int index = 0) {
  BenchGpu g;
  g.index = index;
  g.name = "NVIDIA H100 80GB HBM3";
  g.pci_bus_id = "0000:1b:00.0";
  g.cc_major = 9;
  g.sm_count = 132;
  g.sm_clock_mhz = 1980;
  g.mem_clock_mhz = 2619;
  g.memory_bus_bits = 5120;
  g.numa_node = Reading<int>::Of(0);
  g.pcie_gen_idle = Reading<int>::Of(1);
  g.pcie_gen_loaded = Reading<int>::Of(5);
  g.pcie_gen_max = Reading<int>::Of(5);
  g.pcie_width = Reading<int>::Of(16);
  g.pcie_width_max = Reading<int>::Of(16);
  return g;
}

BenchRun Healthy() {
  BenchRun r;
  r.mode = "quick";
  r.library = "libcuda.so.1";
  r.driver_version = 12040;
  r.gpus = {H100()};
  r.measurements = {M("h2d_pinned", 53, "GB/s"),        M("d2h_pinned", 54, "GB/s"),
                    M("h2d_pageable", 40, "GB/s"),      M("d2h_pageable", 38, "GB/s"),
                    M("bidir_pinned", 95, "GB/s"),      M("d2d_sm_copy", 2950, "GB/s"),
                    M("d2d_copy_engine", 1400, "GB/s"), M("fp32_fma", 60, "TFLOP/s"),
                    M("bf16_tensor", 800, "TFLOP/s"),   M("launch_rate", 300000, "launches/s"),
                    M("launch_latency", 6.5, "us")};
  return r;
}

const Finding* Find(const BenchJudgement& j, const std::string& id, Severity s) {
  for (const Finding& f : j.findings) {
    if (f.id == id && f.severity == s) return &f;
  }
  return nullptr;
}

TEST(BenchExpectationsTest, Theory) {
  EXPECT_NEAR(PcieTheoreticalGbps(4, 16), 31.5, 0.1);
  EXPECT_NEAR(PcieTheoreticalGbps(5, 16), 63.0, 0.1);
  EXPECT_NEAR(PcieTheoreticalGbps(2, 16), 8.0, 0.01);  // 8b/10b
  EXPECT_EQ(PcieTheoreticalGbps(0, 16), 0);
  EXPECT_EQ(PcieTheoreticalGbps(7, 16), 0);
  EXPECT_NEAR(MemoryTheoreticalGbps(2619, 5120), 3352, 1);
  EXPECT_NEAR(Fp32TheoreticalTflops(H100()), 66.9, 0.1);
  EXPECT_EQ(Fp32LanesPerSm(7, 0), 64);
  EXPECT_EQ(Fp32LanesPerSm(8, 6), 128);
  EXPECT_EQ(Fp32LanesPerSm(3, 0), 0);
}

TEST(BenchExpectationsTest, ModelTableMatchesMostSpecific) {
  ASSERT_NE(FindGpuModel("NVIDIA H100 80GB HBM3"), nullptr);
  EXPECT_EQ(FindGpuModel("NVIDIA H100 80GB HBM3")->key, "H100 SXM");
  EXPECT_EQ(FindGpuModel("NVIDIA H100 PCIe")->key, "H100 PCIe");
  EXPECT_EQ(FindGpuModel("NVIDIA A100-SXM4-40GB")->key, "A100 SXM");
  EXPECT_EQ(FindGpuModel("NVIDIA A100-PCIE-40GB")->key, "A100 PCIe");
  EXPECT_EQ(FindGpuModel("NVIDIA A10")->key, "A10");
  EXPECT_EQ(FindGpuModel("NVIDIA L40S")->key, "L40S");
  EXPECT_EQ(FindGpuModel("NVIDIA L4")->key, "L4");
  EXPECT_EQ(FindGpuModel("Tesla T4")->key, "T4");
  EXPECT_EQ(FindGpuModel("Tesla V100-SXM2-32GB")->key, "V100 SXM2");
  EXPECT_EQ(FindGpuModel("NVIDIA GeForce RTX 4090"), nullptr);
  EXPECT_EQ(FindGpuModel(""), nullptr);
}

TEST(BenchExpectationsTest, CopyExpectationFromTableOrLink) {
  BenchGpu g = H100();
  EXPECT_DOUBLE_EQ(ExpectedFor(g, "h2d_pinned").value, 52);  // AzNHC
  g.name = "Some Future GPU";
  EXPECT_NEAR(ExpectedFor(g, "h2d_pinned").value, 63.0 * 0.85, 0.1);
  g.pcie_gen_max = Reading<int>::Unsupported("vm");
  EXPECT_EQ(ExpectedFor(g, "h2d_pinned").value, 0);
  EXPECT_EQ(ExpectedFor(g, "launch_latency").value, 0);
}

TEST(BenchRulesTest, HealthyRunAllOk) {
  BenchJudgement j = JudgeBench(Healthy(), Policy{}, nullptr);
  for (const Finding& f : j.findings) {
    EXPECT_EQ(f.severity, Severity::kOk) << f.id << ": " << f.summary;
  }
  EXPECT_NE(Find(j, "bench.driver", Severity::kOk), nullptr);
  EXPECT_NE(Find(j, "bench.pcie_under_load", Severity::kOk), nullptr);
  EXPECT_NE(Find(j, "bench.pcie_under_load", Severity::kOk)->summary.find("Gen1 at idle"),
            std::string::npos);
  EXPECT_FALSE(j.expectations.empty());
}

TEST(BenchRulesTest, NarrowLinkCorrelated) {
  BenchRun r = Healthy();
  r.gpus[0].pcie_width = Reading<int>::Of(8);
  r.measurements[0].median = 23.5;
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* f = Find(j, "bench.copy_bandwidth", Severity::kFail);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("H2D pinned 23.5 GB/s = 45 % of the 52.0 GB/s expected"),
            std::string::npos)
      << f->summary;
  EXPECT_NE(f->summary.find("x8 of x16 (see pcie.link_width_reduced)"), std::string::npos);
}

TEST(BenchRulesTest, GenUnderLoadFails) {
  BenchRun r = Healthy();
  r.gpus[0].pcie_gen_loaded = Reading<int>::Of(3);
  r.measurements[0].median = 12;
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  EXPECT_NE(Find(j, "bench.pcie_under_load", Severity::kFail), nullptr);
  const Finding* f = Find(j, "bench.copy_bandwidth", Severity::kFail);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("Gen3 under load"), std::string::npos) << f->summary;
  r.gpus[0].pcie_gen_loaded = Reading<int>::Error("nvmlDeviceGetCurrPcieLinkGeneration: timeout");
  EXPECT_NE(Find(JudgeBench(r, Policy{}, nullptr), "bench.pcie_under_load", Severity::kUnknown),
            nullptr);
  r.gpus[0].pcie_gen_loaded = Reading<int>::Unsupported("vm");
  j = JudgeBench(r, Policy{}, nullptr);
  for (const Finding& f : j.findings) EXPECT_NE(f.id, "bench.pcie_under_load");
}

TEST(BenchRulesTest, PageableAndNuma) {
  BenchRun r = Healthy();
  r.measurements[2].median = 20;  // 38 % of 53
  BenchMeasurement remote = M("h2d_pinned_remote", 30, "GB/s");
  remote.numa_node = 1;
  r.measurements.push_back(remote);
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* p = Find(j, "bench.pageable_copies", Severity::kWarn);
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p->summary.find("H2D pageable reaches 38 % of pinned"), std::string::npos)
      << p->summary;
  EXPECT_NE(p->summary.find("pin the loader's buffers"), std::string::npos);
  const Finding* n = Find(j, "bench.numa_penalty", Severity::kWarn);
  ASSERT_NE(n, nullptr);
  EXPECT_NE(n->summary.find("43 % slower"), std::string::npos) << n->summary;
}

TEST(BenchRulesTest, PowerCappedComputeAndMemory) {
  BenchRun r = Healthy();
  r.measurements[5].median = 1500;  // d2d_sm_copy
  r.measurements[7].median = 30;    // fp32_fma
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  EXPECT_NE(Find(j, "bench.memory_bandwidth", Severity::kFail), nullptr);
  const Finding* f = Find(j, "bench.compute", Severity::kFail);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("FP32 FMA 30.0 TFLOP/s = 45 %"), std::string::npos) << f->summary;
}

TEST(BenchRulesTest, SkippedIsInfoNeverZero) {
  BenchRun r = Healthy();
  r.measurements[8].skipped = "libcublasLt.so.* not found";
  r.measurements[8].median = 0;
  BenchMeasurement nccl = M("nccl_allreduce_busbw", 0, "GB/s", -1);
  nccl.skipped = "libnccl.so.2 not found";
  r.measurements.push_back(nccl);
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* f = Find(j, "bench.compute", Severity::kInfo);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->summary, "BF16 tensor not measured: libcublasLt.so.* not found");
  EXPECT_NE(Find(j, "bench.nccl", Severity::kInfo), nullptr);
  EXPECT_EQ(Find(j, "bench.compute", Severity::kFail), nullptr);
}

TEST(BenchRulesTest, SlowLaunches) {
  BenchRun r = Healthy();
  r.measurements[10].median = 45;
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* f = Find(j, "bench.launch_overhead", Severity::kWarn);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("45.0 µs (limit 20 µs)"), std::string::npos) << f->summary;
}

TEST(BenchRulesTest, P2pUnsupportedAndSlow) {
  BenchRun r = Healthy();
  r.gpus.push_back(H100(1));
  BenchMeasurement slow = M("p2p_bandwidth", 10, "GB/s", 0, 1);
  BenchMeasurement unsupported = M("p2p_bandwidth", 0, "GB/s", 1, 0);
  unsupported.skipped = "cuDeviceCanAccessPeer: 0";
  r.measurements.push_back(slow);
  r.measurements.push_back(unsupported);
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* w = Find(j, "bench.p2p_bandwidth", Severity::kWarn);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->subject, "gpu1 -> gpu0");
  const Finding* f = Find(j, "bench.p2p_bandwidth", Severity::kFail);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("P2P 10.0 GB/s = 19 % of the 52.0 GB/s expected"), std::string::npos)
      << f->summary;
}

TEST(BenchRulesTest, DriverStates) {
  BenchRun r;
  r.state = BenchState::kDriverMissing;
  r.detail = "libcuda.so.1: cannot open shared object file";
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  ASSERT_EQ(j.findings.size(), 1u);
  EXPECT_EQ(j.findings[0].severity, Severity::kUnknown);
  EXPECT_NE(j.findings[0].summary.find("cannot open"), std::string::npos);
  r.state = BenchState::kNoDevice;
  EXPECT_EQ(JudgeBench(r, Policy{}, nullptr).findings[0].severity, Severity::kInfo);
  r.state = BenchState::kFailed;
  EXPECT_EQ(JudgeBench(r, Policy{}, nullptr).findings[0].severity, Severity::kFail);
}

TEST(BenchRulesTest, Regression) {
  BenchRun base = Healthy();
  BenchRun now = Healthy();
  now.measurements[0].median = 40;    // h2d 53 -> 40: -25 %
  now.measurements[10].median = 9;    // launch latency 6.5 -> 9 us: worse
  now.measurements[7].median = 66;    // fp32 60 -> 66: +10 %, not above the limit
  now.measurements[5].median = 3300;  // d2d 2950 -> 3300: +12 %, improvement
  BenchJudgement j = JudgeBench(now, Policy{}, &base.measurements);
  int warns = 0;
  for (const Finding& f : j.findings) {
    if (f.id == "bench.regression" && f.severity == Severity::kWarn) ++warns;
  }
  EXPECT_EQ(warns, 2);
  const Finding* ok = Find(j, "bench.regression", Severity::kOk);
  ASSERT_NE(ok, nullptr);
  bool improved = false;
  for (const Evidence& e : ok->evidence) improved |= e.name == "d2d_sm_copy@gpu0";
  EXPECT_TRUE(improved);
}

TEST(BenchRulesTest, PolicyMinimumsSkipAndOverrides) {
  auto p = ParsePolicy(R"(
[bench]
min_fraction_of_expected = 0.9
launch_latency_max_us = 5
[bench.minimums]
h2d_pinned = 55
[checks]
skip = ["bench.pageable_copies"]
[severity]
"bench.launch_overhead" = "fail"
)",
                       "fleet.toml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  BenchJudgement j = JudgeBench(Healthy(), *p, nullptr);
  const Finding* f = Find(j, "bench.copy_bandwidth", Severity::kFail);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("below the policy minimum 55.0 GB/s"), std::string::npos);
  EXPECT_NE(Find(j, "bench.launch_overhead", Severity::kFail), nullptr);
  for (const Finding& x : j.findings) EXPECT_NE(x.id, "bench.pageable_copies");
}

TEST(BenchPolicyTest, Errors) {
  auto bad_key = ParsePolicy("[bench]\nmin_fraction = 0.5\n", "p.toml");
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.status().message().find("p.toml:2:"), std::string::npos);
  auto bad_id = ParsePolicy("[bench.minimums]\nlaunch_latency = 3\n", "p.toml");
  ASSERT_FALSE(bad_id.ok());
  EXPECT_NE(bad_id.status().message().find("launch_latency"), std::string::npos);
  EXPECT_FALSE(ParsePolicy("[bench]\nregression_max_drop = 2\n", "p.toml").ok());
  EXPECT_FALSE(ParsePolicy("[bench]\nminimums = 3\n", "p.toml").ok());
}

}  // namespace
}  // namespace gpuvet
