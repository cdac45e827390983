// Tests of the Xid catalogue and the Xid rule over hand-built kernel log states.
#include <gtest/gtest.h>

#include <set>

#include "core/catalogue.h"
#include "rules/rules.h"
#include "rules/xid_catalog.h"
#include "testing/findings.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

using test::EvidenceValue;

XidEvent Event(std::string address, int xid, int count, std::string first, std::string last,
               std::string sample = "NVRM: Xid …") {
  XidEvent e;
  e.pci_address = std::move(address);
  e.xid = xid;
  e.count = count;
  e.first_time = std::move(first);
  e.last_time = std::move(last);
  e.sample = std::move(sample);
  return e;
}

struct Fixture {
  HostState host;
  GpuInventory gpus;
  Policy policy;
  Fixture() {
    host.kernel_log.source = "/dev/kmsg";
    host.kernel_log.record_count = Reading<int>::Of(1200);
    gpus.state = GpuSourceState::kOk;
    gpus.gpus = {test::GpuAt(0, "0000:38:00.0"), test::GpuAt(1, "0000:3b:00.0")};
  }
  std::vector<Finding> Run() { return test::RunCheck(CheckXid, host, gpus, policy); }
};

TEST(XidCatalogTest, ClassesOfWellKnownCodes) {
  for (int app : {13, 31, 43, 45, 68, 69, 109}) {
    EXPECT_EQ(ClassifyXid(app).xid_class, XidClass::kApplication) << app;
  }
  for (int rec : {63, 64, 92, 94}) {
    EXPECT_EQ(ClassifyXid(rec).xid_class, XidClass::kRecoverable) << rec;
  }
  for (int crit : {48, 61, 62, 74, 79, 95, 119, 120, 140}) {
    EXPECT_EQ(ClassifyXid(crit).xid_class, XidClass::kCritical) << crit;
  }
  EXPECT_EQ(ClassifyXid(79).name, "GPU has fallen off the bus");
}

TEST(XidCatalogTest, TableIsSortedUniqueAndComplete) {
  int previous = 0;
  for (const XidInfo& x : XidCatalog()) {
    EXPECT_GT(x.code, previous) << "not sorted/unique at " << x.code;
    previous = x.code;
    EXPECT_FALSE(x.name.empty()) << x.code;
    EXPECT_FALSE(x.action.empty()) << x.code;
    EXPECT_EQ(FindXid(x.code), &x);
  }
}

TEST(XidCatalogTest, UnknownCodeIsRecoverableWithLookUpAction) {
  EXPECT_EQ(FindXid(9999), nullptr);
  EXPECT_EQ(FindXid(0), nullptr);
  XidInfo info = ClassifyXid(9999);
  EXPECT_EQ(info.code, 9999);
  EXPECT_EQ(info.xid_class, XidClass::kRecoverable);
  EXPECT_NE(info.action.find("NVIDIA's Xid catalogue"), std::string_view::npos);
}

TEST(XidRulesTest, UnreadableLogIsUnknownWithTheNote) {
  Fixture f;
  f.host.kernel_log.record_count = Reading<int>::Error("cannot read /dev/kmsg: Permission denied");
  auto out = f.Run();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "kernel.log_access");
  EXPECT_EQ(out[0].severity, Severity::kUnknown);
  EXPECT_EQ(out[0].summary, "cannot read /dev/kmsg: Permission denied");
}

TEST(XidRulesTest, MissingKmsgIsUnknownToo) {
  Fixture f;
  f.host.kernel_log.record_count = Reading<int>::Unsupported("/dev/kmsg does not exist");
  auto out = f.Run();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kUnknown);
}

TEST(XidRulesTest, SkippedSourceEmitsNothing) {
  Fixture f;
  f.host.kernel_log = KernelLogState{};
  EXPECT_TRUE(f.Run().empty());
}

TEST(XidRulesTest, CleanLogSaysWhatWasChecked) {
  Fixture f;
  auto out = f.Run();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].id, "kernel.log_access");
  EXPECT_EQ(out[0].severity, Severity::kOk);
  EXPECT_EQ(out[0].summary, "read 1200 kernel log records from /dev/kmsg");
  EXPECT_EQ(out[1].id, "xid.critical");
  EXPECT_EQ(out[1].subject, "host");
  EXPECT_EQ(out[1].severity, Severity::kOk);
  EXPECT_EQ(out[1].summary, "no Xid events in 1200 kernel log records");
}

TEST(XidRulesTest, ApplicationXidsAreInfoNotFail) {
  Fixture f;
  f.host.kernel_log.xids = {
      Event("0000:38:00.0", 13, 629, "2025-01-21T02:21:33,498559+00:00",
            "2025-01-21T04:41:44,287000+00:00", "NVRM: Xid (PCI:0000:38:00): 13, first"),
      Event("0000:38:00.0", 43, 7, "2025-01-21T02:21:33,502278+00:00",
            "2025-01-21T04:41:44,287197+00:00")};
  auto out = f.Run();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].id, "xid.application");
  EXPECT_EQ(out[1].severity, Severity::kInfo);
  EXPECT_EQ(out[1].subject, "gpu0 (0000:38:00.0)");
  EXPECT_EQ(out[1].summary, "Xid 13 (graphics engine exception) ×629, last 2025-01-21T04:41:44");
  EXPECT_EQ(EvidenceValue(out[1], "xid"), "13");
  EXPECT_EQ(EvidenceValue(out[1], "count"), "629");
  EXPECT_EQ(EvidenceValue(out[1], "first"), "2025-01-21T02:21:33,498559+00:00");
  EXPECT_EQ(EvidenceValue(out[1], "last"), "2025-01-21T04:41:44,287000+00:00");
  EXPECT_EQ(EvidenceValue(out[1], "sample"), "NVRM: Xid (PCI:0000:38:00): 13, first");
  EXPECT_FALSE(out[1].decision.empty());
  EXPECT_EQ(out[2].id, "xid.application");
  EXPECT_LT(WorstSeverity(out), Severity::kWarn);
}

TEST(XidRulesTest, FallenOffTheBusOnGpuNvmlNoLongerListsIsCriticalOnPciSubject) {
  Fixture f;
  f.host.kernel_log.xids = {Event("0000:86:00.0", 79, 1, "[100.5]", "[100.5]")};
  auto out = f.Run();
  ASSERT_EQ(out.size(), 2u);
  const Finding& x = out[1];
  EXPECT_EQ(x.id, "xid.critical");
  EXPECT_EQ(x.severity, Severity::kFail);
  EXPECT_EQ(x.subject, "pci 0000:86:00.0");
  EXPECT_EQ(x.summary, "Xid 79 (GPU has fallen off the bus) ×1, at [100.5]");
  EXPECT_EQ(x.decision, ClassifyXid(79).action);
}

TEST(XidRulesTest, RecoverableAndUnknownXidsWarn) {
  Fixture f;
  f.host.kernel_log.xids = {Event("0000:3b:00.0", 94, 2, "a", "b"),
                            Event("0000:3b:00.0", 9999, 1, "", "")};
  auto out = f.Run();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].id, "xid.recoverable");
  EXPECT_EQ(out[1].severity, Severity::kWarn);
  EXPECT_EQ(out[1].subject, "gpu1 (0000:3b:00.0)");
  EXPECT_EQ(out[1].summary, "Xid 94 (contained ECC error) ×2, last b");
  EXPECT_EQ(out[2].id, "xid.recoverable");
  EXPECT_EQ(out[2].summary, "Xid 9999 (unknown Xid) ×1");
  EXPECT_NE(out[2].decision.find("Xid catalogue"), std::string::npos);
}

TEST(XidRulesTest, EveryEmittedIdIsInTheCatalogue) {
  Fixture f;
  f.host.kernel_log.xids = {Event("0000:38:00.0", 13, 1, "", ""),
                            Event("0000:38:00.0", 48, 1, "", ""),
                            Event("0000:38:00.0", 63, 1, "", "")};
  std::set<std::string> ids;
  for (const Finding& x : f.Run()) ids.insert(x.id);
  EXPECT_EQ(ids, (std::set<std::string>{"kernel.log_access", "xid.application", "xid.critical",
                                        "xid.recoverable"}));
  for (const std::string& id : ids) EXPECT_NE(FindCatalogueEntry(id), nullptr) << id;
}

}  // namespace
}  // namespace gpuvet
