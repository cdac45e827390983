// Tests for CheckGpuSettings: persistence mode, MIG mode and pending changes, NVLink links down
// and error counters, with unsupported and unreadable values and lost GPUs.
#include <gtest/gtest.h>

#include "rules/rules.h"

namespace gpuvet {
namespace {

NvLinkState Link(int n, bool active = true, uint64_t crc = 0, uint64_t recovery = 0) {
  NvLinkState l;
  l.link = n;
  l.active = active;
  l.crc_flit_errors = Reading<uint64_t>::Of(crc);
  l.crc_data_errors = Reading<uint64_t>::Of(0);
  l.replay_errors = Reading<uint64_t>::Of(0);
  l.recovery_errors = Reading<uint64_t>::Of(recovery);
  return l;
}

GpuState HealthyGpu() {
  GpuState g;
  g.index = 3;
  g.pci_bus_id = "0000:3e:00.0";
  g.persistence_mode = Reading<bool>::Of(true);
  g.mig_enabled = Reading<bool>::Of(false);
  g.mig_pending_enabled = Reading<bool>::Of(false);
  for (int i = 0; i < 4; ++i) g.nvlinks.push_back(Link(i));
  return g;
}

std::vector<Finding> Evaluate(const GpuState& gpu, const Policy& policy = Policy{}) {
  HostState host;
  GpuInventory inv;
  inv.state = GpuSourceState::kOk;
  inv.gpus.push_back(gpu);
  std::vector<Finding> out;
  CheckGpuSettings(CheckInput{host, inv}, policy, out);
  return out;
}

int Count(const std::vector<Finding>& fs, std::string_view id) {
  int n = 0;
  for (const Finding& f : fs) n += f.id == id;
  return n;
}

// The only finding with `id`; fails the test when there is not exactly one.
Finding One(const std::vector<Finding>& fs, std::string_view id) {
  EXPECT_EQ(Count(fs, id), 1) << "findings with id " << id;
  for (const Finding& f : fs) {
    if (f.id == id) return f;
  }
  return Finding{};
}

TEST(GpuSettingsRules, HealthyGpuIsOk) {
  auto fs = Evaluate(HealthyGpu());
  ASSERT_EQ(fs.size(), 4u);
  for (const char* id :
       {"settings.persistence_mode", "mig.mode", "nvlink.link_down", "nvlink.errors"}) {
    Finding f = One(fs, id);
    EXPECT_EQ(f.severity, Severity::kOk) << id;
    EXPECT_EQ(f.subject, "gpu3 (0000:3e:00.0)");
  }
}

TEST(GpuSettingsRules, PersistenceBranches) {
  GpuState g = HealthyGpu();
  g.persistence_mode = Reading<bool>::Of(false);
  EXPECT_EQ(One(Evaluate(g), "settings.persistence_mode").severity, Severity::kWarn);
  g.persistence_mode = Reading<bool>::Error("nvmlDeviceGetPersistenceMode: timed out");
  Finding f = One(Evaluate(g), "settings.persistence_mode");
  EXPECT_EQ(f.severity, Severity::kUnknown);
  EXPECT_NE(f.summary.find("timed out"), std::string::npos);
  g.persistence_mode = Reading<bool>::Unsupported("not supported");
  EXPECT_EQ(Count(Evaluate(g), "settings.persistence_mode"), 0);
}

TEST(GpuSettingsRules, MigBranches) {
  GpuState g = HealthyGpu();
  g.mig_enabled = Reading<bool>::Of(true);
  g.mig_pending_enabled = Reading<bool>::Of(true);
  g.mig_instances = Reading<int>::Of(7);
  Finding on = One(Evaluate(g), "mig.mode");
  EXPECT_EQ(on.severity, Severity::kInfo);
  EXPECT_EQ(on.summary, "MIG enabled: 7 MIG device(s)");

  g.mig_pending_enabled = Reading<bool>::Of(false);
  Finding pending = One(Evaluate(g), "mig.mode");
  EXPECT_EQ(pending.severity, Severity::kWarn);
  EXPECT_EQ(pending.summary, "MIG enabled, disabling pending until GPU reset");

  g.mig_enabled = Reading<bool>::Error("nvmlDeviceGetMigMode: 999");
  EXPECT_EQ(One(Evaluate(g), "mig.mode").severity, Severity::kUnknown);
  g.mig_enabled = Reading<bool>::Unsupported("not supported");
  EXPECT_EQ(Count(Evaluate(g), "mig.mode"), 0);
}

TEST(GpuSettingsRules, NoNvLinkMeansNoNvLinkFindings) {
  GpuState g = HealthyGpu();
  g.nvlinks.clear();
  auto fs = Evaluate(g);
  EXPECT_EQ(Count(fs, "nvlink.link_down"), 0);
  EXPECT_EQ(Count(fs, "nvlink.errors"), 0);
}

TEST(GpuSettingsRules, SomeLinksDownFailsAndListsThem) {
  GpuState g = HealthyGpu();
  g.nvlinks[1].active = false;
  g.nvlinks[3].active = false;
  Finding f = One(Evaluate(g), "nvlink.link_down");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(f.summary, "NVLink 2 of 4 links inactive: links 1,3");
}

TEST(GpuSettingsRules, AllLinksDownWarns) {
  GpuState g = HealthyGpu();
  for (NvLinkState& l : g.nvlinks) l.active = false;
  EXPECT_EQ(One(Evaluate(g), "nvlink.link_down").severity, Severity::kWarn);
}

TEST(GpuSettingsRules, LinkErrorsOverBudgetWarn) {
  GpuState g = HealthyGpu();
  g.nvlinks[2] = Link(2, true, /*crc=*/101);
  g.nvlinks[3] = Link(3, true, /*crc=*/0, /*recovery=*/2);
  Finding f = One(Evaluate(g), "nvlink.errors");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.summary, "NVLink errors over budget: link 2: 101 CRC; link 3: 2 replay+recovery");

  g.nvlinks[2] = Link(2, true, /*crc=*/100);  // at the budget: fine
  g.nvlinks[3] = Link(3, true, /*crc=*/0, /*recovery=*/1);
  EXPECT_EQ(One(Evaluate(g), "nvlink.errors").severity, Severity::kOk);
}

TEST(GpuSettingsRules, LinkCountersUnreadableAreUnknownUnsupportedSkipped) {
  GpuState g = HealthyGpu();
  g.nvlinks[0].crc_data_errors = Reading<uint64_t>::Error("nvmlDeviceGetNvLinkErrorCounter: 999");
  Finding f = One(Evaluate(g), "nvlink.errors");
  EXPECT_EQ(f.severity, Severity::kUnknown);
  EXPECT_NE(f.summary.find("link 0 crc_data"), std::string::npos);

  for (NvLinkState& l : g.nvlinks) {
    l.crc_flit_errors = l.crc_data_errors = l.replay_errors = l.recovery_errors =
        Reading<uint64_t>::Unsupported("not supported");
  }
  EXPECT_EQ(Count(Evaluate(g), "nvlink.errors"), 0);
}

TEST(GpuSettingsRules, LostGpuIsSkipped) {
  GpuState g = HealthyGpu();
  g.lost = true;
  EXPECT_TRUE(Evaluate(g).empty());
}

}  // namespace
}  // namespace gpuvet
