// Tests for CheckEcc: ECC mode and pending changes, volatile and lifetime error counters, page
// retirement and row remapping, with unsupported (consumer / pre-Ampere) and unreadable values.
#include <gtest/gtest.h>

#include "rules/rules.h"
#include "testing/findings.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

using test::CountFindings;
using test::OnlyFinding;

// gpu2, a healthy Ampere-or-newer GPU: ECC on, no errors, row remapping, no page retirement
// (tests/testing/gpu_builders.h).
GpuState HealthyGpu() { return test::HealthyGpu(2, "0000:3d:00.0"); }

// A pre-Ampere GPU: page retirement instead of row remapping.
GpuState HealthyVolta() {
  GpuState g = HealthyGpu();
  g.retired_pages_sbe = Reading<int>::Of(0);
  g.retired_pages_dbe = Reading<int>::Of(0);
  g.retired_pages_pending = Reading<bool>::Of(false);
  g.remapped_rows_correctable = Reading<int>::Unsupported("pre-Ampere");
  g.remapped_rows_uncorrectable = Reading<int>::Unsupported("pre-Ampere");
  g.remap_pending = Reading<bool>::Unsupported("pre-Ampere");
  g.remap_failure = Reading<bool>::Unsupported("pre-Ampere");
  return g;
}

std::vector<Finding> Evaluate(const GpuState& gpu, const Policy& policy = Policy{}) {
  return test::RunCheckOnGpu(CheckEcc, gpu, policy);
}

TEST(EccRules, HealthyGpuIsOkAndSkipsPageRetirement) {
  auto fs = Evaluate(HealthyGpu());
  for (const char* id :
       {"ecc.mode", "ecc.volatile_dbe", "ecc.volatile_sbe", "ecc.aggregate_dbe", "ecc.row_remap"}) {
    EXPECT_EQ(OnlyFinding(fs, id).severity, Severity::kOk) << id;
  }
  EXPECT_EQ(CountFindings(fs, "ecc.retired_pages"), 0);
}

TEST(EccRules, HealthyVoltaIsOkAndSkipsRowRemap) {
  auto fs = Evaluate(HealthyVolta());
  EXPECT_EQ(OnlyFinding(fs, "ecc.retired_pages").severity, Severity::kOk);
  EXPECT_EQ(CountFindings(fs, "ecc.row_remap"), 0);
}

TEST(EccRules, ModeBranches) {
  GpuState g = HealthyGpu();
  g.ecc_enabled = Reading<bool>::Of(false);
  g.ecc_pending_enabled = Reading<bool>::Of(false);
  Finding off = OnlyFinding(Evaluate(g), "ecc.mode");
  EXPECT_EQ(off.severity, Severity::kWarn);
  EXPECT_EQ(off.summary, "ECC disabled on a GPU that supports it");

  g.ecc_pending_enabled = Reading<bool>::Of(true);
  Finding enabling = OnlyFinding(Evaluate(g), "ecc.mode");
  EXPECT_EQ(enabling.severity, Severity::kWarn);
  EXPECT_NE(enabling.summary.find("pending until GPU reset"), std::string::npos);

  g.ecc_enabled = Reading<bool>::Of(true);
  g.ecc_pending_enabled = Reading<bool>::Of(false);
  Finding disabling = OnlyFinding(Evaluate(g), "ecc.mode");
  EXPECT_EQ(disabling.severity, Severity::kInfo);
  EXPECT_NE(disabling.summary.find("after GPU reset"), std::string::npos);
}

TEST(EccRules, ConsumerGpuWithoutEccIsNotApplicable) {
  GpuState g;
  g.ecc_enabled = Reading<bool>::Unsupported("NVML_ERROR_NOT_SUPPORTED");
  g.ecc_uncorrected_volatile = Reading<uint64_t>::Unsupported("NVML_ERROR_NOT_SUPPORTED");
  auto fs = Evaluate(g);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "ecc.mode");
  EXPECT_EQ(fs[0].severity, Severity::kOk);
  EXPECT_NE(fs[0].summary.find("not supported"), std::string::npos);
}

TEST(EccRules, UnreadableValuesAreUnknown) {
  GpuState g = HealthyGpu();
  g.ecc_enabled = Reading<bool>::Error("nvmlDeviceGetEccMode: timed out");
  g.ecc_uncorrected_volatile = Reading<uint64_t>::Error("timed out");
  g.ecc_corrected_volatile = Reading<uint64_t>::Error("timed out");
  g.ecc_uncorrected_aggregate = Reading<uint64_t>::Error("timed out");
  g.remap_pending = Reading<bool>::Error("nvmlDeviceGetRemappedRows: 999");
  auto fs = Evaluate(g);
  for (const char* id :
       {"ecc.mode", "ecc.volatile_dbe", "ecc.volatile_sbe", "ecc.aggregate_dbe", "ecc.row_remap"}) {
    EXPECT_EQ(OnlyFinding(fs, id).severity, Severity::kUnknown) << id;
  }
  EXPECT_NE(OnlyFinding(fs, "ecc.row_remap")
                .summary.find("remap_pending: nvmlDeviceGetRemappedRows: 999"),
            std::string::npos);

  GpuState v = HealthyVolta();
  v.retired_pages_pending = Reading<bool>::Error("timed out");
  EXPECT_EQ(OnlyFinding(Evaluate(v), "ecc.retired_pages").severity, Severity::kUnknown);
}

TEST(EccRules, VolatileCounters) {
  GpuState g = HealthyGpu();
  g.ecc_uncorrected_volatile = Reading<uint64_t>::Of(1);
  g.ecc_corrected_volatile = Reading<uint64_t>::Of(10000);
  auto fs = Evaluate(g);
  EXPECT_EQ(OnlyFinding(fs, "ecc.volatile_dbe").severity, Severity::kFail);
  EXPECT_EQ(OnlyFinding(fs, "ecc.volatile_sbe").severity, Severity::kWarn);
  g.ecc_corrected_volatile = Reading<uint64_t>::Of(9999);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "ecc.volatile_sbe").severity, Severity::kOk);
}

TEST(EccRules, LifetimeErrorsAreInfoWhenNoneSinceResetElseWarn) {
  GpuState g = HealthyGpu();
  g.ecc_uncorrected_aggregate = Reading<uint64_t>::Of(3);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "ecc.aggregate_dbe").severity, Severity::kInfo);
  g.ecc_uncorrected_volatile = Reading<uint64_t>::Of(1);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "ecc.aggregate_dbe").severity, Severity::kWarn);
  g.ecc_uncorrected_volatile = Reading<uint64_t>::Error("timed out");
  Finding f = OnlyFinding(Evaluate(g), "ecc.aggregate_dbe");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_NE(f.summary.find("unknown"), std::string::npos);
}

TEST(EccRules, RetiredPagesBranches) {
  GpuState g = HealthyVolta();
  g.retired_pages_sbe = Reading<int>::Of(2);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "ecc.retired_pages").severity, Severity::kInfo);
  g.retired_pages_pending = Reading<bool>::Of(true);
  Finding pending = OnlyFinding(Evaluate(g), "ecc.retired_pages");
  EXPECT_EQ(pending.severity, Severity::kFail);
  EXPECT_NE(pending.summary.find("reset the GPU"), std::string::npos);
  g.retired_pages_pending = Reading<bool>::Of(false);
  g.retired_pages_dbe = Reading<int>::Of(61);  // 2 + 61 = 63, the DCGM limit
  EXPECT_EQ(OnlyFinding(Evaluate(g), "ecc.retired_pages").severity, Severity::kFail);
}

TEST(EccRules, RowRemapBranches) {
  GpuState g = HealthyGpu();
  g.remapped_rows_correctable = Reading<int>::Of(4);
  Finding some = OnlyFinding(Evaluate(g), "ecc.row_remap");
  EXPECT_EQ(some.severity, Severity::kInfo);
  EXPECT_EQ(some.summary, "4 rows remapped (4 correctable, 0 uncorrectable)");

  g.remap_pending = Reading<bool>::Of(true);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "ecc.row_remap").severity, Severity::kFail);

  g.remap_pending = Reading<bool>::Of(false);
  g.remapped_rows_uncorrectable = Reading<int>::Of(512);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "ecc.row_remap").severity, Severity::kFail);

  g.remapped_rows_uncorrectable = Reading<int>::Of(0);
  g.remap_failure = Reading<bool>::Of(true);
  Finding failed = OnlyFinding(Evaluate(g), "ecc.row_remap");
  EXPECT_EQ(failed.severity, Severity::kFail);
  EXPECT_NE(failed.summary.find("no spare rows"), std::string::npos);
}

// With MIG enabled the driver reports GPU-level ECC counts (unprivileged) and remapped rows as
// N/A: hidden, so unknown with the way to read them, never silently skipped.
TEST(EccRules, FiguresHiddenByMigAreUnknown) {
  GpuState g = HealthyGpu();
  g.mig_enabled = Reading<bool>::Of(true);
  const auto na = [] { return std::string("nvidia-smi reports N/A"); };
  g.remapped_rows_correctable = Reading<int>::Unsupported(na());
  g.remapped_rows_uncorrectable = Reading<int>::Unsupported(na());
  g.remap_pending = Reading<bool>::Unsupported(na());
  g.remap_failure = Reading<bool>::Unsupported(na());
  Finding rows = OnlyFinding(Evaluate(g), "ecc.row_remap");
  EXPECT_EQ(rows.severity, Severity::kUnknown);
  EXPECT_EQ(rows.summary,
            "remapped rows not reported while MIG is enabled (nvidia-smi reports N/A)");
  EXPECT_NE(rows.decision.find("Xid 63/64"), std::string::npos);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "ecc.volatile_dbe").severity, Severity::kOk);

  g.ecc_uncorrected_volatile = Reading<uint64_t>::Unsupported(na());
  g.ecc_corrected_volatile = Reading<uint64_t>::Unsupported(na());
  g.ecc_uncorrected_aggregate = Reading<uint64_t>::Unsupported(na());
  auto fs = Evaluate(g);
  for (const char* id : {"ecc.volatile_dbe", "ecc.volatile_sbe", "ecc.aggregate_dbe"}) {
    Finding f = OnlyFinding(fs, id);
    EXPECT_EQ(f.severity, Severity::kUnknown) << id;
    EXPECT_NE(f.decision.find("as root"), std::string::npos) << id;
  }
  // Without MIG the same N/A means "not supported here": skipped as before.
  g.mig_enabled = Reading<bool>::Of(false);
  fs = Evaluate(g);
  EXPECT_EQ(CountFindings(fs, "ecc.row_remap"), 0);
  EXPECT_EQ(CountFindings(fs, "ecc.volatile_dbe"), 0);
  // ECC off: its counters are N/A for that reason, not MIG's.
  g.mig_enabled = Reading<bool>::Of(true);
  g.ecc_enabled = Reading<bool>::Of(false);
  EXPECT_EQ(CountFindings(Evaluate(g), "ecc.volatile_dbe"), 0);
}

TEST(EccRules, PolicyLimitsApply) {
  Policy p;
  p.thresholds.remapped_rows_uncorrectable_fail = 2;
  GpuState g = HealthyGpu();
  g.remapped_rows_uncorrectable = Reading<int>::Of(2);
  EXPECT_EQ(OnlyFinding(Evaluate(g, p), "ecc.row_remap").severity, Severity::kFail);
}

TEST(EccRules, LostGpuIsSkipped) {
  GpuState g = HealthyGpu();
  g.lost = true;
  EXPECT_TRUE(Evaluate(g).empty());
}

}  // namespace
}  // namespace gpuvet
