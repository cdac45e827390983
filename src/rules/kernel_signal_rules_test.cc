// Tests of the kernel signal rule over hand-built kernel log states: severities per signal and
// why, NFS outages (resolved vs still down), AER tied to a GPU or its upstream bridge, ok
// findings when the log is clean, and silence when the log could not be read.
#include <gtest/gtest.h>

#include <algorithm>

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
  ASSERT_EQ(out.size(), 13u);
  for (const Finding& f : out) EXPECT_EQ(f.severity, Severity::kOk) << f.id;
  EXPECT_EQ(OnlyFinding(out, "kernel.crash").summary,
            "no kernel panic, Oops or BUG in 500 kernel log records");
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

TEST(KernelSignalRulesTest, SeveritiesOfTheHostFaultsPeersCatch) {
  Fixture fx;
  KernelEvent soft = Event(KernelSignal::kCpuStall, "host", "soft_lockup", 2);
  soft.max_value = 48;
  KernelEvent ce = Event(KernelSignal::kEdacMemory, "MC1", "ce", 12);
  ce.sum_value = 12;
  KernelEvent few = Event(KernelSignal::kEdacMemory, "MC2", "ce", 3);
  few.sum_value = 3;
  KernelEvent ue = Event(KernelSignal::kEdacMemory, "MC3", "ue", 1);
  ue.sum_value = 1;
  KernelEvent panic = Event(KernelSignal::kKernelCrash, "kernel", "panic", 1,
                            "BUG: kernel NULL pointer dereference, address: 0000000000000008");
  panic.extras = {"Fatal exception"};
  fx.host.kernel_log.events = {
      Event(KernelSignal::kIoError, "nvme1", "nvme_disabled", 1),
      Event(KernelSignal::kIoError, "nvme2n1", "nvme_path_lost", 1),
      Event(KernelSignal::kIoError, "md0", "md_degraded", 1),
      Event(KernelSignal::kIoError, "md1", "md_failed", 1),
      Event(KernelSignal::kIoError, "", "beyond_end", 1),
      Event(KernelSignal::kNvswitchSxid, "0000:08:00.0", "fatal", 1),
      Event(KernelSignal::kNvswitchSxid, "0000:07:00.0", "nonfatal", 4),
      Event(KernelSignal::kNvlinkTraining, "0000:18:00.0", "", 1),
      panic,
      soft,
      Event(KernelSignal::kCpuStall, "host", "hard_lockup", 1),
      ce,
      few,
      ue,
      Event(KernelSignal::kNicSlotPower, "27W", "", 13),
  };
  std::stable_sort(fx.host.kernel_log.events.begin(), fx.host.kernel_log.events.end(),
                   [](const KernelEvent& a, const KernelEvent& b) { return a.signal < b.signal; });
  std::vector<Finding> out = fx.Run();
  EXPECT_EQ(OnlyFinding(out, "kernel.io_error", "/dev/nvme1").severity, Severity::kFail);
  EXPECT_EQ(OnlyFinding(out, "kernel.io_error", "/dev/nvme2n1").severity, Severity::kFail);
  EXPECT_EQ(OnlyFinding(out, "kernel.io_error", "/dev/md0").severity, Severity::kWarn);
  EXPECT_EQ(OnlyFinding(out, "kernel.io_error", "/dev/md1").severity, Severity::kFail);
  Finding beyond = OnlyFinding(out, "kernel.io_error", "host");
  EXPECT_EQ(beyond.severity, Severity::kFail);
  EXPECT_EQ(beyond.summary,
            "accesses beyond the end of the device on an unnamed device ×1, at "
            "2026-01-01T12:00:00");
  EXPECT_EQ(OnlyFinding(out, "kernel.nvswitch_sxid", "nvswitch 0000:08:00.0").severity,
            Severity::kFail);
  Finding nonfatal = OnlyFinding(out, "kernel.nvswitch_sxid", "nvswitch 0000:07:00.0");
  EXPECT_EQ(nonfatal.severity, Severity::kWarn);
  EXPECT_EQ(nonfatal.summary,
            "NVSwitch 0000:07:00.0 non-fatal SXid errors ×4, last 2026-01-01T12:00:00");
  Finding nvlink = OnlyFinding(out, "kernel.nvlink_training");
  EXPECT_EQ(nvlink.severity, Severity::kFail);
  EXPECT_EQ(nvlink.subject, "gpu0 (0000:18:00.0)");
  Finding crash = OnlyFinding(out, "kernel.crash");
  EXPECT_EQ(crash.severity, Severity::kFail);
  EXPECT_EQ(crash.summary, "kernel panic ×1: Fatal exception, at 2026-01-01T12:00:00");
  auto stalls = test::FindingsWithId(out, "kernel.cpu_stall");
  ASSERT_EQ(stalls.size(), 2u);
  EXPECT_EQ(stalls[0].severity, Severity::kWarn);
  EXPECT_EQ(stalls[0].summary,
            "soft lockups (a CPU stuck in the kernel) ×2, longest 48 s, last 2026-01-01T12:00:00");
  EXPECT_EQ(stalls[1].severity, Severity::kFail);
  EXPECT_EQ(OnlyFinding(out, "kernel.edac_memory", "host memory MC1").severity, Severity::kWarn);
  EXPECT_EQ(OnlyFinding(out, "kernel.edac_memory", "host memory MC2").severity, Severity::kInfo);
  EXPECT_EQ(OnlyFinding(out, "kernel.edac_memory", "host memory MC3").severity, Severity::kFail);
  Finding nic = OnlyFinding(out, "kernel.nic_slot_power");
  EXPECT_EQ(nic.severity, Severity::kWarn);
  EXPECT_EQ(nic.summary,
            "13 NIC reports of insufficient PCIe slot power (27W), last 2026-01-01T12:00:00");
}

TEST(KernelSignalRulesTest, DeliberateCrashIsInfoWithItsOwnDecision) {
  Fixture fx;
  fx.host.kernel_log.events = {Event(KernelSignal::kKernelCrash, "kernel", "panic_deliberate", 1,
                                     "Kernel panic - not syncing: Test panic triggered by "
                                     "crash_test module")};
  Finding crash = OnlyFinding(fx.Run(), "kernel.crash");
  EXPECT_EQ(crash.severity, Severity::kInfo);
  EXPECT_EQ(crash.summary,
            "kernel panic provoked on purpose (SysRq or a crash-test module) ×1, at "
            "2026-01-01T12:00:00");
  EXPECT_EQ(EvidenceValue(crash, "deliberate"), "yes");
  EXPECT_NE(crash.decision.find("on purpose"), std::string::npos);
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
