#include "rules/bench_rules.h"

#include <gtest/gtest.h>

#include "core/hw/gpu_specs.h"
#include "core/hw/pcie.h"
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
  EXPECT_NEAR(PcieLinkGbps(4, 16), 31.5, 0.1);
  EXPECT_NEAR(PcieLinkGbps(5, 16), 63.0, 0.1);
  EXPECT_NEAR(PcieLinkGbps(2, 16), 8.0, 0.01);  // 8b/10b
  EXPECT_EQ(PcieLinkGbps(0, 16), 0);
  EXPECT_EQ(PcieLinkGbps(7, 16), 0);
  EXPECT_NEAR(MemoryTheoreticalGbps(2619, 5120), 3352, 1);
  EXPECT_NEAR(Fp32TheoreticalTflops(H100()), 66.9, 0.1);
  EXPECT_EQ(Fp32LanesPerSm(7, 0), 64);
  EXPECT_EQ(Fp32LanesPerSm(8, 6), 128);
  EXPECT_EQ(Fp32LanesPerSm(3, 0), 0);
}

TEST(BenchExpectationsTest, ModelTableMatchesMostSpecific) {
  ASSERT_NE(FindGpuSpec("NVIDIA H100 80GB HBM3"), nullptr);
  EXPECT_EQ(FindGpuSpec("NVIDIA H100 80GB HBM3")->bench_key, "H100 SXM");
  EXPECT_EQ(FindGpuSpec("NVIDIA H100 PCIe")->bench_key, "H100 PCIe");
  EXPECT_EQ(FindGpuSpec("NVIDIA A100-SXM4-40GB")->bench_key, "A100 SXM");
  EXPECT_EQ(FindGpuSpec("NVIDIA A100-PCIE-40GB")->bench_key, "A100 PCIe");
  EXPECT_EQ(FindGpuSpec("NVIDIA A10")->bench_key, "A10");
  EXPECT_EQ(FindGpuSpec("NVIDIA L40S")->bench_key, "L40S");
  EXPECT_EQ(FindGpuSpec("NVIDIA L4")->bench_key, "L4");
  EXPECT_EQ(FindGpuSpec("Tesla T4")->bench_key, "T4");
  EXPECT_EQ(FindGpuSpec("Tesla V100-SXM2-32GB")->bench_key, "V100 SXM2");
  EXPECT_EQ(FindGpuSpec("NVIDIA GeForce RTX 4090"), nullptr);
  EXPECT_EQ(FindGpuSpec(""), nullptr);
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
  r.measurements[8].outcome = BenchOutcome::kUnavailable;
  r.measurements[8].median = 0;
  BenchMeasurement nccl = M("nccl_allreduce_busbw", 0, "GB/s", -1);
  nccl.skipped = "libnccl.so.2 not found";
  nccl.outcome = BenchOutcome::kUnavailable;
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
  unsupported.outcome = BenchOutcome::kUnavailable;
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
  // No device on a node sent to bench is a question (where did the GPUs go?), not "nothing to
  // fix here" (issue 17); with no driver it makes the run NOTHING MEASURED.
  r.state = BenchState::kNoDevice;
  EXPECT_EQ(JudgeBench(r, Policy{}, nullptr).findings[0].severity, Severity::kUnknown);
  EXPECT_TRUE(NothingMeasured(r));
  r.state = BenchState::kDriverMissing;
  EXPECT_TRUE(NothingMeasured(r));
  r.state = BenchState::kFailed;
  EXPECT_EQ(JudgeBench(r, Policy{}, nullptr).findings[0].severity, Severity::kFail);
  EXPECT_FALSE(NothingMeasured(r));  // a failed driver is a fail of its own
  EXPECT_FALSE(NothingMeasured(Healthy()));
}

TEST(BenchRulesTest, Regression) {
  BenchRun base = Healthy();
  BenchRun now = Healthy();
  now.measurements[0].median = 40;    // h2d 53 -> 40: -25 %
  now.measurements[10].median = 9;    // launch latency 6.5 -> 9 us: worse
  now.measurements[7].median = 66;    // fp32 60 -> 66: +10 %, not above the limit
  now.measurements[5].median = 3300;  // d2d 2950 -> 3300: +12 %, improvement
  BenchBaseline baseline{"quick", {}, base.measurements};
  BenchJudgement j = JudgeBench(now, Policy{}, &baseline);
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

BenchBaseline BaselineOf(const BenchRun& run) {
  BenchBaseline b{run.mode, {}, run.measurements};
  for (const BenchGpu& g : run.gpus) b.bus_ids.emplace_back(g.index, g.pci_bus_id);
  return b;
}

std::vector<const Finding*> All(const BenchJudgement& j, const std::string& id, Severity s) {
  std::vector<const Finding*> out;
  for (const Finding& f : j.findings) {
    if (f.id == id && f.severity == s) out.push_back(&f);
  }
  return out;
}

TEST(BenchRulesTest, LatencyRegressionIsAFactorNotAPercentage) {
  BenchRun base = Healthy();
  base.measurements[10].median = 4;
  BenchRun now = Healthy();
  now.measurements[10].median = 45;
  const BenchBaseline baseline = BaselineOf(base);
  BenchJudgement j = JudgeBench(now, Policy{}, &baseline);
  auto warns = All(j, "bench.regression", Severity::kWarn);
  ASSERT_EQ(warns.size(), 1u);
  EXPECT_NE(warns[0]->summary.find("launch latency 45.0 us is 11.2× slower than the baseline's "
                                   "4.0 us"),
            std::string::npos)
      << warns[0]->summary;
}

TEST(BenchRulesTest, FigureFailedOrMissingSinceTheBaselineWarns) {
  BenchRun base = Healthy();
  base.gpus.push_back(H100(1));
  base.gpus[1].pci_bus_id = "0000:43:00.0";
  base.measurements.push_back(M("h2d_pinned", 53, "GB/s", 1));
  BenchRun now = Healthy();  // gpu1 is gone
  now.measurements[5].outcome = BenchOutcome::kFailed;
  now.measurements[5].skipped = "cuLaunchKernel: launch failed (CUDA_ERROR_LAUNCH_FAILED = 719)";
  const BenchBaseline baseline = BaselineOf(base);
  BenchJudgement j = JudgeBench(now, Policy{}, &baseline);
  auto warns = All(j, "bench.regression", Severity::kWarn);
  ASSERT_EQ(warns.size(), 2u);
  std::string all;
  for (const Finding* f : warns) all += f->subject + ": " + f->summary + "\n";
  EXPECT_NE(all.find("baseline gpu1: 1 figure(s) the baseline measured were not measured now: "
                     "h2d_pinned (53.0 GB/s): GPU not in this run"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("d2d_sm_copy (2950 GB/s): cuLaunchKernel: launch failed"), std::string::npos)
      << all;
  EXPECT_NE(Find(j, "bench.memory_bandwidth", Severity::kFail), nullptr);  // the failure itself
}

TEST(BenchRulesTest, BaselineMatchedByBusIdWhenOrdinalsMoved) {
  BenchRun base = Healthy();  // gpu0 = 0000:1b:00.0 at 53 GB/s
  BenchRun now = Healthy();
  now.gpus[0].index = 1;  // the same GPU is ordinal 1 now; ordinal 0 is another one
  for (BenchMeasurement& m : now.measurements) m.gpu = 1;
  now.measurements[0].median = 40;
  BenchGpu other = H100(0);
  other.pci_bus_id = "0000:43:00.0";
  now.gpus.push_back(other);
  now.measurements.push_back(M("h2d_pinned", 53, "GB/s", 0));
  BenchBaseline baseline = BaselineOf(base);
  baseline.bus_ids[0].second = "0000:1B:00.0";  // the driver's upper case
  BenchJudgement j = JudgeBench(now, Policy{}, &baseline);
  auto warns = All(j, "bench.regression", Severity::kWarn);
  ASSERT_EQ(warns.size(), 1u);
  EXPECT_EQ(warns[0]->subject, "gpu1 (0000:1b:00.0)");
  EXPECT_NE(warns[0]->summary.find("40.0 GB/s is 25 % below the baseline's 53.0 GB/s"),
            std::string::npos)
      << warns[0]->summary;
  const Finding* ok = Find(j, "bench.regression", Severity::kOk);
  ASSERT_NE(ok, nullptr);
  bool by_bus = false;
  for (const Evidence& e : ok->evidence) by_bus |= e.value == "PCI bus id";
  EXPECT_TRUE(by_bus);
}

TEST(BenchRulesTest, ModeMismatchWithTheBaselineWarns) {
  BenchRun base = Healthy();
  base.mode = "full";
  const BenchBaseline baseline = BaselineOf(base);
  BenchJudgement j = JudgeBench(Healthy(), Policy{}, &baseline);
  auto warns = All(j, "bench.regression", Severity::kWarn);
  ASSERT_EQ(warns.size(), 1u);
  EXPECT_NE(warns[0]->summary.find("the baseline ran in full mode, this run in quick mode"),
            std::string::npos)
      << warns[0]->summary;
}

TEST(BenchRulesTest, FailedFigureIsAFailNamingTheStepAndError) {
  BenchRun r = Healthy();
  r.measurements[6].outcome = BenchOutcome::kFailed;  // d2d_copy_engine
  r.measurements[6].skipped =
      "cuMemcpyDtoDAsync_v2: uncorrectable ECC error (CUDA_ERROR_ECC_UNCORRECTABLE = 214)";
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* f = Find(j, "bench.memory_bandwidth", Severity::kFail);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("device copy (copy engine) failed: cuMemcpyDtoDAsync_v2"),
            std::string::npos)
      << f->summary;
  bool named = false;
  for (const Evidence& e : f->evidence) named |= e.value == "CUDA_ERROR_ECC_UNCORRECTABLE";
  EXPECT_TRUE(named);
  EXPECT_NE(f->decision.find("Drain the node"), std::string::npos) << f->decision;
  EXPECT_EQ(WorstSeverity(j.findings), Severity::kFail);
}

TEST(BenchRulesTest, DataCorruptionAndJitFailuresHaveTheirOwnDecision) {
  BenchRun r = Healthy();
  r.measurements[0].outcome = BenchOutcome::kFailed;
  r.measurements[0].skipped =
      "data corruption: byte 17 of the first 4 KiB differs after "
      "cuMemcpyHtoDAsync_v2";
  r.measurements[7].outcome = BenchOutcome::kFailed;
  r.measurements[7].skipped =
      "not run: PTX kernels could not be loaded: cuModuleLoadDataEx (PTX "
      "JIT): (CUDA_ERROR_INVALID_PTX = 218)";
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* copy = Find(j, "bench.copy_bandwidth", Severity::kFail);
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy->decision.find("wrong data"), std::string::npos) << copy->decision;
  const Finding* jit = Find(j, "bench.compute", Severity::kFail);
  ASSERT_NE(jit, nullptr);
  EXPECT_NE(jit->decision.find("update the driver"), std::string::npos) << jit->decision;
}

TEST(BenchRulesTest, LocalReasonIsUnknownAndAbandonedFiguresFoldIntoGpuError) {
  BenchRun r = Healthy();
  r.measurements[0].outcome = BenchOutcome::kIncomplete;
  r.measurements[0].skipped = "out of pinned host memory at 64 MiB and again at 32 MiB: …";
  r.gpus[0].failed = "during d2d_sm_copy: cuCtxSynchronize: (CUDA_ERROR_ILLEGAL_ADDRESS = 700)";
  for (size_t i = 7; i < r.measurements.size(); ++i) {
    r.measurements[i].outcome = BenchOutcome::kAbandoned;
    r.measurements[i].skipped = "not run: GPU 0 stopped working during d2d_sm_copy";
  }
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* local = Find(j, "bench.copy_bandwidth", Severity::kUnknown);
  ASSERT_NE(local, nullptr);
  EXPECT_NE(local->summary.find("out of pinned host memory"), std::string::npos);
  const Finding* gpu = Find(j, "bench.gpu_error", Severity::kFail);
  ASSERT_NE(gpu, nullptr);
  EXPECT_NE(gpu->summary.find("(4 later figures not measured)"), std::string::npos) << gpu->summary;
  for (const Finding& f : j.findings) {
    if (f.id == "bench.compute" || f.id == "bench.launch_overhead") {
      EXPECT_EQ(f.severity, Severity::kOk) << f.id << ": abandoned figures emit nothing";
    }
  }
}

TEST(BenchRulesTest, FailedLaunchRateIsReportedThoughOnlyEvidence) {
  BenchRun r = Healthy();
  r.measurements[9].outcome = BenchOutcome::kFailed;  // launch_rate
  r.measurements[9].skipped = "cuLaunchKernel(gpuvet_empty): (CUDA_ERROR_LAUNCH_FAILED = 719)";
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* f = Find(j, "bench.launch_overhead", Severity::kFail);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("launch rate failed"), std::string::npos) << f->summary;
  EXPECT_NE(Find(j, "bench.launch_overhead", Severity::kOk), nullptr);  // latency still judged
}

TEST(BenchRulesTest, TimedOutRunIsJudgedOnWhatItMeasured) {
  BenchRun r = Healthy();
  r.state = BenchState::kTimedOut;
  r.detail =
      "step 'GPU 0: d2d_copy_engine' had been running for 3.0 s, inside "
      "cuMemcpyDtoDAsync_v2 for 3.0 s, when the 3 s limit of the whole run ran out";
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* driver = Find(j, "bench.driver", Severity::kFail);
  ASSERT_NE(driver, nullptr);
  EXPECT_NE(driver->summary.find("inside cuMemcpyDtoDAsync_v2"), std::string::npos);
  EXPECT_NE(Find(j, "bench.copy_bandwidth", Severity::kOk), nullptr) << "earlier figures kept";
}

TEST(BenchRulesTest, PcieUnderLoadUnknownHasItsOwnWording) {
  BenchRun r = Healthy();
  r.gpus[0].pcie_gen_loaded = Reading<int>::Error("not read: the h2d_pinned copies did not run");
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  const Finding* f = Find(j, "bench.pcie_under_load", Severity::kUnknown);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->decision.find("reseat"), std::string::npos) << f->decision;
  EXPECT_NE(f->meaning.find("not a downgrade"), std::string::npos) << f->meaning;
}

TEST(BenchRulesTest, BidirectionalCopiesHaveAnExpectation) {
  BenchRun r = Healthy();
  r.measurements[4].median = 50;  // both directions at once: less than one way
  BenchJudgement j = JudgeBench(r, Policy{}, nullptr);
  bool judged = false;
  for (const BenchExpectation& e : j.expectations) {
    if (e.id == "bidir_pinned") {
      judged = true;
      EXPECT_NEAR(e.expected, 2 * 52 * 0.7, 0.01);
      EXPECT_NE(e.basis.find("nvbandwidth#53"), std::string::npos) << e.basis;
    }
  }
  EXPECT_TRUE(judged);
  const Finding* f = Find(j, "bench.copy_bandwidth", Severity::kFail);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("bidirectional pinned 50.0 GB/s"), std::string::npos) << f->summary;
}

TEST(BenchExpectationsTest, BlackwellAndH200Variants) {
  EXPECT_EQ(FindGpuSpec("NVIDIA B200")->bench_key, "B200");
  EXPECT_EQ(FindGpuSpec("NVIDIA H200 NVL")->bench_key, "H200 NVL");
  EXPECT_EQ(FindGpuSpec("NVIDIA H200")->bench_key, "H200");
  EXPECT_DOUBLE_EQ(FindGpuSpec("NVIDIA H200 NVL")->bf16_tflops, 835);
  EXPECT_DOUBLE_EQ(FindGpuSpec("NVIDIA B200")->bench_memory_gbps, 7700);
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
