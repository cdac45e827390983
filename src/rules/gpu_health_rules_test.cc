#include <gtest/gtest.h>

#include "rules/rules.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

const Finding* Find(const std::vector<Finding>& fs, std::string_view id) {
  for (const Finding& f : fs) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

std::vector<Finding> Health(const GpuState& gpu) {
  return test::RunCheckOnGpu(CheckGpuHealth, gpu);
}

TEST(GpuHealthRules, FieldsADriverDoesNotReportAreSkipped) {
  EXPECT_TRUE(Health(test::HealthyGpu(0, "0000:1b:00.0")).empty());
}

TEST(GpuHealthRules, RecoveryActionIsTheDecision) {
  GpuState g = test::HealthyGpu(0, "0000:1b:00.0");
  g.recovery_action = Reading<std::string>::Of("None");
  EXPECT_EQ(Find(Health(g), "gpu.recovery_action")->severity, Severity::kOk);
  for (const char* action : {"Reset", "Drain and Reset", "Node Reboot Required", "Drain P2P"}) {
    g.recovery_action = Reading<std::string>::Of(action);
    auto out = Health(g);
    const Finding* f = Find(out, "gpu.recovery_action");
    ASSERT_NE(f, nullptr) << action;
    EXPECT_EQ(f->severity, Severity::kFail) << action;
    EXPECT_NE(f->summary.find(action), std::string::npos) << f->summary;
    EXPECT_FALSE(f->decision.empty());
  }
  g.recovery_action = Reading<std::string>::Of("Node Reboot Required");
  EXPECT_NE(Find(Health(g), "gpu.recovery_action")->decision.find("reboot"), std::string::npos);
  g.recovery_action = Reading<std::string>::Of("Something New");
  EXPECT_EQ(Find(Health(g), "gpu.recovery_action")->severity, Severity::kWarn);
}

TEST(GpuHealthRules, MemoryRepairFieldsAreJudgedAsNvidiaDocumentsThem) {
  GpuState g = test::HealthyGpu(0, "0000:1b:00.0");
  g.unrepairable_memory = Reading<bool>::Of(true);
  g.channel_repair_pending = Reading<bool>::Of(true);
  g.tpc_repair_pending = Reading<bool>::Of(false);
  g.sram_threshold_exceeded = Reading<bool>::Of(true);
  auto out = Health(g);
  EXPECT_EQ(Find(out, "ecc.unrepairable_memory")->severity, Severity::kFail);  // RMA
  EXPECT_EQ(Find(out, "ecc.repair_pending")->severity, Severity::kWarn);       // reset later
  EXPECT_EQ(Find(out, "ecc.repair_pending")->summary,
            "a channel repair waits for the next GPU reset");
  EXPECT_EQ(Find(out, "ecc.sram_threshold")->severity, Severity::kFail);  // RMA
  g.unrepairable_memory = Reading<bool>::Of(false);
  g.channel_repair_pending = Reading<bool>::Of(false);
  g.sram_threshold_exceeded = Reading<bool>::Of(false);
  out = Health(g);
  EXPECT_EQ(WorstSeverity(out), Severity::kOk);
}

TEST(GpuHealthRules, FabricRegistration) {
  GpuState g = test::HealthyGpu(0, "0000:1b:00.0");
  g.fabric_state = Reading<std::string>::Of("Completed");
  g.fabric_status = Reading<std::string>::Of("Success");
  EXPECT_EQ(Find(Health(g), "nvlink.fabric")->severity, Severity::kOk);
  g.fabric_status = Reading<std::string>::Of("Failure");
  EXPECT_EQ(Find(Health(g), "nvlink.fabric")->severity, Severity::kFail);
  g.fabric_state = Reading<std::string>::Of("In Progress");
  EXPECT_EQ(Find(Health(g), "nvlink.fabric")->severity, Severity::kWarn);
}

TEST(GpuHealthRules, ErrorTextsInACapture) {
  GpuState g = test::HealthyGpu(0, "0000:1b:00.0");
  g.value_fields = 200;
  g.error_values = {{"gpu[0]/addressing_mode", "Unknown Error", false}};
  auto out = Health(g);
  ASSERT_NE(Find(out, "gpu.error_value"), nullptr);
  EXPECT_EQ(Find(out, "gpu.error_value")->severity, Severity::kInfo);  // sound boards print it
  g.error_values.push_back({"gpu[0]/performance_state", "Unknown Error", false});
  out = Health(g);
  EXPECT_EQ(WorstSeverity(out), Severity::kWarn);
  // Most fields: the whole GPU does not answer.
  g.value_fields = 10;
  for (int i = 0; i < 6; ++i) g.error_values.push_back({"gpu[0]/x", "Unknown Error", false});
  out = Health(g);
  const Finding* u = Find(out, "gpu.unresponsive");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->severity, Severity::kFail);
}

}  // namespace
}  // namespace gpuvet
