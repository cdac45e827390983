// Tests for CheckGpuSettings: persistence mode, MIG mode and pending changes, NVLink links down
// and error counters, with unsupported and unreadable values and lost GPUs.
#include <gtest/gtest.h>

#include "rules/rules.h"
#include "testing/findings.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

using test::CountFindings;
using test::OnlyFinding;

NvLinkState Link(int n, bool active = true, uint64_t crc = 0, uint64_t recovery = 0) {
  NvLinkState l = test::HealthyNvLink(n);
  l.active = active;
  l.crc_flit_errors = Reading<uint64_t>::Of(crc);
  l.recovery_errors = Reading<uint64_t>::Of(recovery);
  return l;
}

// gpu3, healthy with four NVLinks (tests/testing/gpu_builders.h).
GpuState HealthyGpu() { return test::HealthyGpu(3, "0000:3e:00.0"); }

std::vector<Finding> Evaluate(const GpuState& gpu, const Policy& policy = Policy{}) {
  return test::RunCheckOnGpu(CheckGpuSettings, gpu, policy);
}

TEST(GpuSettingsRules, HealthyGpuIsOk) {
  auto fs = Evaluate(HealthyGpu());
  ASSERT_EQ(fs.size(), 4u);
  for (const char* id :
       {"settings.persistence_mode", "mig.mode", "nvlink.link_down", "nvlink.errors"}) {
    Finding f = OnlyFinding(fs, id);
    EXPECT_EQ(f.severity, Severity::kOk) << id;
    EXPECT_EQ(f.subject, "gpu3 (0000:3e:00.0)");
  }
}

TEST(GpuSettingsRules, PersistenceBranches) {
  GpuState g = HealthyGpu();
  g.persistence_mode = Reading<bool>::Of(false);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "settings.persistence_mode").severity, Severity::kWarn);
  g.persistence_mode = Reading<bool>::Error("nvmlDeviceGetPersistenceMode: timed out");
  Finding f = OnlyFinding(Evaluate(g), "settings.persistence_mode");
  EXPECT_EQ(f.severity, Severity::kUnknown);
  EXPECT_NE(f.summary.find("timed out"), std::string::npos);
  g.persistence_mode = Reading<bool>::Unsupported("not supported");
  EXPECT_EQ(CountFindings(Evaluate(g), "settings.persistence_mode"), 0);
}

TEST(GpuSettingsRules, MigBranches) {
  GpuState g = HealthyGpu();
  g.mig_enabled = Reading<bool>::Of(true);
  g.mig_pending_enabled = Reading<bool>::Of(true);
  g.mig_instances = Reading<int>::Of(7);
  Finding on = OnlyFinding(Evaluate(g), "mig.mode");
  EXPECT_EQ(on.severity, Severity::kInfo);
  EXPECT_EQ(on.summary, "MIG enabled: 7 MIG device(s)");

  g.mig_pending_enabled = Reading<bool>::Of(false);
  Finding pending = OnlyFinding(Evaluate(g), "mig.mode");
  EXPECT_EQ(pending.severity, Severity::kWarn);
  EXPECT_EQ(pending.summary, "MIG enabled, disabling pending until GPU reset");

  g.mig_enabled = Reading<bool>::Error("nvmlDeviceGetMigMode: 999");
  EXPECT_EQ(OnlyFinding(Evaluate(g), "mig.mode").severity, Severity::kUnknown);
  g.mig_enabled = Reading<bool>::Unsupported("not supported");
  EXPECT_EQ(CountFindings(Evaluate(g), "mig.mode"), 0);
}

TEST(GpuSettingsRules, NoNvLinkMeansNoNvLinkFindings) {
  GpuState g = HealthyGpu();
  g.nvlinks.clear();
  auto fs = Evaluate(g);
  EXPECT_EQ(CountFindings(fs, "nvlink.link_down"), 0);
  EXPECT_EQ(CountFindings(fs, "nvlink.errors"), 0);
}

TEST(GpuSettingsRules, SomeLinksDownFailsAndListsThem) {
  GpuState g = HealthyGpu();
  g.nvlinks[1].active = false;
  g.nvlinks[3].active = false;
  Finding f = OnlyFinding(Evaluate(g), "nvlink.link_down");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(f.summary, "NVLink 2 of 4 links inactive: links 1,3");
}

TEST(GpuSettingsRules, AllLinksDownWarns) {
  GpuState g = HealthyGpu();
  for (NvLinkState& l : g.nvlinks) l.active = false;
  EXPECT_EQ(OnlyFinding(Evaluate(g), "nvlink.link_down").severity, Severity::kWarn);
}

TEST(GpuSettingsRules, LinkErrorsOverBudgetWarn) {
  GpuState g = HealthyGpu();
  g.nvlinks[2] = Link(2, true, /*crc=*/101);
  g.nvlinks[3] = Link(3, true, /*crc=*/0, /*recovery=*/2);
  Finding f = OnlyFinding(Evaluate(g), "nvlink.errors");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.summary, "NVLink errors over budget: link 2: 101 CRC; link 3: 2 replay+recovery");

  g.nvlinks[2] = Link(2, true, /*crc=*/100);  // at the budget: fine
  g.nvlinks[3] = Link(3, true, /*crc=*/0, /*recovery=*/1);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "nvlink.errors").severity, Severity::kOk);
}

TEST(GpuSettingsRules, LinkCountersUnreadableAreUnknownUnsupportedSkipped) {
  GpuState g = HealthyGpu();
  g.nvlinks[0].crc_data_errors = Reading<uint64_t>::Error("nvmlDeviceGetNvLinkErrorCounter: 999");
  Finding f = OnlyFinding(Evaluate(g), "nvlink.errors");
  EXPECT_EQ(f.severity, Severity::kUnknown);
  EXPECT_NE(f.summary.find("link 0 crc_data"), std::string::npos);

  for (NvLinkState& l : g.nvlinks) {
    l.crc_flit_errors = l.crc_data_errors = l.replay_errors = l.recovery_errors =
        Reading<uint64_t>::Unsupported("not supported");
  }
  EXPECT_EQ(CountFindings(Evaluate(g), "nvlink.errors"), 0);
}

// NVLink5 (Blackwell): the per-link error counter call is not supported, the counters come from
// field values. A failed recovery, malformed packets or buffer overruns are fatal (one is enough);
// errors corrected by retransmission and successful recoveries count toward the usual budgets;
// raw symbol errors are not judged.
NvLinkState Link5(int n) {
  NvLinkState l;
  l.link = n;
  l.active = true;
  l.from_field_values = true;
  l.crc_flit_errors = l.crc_data_errors = l.replay_errors = l.recovery_errors =
      Reading<uint64_t>::Unsupported("nvmlDeviceGetNvLinkErrorCounter: not supported");
  for (auto* r : {&l.recovery_failed_events, &l.malformed_packet_errors, &l.buffer_overrun_errors,
                  &l.recovery_successful_events, &l.effective_errors,
                  &l.local_link_integrity_errors, &l.rx_errors}) {
    *r = Reading<uint64_t>::Of(0);
  }
  l.symbol_errors = Reading<uint64_t>::Of(50000);  // pre-FEC: normal, never judged
  return l;
}

TEST(GpuSettingsRules, NvLink5FatalCountersFailNonFatalWarn) {
  GpuState g = HealthyGpu();
  for (int i = 0; i < 4; ++i) g.nvlinks[i] = Link5(i);
  Finding ok = OnlyFinding(Evaluate(g), "nvlink.errors");
  EXPECT_EQ(ok.severity, Severity::kOk);
  bool said_source = false;
  for (const Evidence& e : ok.evidence) said_source = said_source || e.name == "counters";
  EXPECT_TRUE(said_source) << "the evidence says the counters are field values";

  g.nvlinks[1].effective_errors = Reading<uint64_t>::Of(150);
  g.nvlinks[2].recovery_successful_events = Reading<uint64_t>::Of(2);
  Finding warn = OnlyFinding(Evaluate(g), "nvlink.errors");
  EXPECT_EQ(warn.severity, Severity::kWarn);
  EXPECT_EQ(warn.summary, "NVLink errors over budget: link 1: 150 CRC; link 2: 2 replay+recovery");

  g.nvlinks[3].recovery_failed_events = Reading<uint64_t>::Of(1);
  g.nvlinks[3].malformed_packet_errors = Reading<uint64_t>::Of(4);
  Finding fatal = OnlyFinding(Evaluate(g), "nvlink.errors");
  EXPECT_EQ(fatal.severity, Severity::kFail);
  EXPECT_EQ(fatal.summary,
            "fatal NVLink errors: link 3: 1 failed link recoveries, 4 malformed packets; over "
            "budget: link 1: 150 CRC; link 2: 2 replay+recovery");
  EXPECT_NE(fatal.decision.find("Drain"), std::string::npos);
}

TEST(GpuSettingsRules, NvLink5UnreadableCounterIsUnknown) {
  GpuState g = HealthyGpu();
  for (int i = 0; i < 4; ++i) g.nvlinks[i] = Link5(i);
  g.nvlinks[2].buffer_overrun_errors = Reading<uint64_t>::Error(
      "nvmlDeviceGetFieldValues(NVML_FI_DEV_NVLINK_COUNT_BUFFER_OVERRUN_ERRORS): UNKNOWN");
  Finding f = OnlyFinding(Evaluate(g), "nvlink.errors");
  EXPECT_EQ(f.severity, Severity::kUnknown);
  EXPECT_NE(f.summary.find("link 2 buffer_overruns"), std::string::npos) << f.summary;
}

TEST(GpuSettingsRules, LostGpuIsSkipped) {
  GpuState g = HealthyGpu();
  g.lost = true;
  EXPECT_TRUE(Evaluate(g).empty());
}

}  // namespace
}  // namespace gpuvet
