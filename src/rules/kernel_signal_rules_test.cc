// Tests of the kernel signal rule over hand-built kernel log states: severities per signal and
// why, NFS outages (resolved vs still down), AER tied to a GPU or its upstream bridge, ok
// findings when the log is clean, and silence when the log could not be read.
#include <gtest/gtest.h>

#include "rules/rules.h"
#include "testing/findings.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

using test::EvidenceValue;
using test::OnlyFinding;

KernelEvent Event(KernelSignal signal, std::string key, std::string detail, int count,
                  std::string sample = "…") {
  KernelEvent e;
  e.signal = signal;
  e.key = std::move(key);
  e.detail = std::move(detail);
  e.count = count;
  e.first_time = "2026-01-01T10:00:00,000000+00:00";
  e.last_time = "2026-01-01T12:00:00,000000+00:00";
  e.sample = std::move(sample);
  if (signal == KernelSignal::kPcieAer) e.pci_address = e.key;
  return e;
}

struct Fixture {
  HostState host;
  GpuInventory gpus;
  Fixture() {
    host.kernel_log.source = "kernel.log";
    host.kernel_log.record_count = Reading<int>::Of(500);
    gpus = test::InventoryOf({test::GpuAt(0, "0000:18:00.0"), test::GpuAt(1, "0000:2a:00.0")});
    GpuPciTopology t;
    t.gpu = test::NvidiaFunction("0000:18:00.0");
    t.upstream_bridge = PciFunction{};
    t.upstream_bridge->address = "0000:17:01.0";
    host.pci_gpus = Reading<std::vector<GpuPciTopology>>::Of({t});
  }
  std::vector<Finding> Run() { return test::RunCheck(CheckKernelSignals, host, gpus); }
};

TEST(KernelSignalRulesTest, CleanLogGivesOneOkPerSignal) {
  Fixture fx;
  std::vector<Finding> out = fx.Run();
  ASSERT_EQ(out.size(), 7u);
  for (const Finding& f : out) EXPECT_EQ(f.severity, Severity::kOk) << f.id;
  EXPECT_EQ(OnlyFinding(out, "kernel.io_error").summary,
            "no block or filesystem I/O error in 500 kernel log records");
}

TEST(KernelSignalRulesTest, UnreadableLogSaysNothing) {
  Fixture fx;
  fx.host.kernel_log.record_count = Reading<int>::Error("cannot read /dev/kmsg");
  EXPECT_TRUE(fx.Run().empty());  // kernel.log_access (CheckXid) reports it once
}

TEST(KernelSignalRulesTest, NfsOutageResolvedWarnsStillDownFails) {
  Fixture fx;
  NfsOutage a{"fs01", "[1000.0]", "[1094.5]", 94.5, 2};
  NfsOutage b{"fs01", "[2000.0]", "[2030.0]", 30.0, 1};
  NfsOutage c{"fs02", "[3000.0]", "", -1, 4};
  fx.host.kernel_log.nfs_outages = {a, b, c};
  fx.host.kernel_log.events = {Event(KernelSignal::kNfsNotResponding, "fs01", "still_trying", 3,
                                     "nfs: server fs01 not responding, still trying"),
                               Event(KernelSignal::kNfsNotResponding, "fs02", "timed_out", 4)};
  std::vector<Finding> out = fx.Run();
  auto nfs = test::FindingsWithId(out, "kernel.nfs_not_responding");
  ASSERT_EQ(nfs.size(), 2u);
  EXPECT_EQ(nfs[0].severity, Severity::kWarn);
  EXPECT_EQ(nfs[0].summary,
            "NFS server fs01 stopped answering 2 times (longest 94 s), last at [2000.0]");
  EXPECT_EQ(EvidenceValue(nfs[0], "longest_outage_s"), "94.5");
  EXPECT_EQ(EvidenceValue(nfs[0], "total_outage_s"), "124.5");
  EXPECT_EQ(EvidenceValue(nfs[0], "not_responding_lines"), "3");
  EXPECT_EQ(EvidenceValue(nfs[0], "sample"), "nfs: server fs01 not responding, still trying");
  EXPECT_EQ(nfs[1].severity, Severity::kFail);
  EXPECT_EQ(EvidenceValue(nfs[1], "still_down"), "yes");
  EXPECT_NE(nfs[1].summary.find("may still be down"), std::string::npos) << nfs[1].summary;
}

TEST(KernelSignalRulesTest, SeveritiesPerSignal) {
  Fixture fx;
  KernelEvent hung = Event(KernelSignal::kHungTask, "python3", "", 3,
                           "INFO: task python3:4001 blocked for more than 122 seconds.");
  hung.extras = {"pid 4001", "pid 4002"};
  hung.max_value = 245;
  fx.host.kernel_log.events = {
      hung,
      Event(KernelSignal::kIoError, "sdb", "block", 12),
      Event(KernelSignal::kIoError, "nvme2", "nvme_timeout", 2),
      Event(KernelSignal::kOomKill, "python3", "cgroup", 1),
      Event(KernelSignal::kCommLibSegfault, "libnccl.so", "python3", 2),
      Event(KernelSignal::kPeermemError, "nv_get_p2p_free_callback", "", 8),
  };
  std::vector<Finding> out = fx.Run();
  Finding h = OnlyFinding(out, "kernel.hung_task");
  EXPECT_EQ(h.severity, Severity::kWarn);
  EXPECT_EQ(h.summary, "task python3 blocked for more than 245 s ×3, last 2026-01-01T12:00:00");
  EXPECT_EQ(EvidenceValue(h, "longest_blocked_s"), "245");
  EXPECT_EQ(EvidenceValue(h, "seen"), "pid 4001, pid 4002");
  Finding sdb = OnlyFinding(out, "kernel.io_error", "/dev/sdb");
  EXPECT_EQ(sdb.severity, Severity::kFail);  // failed reads/writes: data at risk
  EXPECT_EQ(sdb.summary, "block I/O errors on sdb ×12, last 2026-01-01T12:00:00");
  EXPECT_EQ(OnlyFinding(out, "kernel.io_error", "/dev/nvme2").severity, Severity::kWarn);
  Finding oom = OnlyFinding(out, "kernel.oom_kill");
  EXPECT_EQ(oom.severity, Severity::kWarn);
  EXPECT_EQ(EvidenceValue(oom, "constraint"), "cgroup limit");
  Finding seg = OnlyFinding(out, "kernel.comm_lib_segfault");
  EXPECT_EQ(seg.summary, "python3 crashed in libnccl.so ×2, last 2026-01-01T12:00:00");
  EXPECT_EQ(OnlyFinding(out, "kernel.peermem_error").severity, Severity::kWarn);
  EXPECT_EQ(OnlyFinding(out, "kernel.pcie_aer").severity, Severity::kOk);
}

TEST(KernelSignalRulesTest, AerTiedToGpuOrBridge) {
  Fixture fx;
  fx.host.kernel_log.events = {
      Event(KernelSignal::kPcieAer, "0000:17:01.0", "uncorrected_nonfatal", 1),
      Event(KernelSignal::kPcieAer, "0000:18:00.0", "corrected", 3),
      Event(KernelSignal::kPcieAer, "0000:2a:00.0", "corrected", 40),
      Event(KernelSignal::kPcieAer, "0000:c1:00.0", "uncorrected_nonfatal", 1),
      Event(KernelSignal::kPcieAer, "0000:c1:00.1", "uncorrected_fatal", 1),
  };
  std::vector<Finding> out = fx.Run();
  auto aer = test::FindingsWithId(out, "kernel.pcie_aer");
  ASSERT_EQ(aer.size(), 5u);
  EXPECT_EQ(aer[0].subject, "gpu0 (0000:18:00.0) upstream bridge 0000:17:01.0");
  EXPECT_EQ(aer[0].severity, Severity::kFail);  // non-fatal on a GPU's path: the GPU lost data
  EXPECT_EQ(EvidenceValue(aer[0], "device"), "upstream bridge of gpu0 (0000:18:00.0)");
  EXPECT_EQ(aer[1].subject, "gpu0 (0000:18:00.0)");
  EXPECT_EQ(aer[1].severity, Severity::kInfo);  // a few corrected errors
  EXPECT_EQ(aer[2].subject, "gpu1 (0000:2a:00.0)");
  EXPECT_EQ(aer[2].severity, Severity::kWarn);  // a stream of them
  EXPECT_EQ(aer[3].subject, "pci 0000:c1:00.0");
  EXPECT_EQ(aer[3].severity, Severity::kWarn);  // non-fatal, not on a GPU's path
  EXPECT_EQ(aer[4].severity, Severity::kFail);  // fatal anywhere
  EXPECT_EQ(aer[4].summary,
            "PCIe AER uncorrected (fatal) errors ×1 reported for 0000:c1:00.1, at "
            "2026-01-01T12:00:00");
}

}  // namespace
}  // namespace gpuvet
