// Tests of the Xid catalogue and the Xid rule over hand-built kernel log states.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "core/catalogue.h"
#include "rules/rules.h"
#include "rules/xid_catalog.h"
#include "testing/findings.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"
#include "util/file.h"

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

TEST(XidCatalogTest, ClassesFollowNvidiasImmediateAction) {
  // Application faults (RESTART_APP on a bad program; 43 and 45 follow the application's fault).
  for (int app : {13, 31, 43, 45, 68, 69}) {
    EXPECT_EQ(ClassifyXid(app).xid_class, XidClass::kApplication) << app;
  }
  // NVIDIA: IGNORE.
  for (int info : {37, 38, 44, 63, 66, 67, 92, 93, 106, 107, 121, 137, 141, 152, 153, 157, 160}) {
    EXPECT_EQ(ClassifyXid(info).xid_class, XidClass::kInformational) << info;
    EXPECT_EQ(ClassifyXid(info).nvidia_action, "IGNORE") << info;
  }
  // Restart the job, contact support, update software: recoverable.
  for (int rec : {8, 39, 78, 94, 142, 159}) {
    EXPECT_EQ(ClassifyXid(rec).xid_class, XidClass::kRecoverable) << rec;
  }
  // RESET_GPU, RESTART_BM, RESTART_VM, mechanical checks, the drain workflows: critical. (109 is
  // RESET_GPU in NVIDIA's catalogue although the k8s device plugin ignores it.)
  for (int crit :
       {46, 48, 54, 62, 64, 74, 79, 95, 109, 110, 119, 120, 136, 140, 143, 151, 155, 156, 158}) {
    EXPECT_EQ(ClassifyXid(crit).xid_class, XidClass::kCritical) << crit;
  }
  EXPECT_EQ(ClassifyXid(79).name, "GPU has fallen off the bus");
  EXPECT_EQ(ClassifyXid(79).nvidia_action, "RESTART_BM");
  EXPECT_EQ(ClassifyXid(46).nvidia_action, "RESET_GPU");
}

TEST(XidCatalogTest, EveryCodeNvidiaListsAsInUseIsThere) {
  // The seven that were missing, and the codes of NVIDIA's current catalogue (Ampere and newer)
  // that it does not mark "Unused".
  for (int code : {106, 107, 142, 152, 153, 166, 170}) EXPECT_NE(FindXid(code), nullptr) << code;
  for (int code : {8,   11,  13,  25,  31,  32,  37,  38,  39,  40,  41,  43,  44,  45,  46,  48,
                   54,  60,  62,  63,  64,  66,  67,  68,  69,  70,  71,  72,  74,  75,  76,  77,
                   78,  79,  80,  82,  83,  84,  85,  86,  88,  89,  92,  93,  94,  95,  96,  97,
                   98,  99,  100, 101, 102, 103, 104, 105, 106, 107, 109, 110, 119, 120, 121, 126,
                   127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 139, 140, 141, 142, 143,
                   144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159,
                   160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172}) {
    EXPECT_NE(FindXid(code), nullptr) << code;
  }
  // Marked "Unused" on every GPU generation: the unknown entry answers.
  for (int code : {1, 9, 47, 87, 90, 108, 111, 138}) EXPECT_EQ(FindXid(code), nullptr) << code;
}

TEST(XidCatalogTest, Nvlink5AndXid154AreJudgedByTheirMessage) {
  for (int code = 144; code <= 150; ++code) {
    EXPECT_EQ(ClassifyXidEvent(code, "fatal").xid_class, XidClass::kCritical) << code;
    EXPECT_EQ(ClassifyXidEvent(code, "fatal").nvidia_action, "RESET_GPU") << code;
    EXPECT_EQ(ClassifyXidEvent(code, "nonfatal").xid_class, XidClass::kRecoverable) << code;
    EXPECT_EQ(ClassifyXidEvent(code, "").xid_class, XidClass::kRecoverable) << code;
  }
  EXPECT_EQ(ClassifyXidEvent(154, "None").xid_class, XidClass::kInformational);
  for (std::string_view action : {"Drain and Reset", "GPU Reset Required", "Node Reboot Required",
                                  "Drain P2P", "OS Reboot", "PF FLR"}) {
    EXPECT_EQ(ClassifyXidEvent(154, action).xid_class, XidClass::kCritical) << action;
  }
  EXPECT_NE(ClassifyXidEvent(154, "Node Reboot Required").action.find("reboot"),
            std::string_view::npos);
  EXPECT_NE(ClassifyXidEvent(154, "Drain and Reset").action.find("then reset"),
            std::string_view::npos);
  EXPECT_EQ(ClassifyXidEvent(154, "Drain and Reset").nvidia_action, "RESET_GPU");
  // Other codes ignore the detail.
  EXPECT_EQ(ClassifyXidEvent(79, "fatal").xid_class, XidClass::kCritical);
  EXPECT_EQ(ClassifyXidEvent(13, "fatal").xid_class, XidClass::kApplication);
}

TEST(XidCatalogTest, DocsTableIsTheCatalogue) {
  // docs/xid.md embeds XidCatalogMarkdown() between two markers; GPUVET_UPDATE_DOCS=1 rewrites it.
  std::string path = std::string(GPUVET_SOURCE_DIR) + "/docs/xid.md";
  Result<std::string> doc = ReadFile(path);
  ASSERT_TRUE(doc.ok()) << path;
  constexpr std::string_view kBegin = "<!-- xid-table:begin -->\n";
  constexpr std::string_view kEnd = "<!-- xid-table:end -->";
  size_t begin = doc->find(kBegin);
  size_t end = doc->find(kEnd);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  begin += kBegin.size();
  std::string want = XidCatalogMarkdown();
  if (std::getenv("GPUVET_UPDATE_DOCS") != nullptr) {
    std::string updated = doc->substr(0, begin) + want + doc->substr(end);
    ASSERT_TRUE(WriteFileAtomic(path, updated).ok());
    return;
  }
  EXPECT_EQ(doc->substr(begin, end - begin), want)
      << "docs/xid.md is out of date: rerun with GPUVET_UPDATE_DOCS=1";
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

TEST(XidRulesTest, Nvlink5FatalFailsNonfatalWarnsWithTheAction) {
  Fixture f;
  XidEvent fatal = Event("0000:38:00.0", 149, 1, "2026-01-06T10:15:00", "2026-01-06T10:15:00");
  fatal.detail = "fatal";
  XidEvent nonfatal = Event("0000:3b:00.0", 145, 3, "2026-01-06T10:20:00", "2026-01-06T10:31:02");
  nonfatal.detail = "nonfatal";
  f.host.kernel_log.xids = {fatal, nonfatal};
  auto out = f.Run();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].id, "xid.critical");
  EXPECT_EQ(out[1].severity, Severity::kFail);
  EXPECT_EQ(out[1].summary, "Xid 149 (NVLink NETIR error, fatal) ×1, at 2026-01-06T10:15:00");
  EXPECT_EQ(EvidenceValue(out[1], "nvidia_action"), "RESET_GPU");
  EXPECT_EQ(out[2].id, "xid.recoverable");
  EXPECT_EQ(out[2].severity, Severity::kWarn);
  EXPECT_EQ(out[2].summary, "Xid 145 (NVLink RLW error, non-fatal) ×3, last 2026-01-06T10:31:02");
}

TEST(XidRulesTest, Xid154ShowsAndActsOnTheRecoveryAction) {
  Fixture f;
  XidEvent drain = Event("0000:38:00.0", 154, 1, "t", "t");
  drain.detail = "Drain and Reset";
  XidEvent cleared = Event("0000:3b:00.0", 154, 2, "t", "u");
  cleared.detail = "None";
  f.host.kernel_log.xids = {drain, cleared};
  auto out = f.Run();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].severity, Severity::kFail);
  EXPECT_EQ(out[1].summary,
            "Xid 154 (GPU recovery action changed) ×1, at t; recovery action now: Drain and Reset");
  EXPECT_EQ(EvidenceValue(out[1], "recovery_action"), "Drain and Reset");
  EXPECT_EQ(out[1].decision, ClassifyXidEvent(154, "Drain and Reset").action);
  EXPECT_EQ(out[2].id, "xid.informational");
  EXPECT_EQ(out[2].severity, Severity::kInfo);
}

TEST(XidRulesTest, RateLimitNoticesMarkGspErrorsOrStandForThem) {
  Fixture f;
  f.host.kernel_log.xids = {Event("0000:38:00.0", 119, 2, "a", "b")};
  f.host.kernel_log.xid_rate_limits = {
      {"0000:38:00.0", 30, "c"}, {"0000:38:00.0", 30, "d"}, {"0000:3b:00.0", 30, "e"}};
  auto out = f.Run();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].severity, Severity::kFail);
  EXPECT_EQ(out[1].summary,
            "Xid 119 (GSP RPC timeout) ×2, last b; the driver rate-limits these (1 of every 30 "
            "printed), so there were more");
  EXPECT_EQ(EvidenceValue(out[1], "rate_limit_notices"), "2");
  EXPECT_EQ(EvidenceValue(out[1], "rate_limit"), "1 of every 30 printed since c");
  // gpu1 printed no Xid 119 at all, only the notice: still a GSP failure.
  EXPECT_EQ(out[2].id, "xid.critical");
  EXPECT_EQ(out[2].subject, "gpu1 (0000:3b:00.0)");
  EXPECT_EQ(out[2].severity, Severity::kFail);
}

TEST(XidRulesTest, EveryEmittedIdIsInTheCatalogue) {
  Fixture f;
  f.host.kernel_log.xids = {
      Event("0000:38:00.0", 13, 1, "", ""), Event("0000:38:00.0", 48, 1, "", ""),
      Event("0000:38:00.0", 63, 1, "", ""), Event("0000:38:00.0", 94, 1, "", "")};
  std::set<std::string> ids;
  for (const Finding& x : f.Run()) ids.insert(x.id);
  EXPECT_EQ(ids, (std::set<std::string>{"kernel.log_access", "xid.application", "xid.critical",
                                        "xid.informational", "xid.recoverable"}));
  for (const std::string& id : ids) EXPECT_NE(FindCatalogueEntry(id), nullptr) << id;
}

}  // namespace
}  // namespace gpuvet
