// Tests for CheckPcie over hand-built GPU and sysfs states: every finding id and severity branch,
// NVML-to-sysfs fallback, the upstream bridge, unreadable values, lost GPUs and the sysfs-only
// mode.
#include <gtest/gtest.h>

#include "rules/rules.h"
#include "testing/findings.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

using test::EvidenceValue;
using test::FindingsWithId;

constexpr char kGpuAddr[] = "0000:3b:00.0";
constexpr char kBridgeAddr[] = "0000:3a:00.0";
constexpr char kBridgeSubject[] = "gpu0 upstream bridge 0000:3a:00.0";

// gpu0, busy and healthy on every check (tests/testing/gpu_builders.h).
GpuState HealthyGpu() { return test::HealthyGpu(0, kGpuAddr); }

PciFunction HealthyFunction(const std::string& address, double gts) {
  PciFunction f = test::NvidiaFunction(address);
  f.link.speed_gts = Reading<double>::Of(gts);
  f.link.max_speed_gts = Reading<double>::Of(gts);
  f.link.width = Reading<int>::Of(16);
  f.link.max_width = Reading<int>::Of(16);
  f.aer = Reading<AerCounts>::Of(AerCounts{});
  return f;
}

HostState HealthyHost(double gts = 16) {
  HostState h;
  h.uptime_s = Reading<double>::Of(3600);  // 60 minutes
  GpuPciTopology t;
  t.gpu = HealthyFunction(kGpuAddr, gts);
  t.upstream_bridge = HealthyFunction(kBridgeAddr, gts);
  h.pci_gpus = Reading<std::vector<GpuPciTopology>>::Of({t});
  return h;
}

std::vector<Finding> Evaluate(const HostState& host, const GpuInventory& gpus,
                              const Policy& policy = Policy{}) {
  return test::RunCheck(CheckPcie, host, gpus, policy);
}

std::vector<Finding> Evaluate(const HostState& host, const GpuState& gpu) {
  return Evaluate(host, test::InventoryOf({gpu}));
}

constexpr char kGpuSubject[] = "gpu0 (0000:3b:00.0)";

// The only finding with `id` about `subject` (gpu0 unless said otherwise); fails the test when
// there is not exactly one.
Finding One(const std::vector<Finding>& fs, std::string_view id,
            std::string_view subject = kGpuSubject) {
  return test::OnlyFinding(fs, id, subject);
}

TEST(PcieRules, HealthyGpuGetsOneOkPerCheck) {
  auto fs = Evaluate(HealthyHost(), HealthyGpu());
  for (const char* id : {"pcie.link_width_reduced", "pcie.link_gen_reduced", "pcie.replay_counter",
                         "pcie.aer_corrected", "pcie.aer_uncorrected"}) {
    EXPECT_EQ(FindingsWithId(fs, id).size(), 1u) << id;  // the bridge's ok is folded into the GPU's
    EXPECT_EQ(One(fs, id).severity, Severity::kOk) << id;
  }
  Finding width = One(fs, "pcie.link_width_reduced");
  EXPECT_EQ(EvidenceValue(width, "current_width"), "16");
  EXPECT_EQ(EvidenceValue(width, "source"), "gpu");
  EXPECT_EQ(EvidenceValue(width, "upstream_bridge current_width"), "16");
}

TEST(PcieRules, NarrowLinkFails) {
  GpuState g = HealthyGpu();
  g.pcie_width = Reading<int>::Of(8);
  Finding f = One(Evaluate(HealthyHost(), g), "pcie.link_width_reduced");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(f.summary,
            "PCIe x8 on a x16 link (GPU x16, slot x16): host-device bandwidth at most 15.8 of "
            "31.5 GB/s per direction at Gen4");
  ASSERT_FALSE(f.evidence.empty());
  EXPECT_EQ(f.evidence[0].threshold, "== max_width 16");
  EXPECT_EQ(EvidenceValue(f, "slot_max_width"), "16");
  EXPECT_TRUE(f.decision.empty());  // the catalogue's drain-and-reseat text
}

TEST(PcieRules, WidthFallsBackToSysfsWhenNvmlFails) {
  GpuState g = HealthyGpu();
  g.pcie_width = Reading<int>::Error("nvmlDeviceGetCurrPcieLinkWidth: Unknown Error");
  HostState h = HealthyHost();
  h.pci_gpus.value[0].gpu.link.width = Reading<int>::Of(4);
  Finding f = One(Evaluate(h, g), "pcie.link_width_reduced");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(f.summary.substr(0, 40), "PCIe x4 on a x16 link (GPU x16, slot x16");
  EXPECT_EQ(EvidenceValue(f, "source"), "sysfs");
}

// A slot wired x8 (its port's maximum is x8) with the link at x8: info with the cost, no drain.
// The same holds for each GPU of a board that splits its lanes x8/x8.
TEST(PcieRules, SlotWiredX8IsInfo) {
  GpuState g = HealthyGpu();
  g.pcie_width = Reading<int>::Of(8);
  HostState h = HealthyHost();
  h.pci_gpus.value[0].upstream_bridge->link.width = Reading<int>::Of(8);
  h.pci_gpus.value[0].upstream_bridge->link.max_width = Reading<int>::Of(8);
  auto fs = FindingsWithId(Evaluate(h, g), "pcie.link_width_reduced");
  ASSERT_EQ(fs.size(), 1u);  // the port sees the same x8 link: judged once, under the GPU
  EXPECT_EQ(fs[0].subject, kGpuSubject);
  EXPECT_EQ(fs[0].severity, Severity::kInfo);
  EXPECT_EQ(fs[0].summary,
            "PCIe x8, the slot's maximum (slot wired x8; the GPU supports x16): host-device "
            "bandwidth at most 15.8 of 31.5 GB/s per direction at Gen4");
  EXPECT_EQ(fs[0].decision.find("Drain"), std::string::npos);
  EXPECT_NE(fs[0].decision.find("x16 slot"), std::string::npos);
}

// Below the slot's maximum as well: a fail even in an x8 slot (x4 of x8).
TEST(PcieRules, BelowANarrowSlotStillFails) {
  GpuState g = HealthyGpu();
  g.pcie_width = Reading<int>::Of(4);
  HostState h = HealthyHost();
  h.pci_gpus.value[0].upstream_bridge->link.width = Reading<int>::Of(4);
  h.pci_gpus.value[0].upstream_bridge->link.max_width = Reading<int>::Of(8);
  auto fs = FindingsWithId(Evaluate(h, g), "pcie.link_width_reduced");
  ASSERT_EQ(fs.size(), 1u);  // the port sees the same x4 link: judged once, under the GPU
  EXPECT_EQ(fs[0].severity, Severity::kFail);
  EXPECT_EQ(fs[0].summary.substr(0, 39), "PCIe x4 on a x8 link (GPU x16, slot x8)");
}

// A x8 card in a x16 slot: the port reads x8 of x16, which is all the card has.
TEST(PcieRules, NarrowCardInWideSlotIsOk) {
  GpuState g = HealthyGpu();
  g.pcie_width = Reading<int>::Of(8);
  g.pcie_width_max = Reading<int>::Of(8);
  HostState h = HealthyHost();
  h.pci_gpus.value[0].upstream_bridge->link.width = Reading<int>::Of(8);
  for (const Finding& f : FindingsWithId(Evaluate(h, g), "pcie.link_width_reduced")) {
    EXPECT_EQ(f.severity, Severity::kOk) << f.subject << ": " << f.summary;
  }
}

// No port above the GPU (a capture, or a GPU on the root bus as in many VMs): a reduced width
// is a warning naming what would confirm it, never a fail.
TEST(PcieRules, SlotUnknownIsWarnWithWhatWouldConfirm) {
  GpuState g = HealthyGpu();
  g.pcie_width = Reading<int>::Of(8);
  HostState h = HealthyHost();
  h.pci_gpus.value[0].upstream_bridge.reset();
  Finding f = One(Evaluate(h, g), "pcie.link_width_reduced");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_NE(f.summary.find("slot maximum unknown (no PCIe port above the GPU in sysfs)"),
            std::string::npos)
      << f.summary;
  EXPECT_NE(f.decision.find("lspci -vv"), std::string::npos);
  // From a capture (no sysfs at all) the same.
  HostState none;
  f = One(Evaluate(none, g), "pcie.link_width_reduced");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_NE(f.summary.find("(an offline capture has no slot data)"), std::string::npos)
      << f.summary;
}

// A virtual machine: the virtual root port's link is the hypervisor's model (not judged, the slot
// unknown), and the advice is the instance or the provider, never reseating.
TEST(PcieRules, VirtualMachineNeverAdvisesReseating) {
  GpuState g = HealthyGpu();
  g.pcie_width = Reading<int>::Of(8);
  HostState h = HealthyHost();
  PciFunction& port = *h.pci_gpus.value[0].upstream_bridge;
  port.link.width = Reading<int>::Of(1);
  port.link.max_width = Reading<int>::Of(1);
  port.link.speed_gts = Reading<double>::Of(2.5);
  port.link.max_speed_gts = Reading<double>::Of(2.5);
  h.virtual_machine.detected = true;
  h.virtual_machine.hypervisor = "QEMU";
  h.virtual_machine.evidence = {"/proc/cpuinfo flags: hypervisor"};
  h.virtual_machine.virtual_bridges = {kBridgeAddr};
  auto fs = Evaluate(h, g);
  auto width = FindingsWithId(fs, "pcie.link_width_reduced");
  ASSERT_EQ(width.size(), 1u);  // the virtual port's x1 is not judged
  EXPECT_EQ(width[0].severity, Severity::kWarn);
  EXPECT_NE(width[0].summary.find("is virtual"), std::string::npos) << width[0].summary;
  EXPECT_EQ(width[0].decision.find("reseat"), width[0].decision.find("reseat from the guest"));
  EXPECT_NE(width[0].decision.find("provider"), std::string::npos);
  EXPECT_NE(EvidenceValue(width[0], "virtual_machine").find("QEMU"), std::string::npos);
  // The virtual port's Gen1 neither warns nor caps the GPU's generation.
  auto gen = FindingsWithId(fs, "pcie.link_gen_reduced");
  ASSERT_EQ(gen.size(), 1u);
  EXPECT_EQ(gen[0].severity, Severity::kOk);

  // With the slot known (a real port) but the link below it, still a fail with the VM advice.
  h.virtual_machine.virtual_bridges.clear();
  port.link.width = Reading<int>::Of(16);
  port.link.max_width = Reading<int>::Of(16);
  port.link.speed_gts = Reading<double>::Of(16);
  port.link.max_speed_gts = Reading<double>::Of(16);
  Finding f = One(Evaluate(h, g), "pcie.link_width_reduced");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_NE(f.decision.find("Stop and start the instance"), std::string::npos);
}

// An offline capture taken in a VM says so in virtualization_mode.
TEST(PcieRules, CaptureVirtualizationModeCountsAsVm) {
  GpuState g = HealthyGpu();
  g.pcie_width = Reading<int>::Of(8);
  g.virtualization_mode = Reading<std::string>::Of("Pass-Through");
  Finding f = One(Evaluate(HostState{}, g), "pcie.link_width_reduced");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(EvidenceValue(f, "virtual_machine"), "virtualization_mode Pass-Through in the capture");
  EXPECT_NE(f.decision.find("instance type"), std::string::npos);
}

// Link down at the GPU end (sysfs only: NVML no longer answers): x0, or speed "Unknown".
TEST(PcieRules, GpuLinkDownInSysfsFails) {
  HostState h = HealthyHost();
  PciFunction& gpu = h.pci_gpus.value[0].gpu;
  gpu.link.width = Reading<int>::Of(0);
  gpu.link.speed_gts = Reading<double>::Unsupported("link speed 'Unknown'");
  gpu.link.speed_unknown = true;
  GpuInventory none;
  none.state = GpuSourceState::kDriverNotLoaded;
  auto fs = Evaluate(h, none);
  Finding f = One(fs, "pcie.link_width_reduced", "pci 0000:3b:00.0");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(f.summary, "PCIe link down (x0 on a x16 link): the device below is gone");

  // Width still reads 16 but the speed is "Unknown": the link is down too.
  gpu.link.width = Reading<int>::Of(16);
  f = One(Evaluate(h, none), "pcie.link_width_reduced", "pci 0000:3b:00.0");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_NE(f.summary.find("speed Unknown"), std::string::npos) << f.summary;

  // A GPU put to sleep by runtime power management is not a link down.
  gpu.power_state = Reading<std::string>::Of("D3cold");
  f = One(Evaluate(h, none), "pcie.link_width_reduced", "pci 0000:3b:00.0");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(f.summary.find("powered down (D3cold)"), std::string::npos);
}

// A Gen4 card in a Gen3 host: the link at Gen3 under load is the host's maximum, info with the
// cost; below Gen3 under load still warns.
TEST(PcieRules, Gen3HostWithGen4CardIsInfoWithTheCost) {
  GpuState g = HealthyGpu();
  g.pcie_gen = Reading<int>::Of(3);
  g.pcie_gen_max = Reading<int>::Of(3);  // NVML's maximum counts the host already
  HostState h = HealthyHost();
  PciFunction& port = *h.pci_gpus.value[0].upstream_bridge;
  port.link.speed_gts = Reading<double>::Of(8);
  port.link.max_speed_gts = Reading<double>::Of(8);
  h.pci_gpus.value[0].gpu.link.speed_gts = Reading<double>::Of(8);  // GPU LnkCap stays 16 GT/s
  auto gen = FindingsWithId(Evaluate(h, g), "pcie.link_gen_reduced");
  ASSERT_EQ(gen.size(), 2u);
  EXPECT_EQ(gen[0].severity, Severity::kInfo);
  EXPECT_EQ(gen[0].summary,
            "Gen3 host port, Gen4 GPU: the link tops out at Gen3, 50 % of the card's host-device "
            "bandwidth (x16: 15.8 of 31.5 GB/s)");
  EXPECT_EQ(EvidenceValue(gen[0], "host_port_max_gen"), "3");
  EXPECT_EQ(gen[1].severity, Severity::kOk);  // the port at its own maximum

  g.pcie_gen = Reading<int>::Of(2);
  Finding f = One(Evaluate(h, g), "pcie.link_gen_reduced");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.summary, "Gen2 under load on a Gen3 link: host-device bandwidth halved");
}

// A Gen4 card in a Gen5 slot: the port reads Gen4 of Gen5, which is all the card has.
TEST(PcieRules, OlderCardInNewerSlotIsOk) {
  HostState h = HealthyHost();
  h.pci_gpus.value[0].upstream_bridge->link.max_speed_gts = Reading<double>::Of(32);
  for (const Finding& f : FindingsWithId(Evaluate(h, HealthyGpu()), "pcie.link_gen_reduced")) {
    EXPECT_EQ(f.severity, Severity::kOk) << f.subject << ": " << f.summary;
  }
}

TEST(PcieRules, WidthUnreadableEverywhereIsUnknown) {
  GpuState g = HealthyGpu();
  g.pcie_width = Reading<int>::Error("timed out");
  HostState h = HealthyHost();
  h.pci_gpus.value[0].gpu.link.width = Reading<int>::Error("current_link_width: garbled");
  auto fs = Evaluate(h, g);
  auto width = FindingsWithId(fs, "pcie.link_width_reduced");
  ASSERT_EQ(width.size(), 2u);  // the GPU unknown, the bridge ok
  EXPECT_EQ(width[0].severity, Severity::kUnknown);
  EXPECT_NE(width[0].summary.find("gpu pcie_width: timed out"), std::string::npos);
  EXPECT_NE(width[0].summary.find("garbled"), std::string::npos);
  EXPECT_EQ(width[1].severity, Severity::kOk);
  EXPECT_EQ(width[1].subject, kBridgeSubject);
}

TEST(PcieRules, NarrowUpstreamBridgeFailsUnderItsOwnSubject) {
  HostState h = HealthyHost();
  h.pci_gpus.value[0].upstream_bridge->link.width = Reading<int>::Of(8);
  auto width = FindingsWithId(Evaluate(h, HealthyGpu()), "pcie.link_width_reduced");
  ASSERT_EQ(width.size(), 2u);
  EXPECT_EQ(width[0].subject, kBridgeSubject);
  EXPECT_EQ(width[0].severity, Severity::kFail);
  EXPECT_EQ(width[1].subject, "gpu0 (0000:3b:00.0)");
  EXPECT_EQ(width[1].severity, Severity::kOk);
}

TEST(PcieRules, SlowLinkUnderLoadWarns) {
  GpuState g = HealthyGpu();
  g.pcie_gen = Reading<int>::Of(3);
  Finding f = One(Evaluate(HealthyHost(), g), "pcie.link_gen_reduced");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.summary, "Gen3 under load on a Gen4 link: host-device bandwidth halved");
}

TEST(PcieRules, TwoGenerationsLostSaysQuarter) {
  GpuState g = HealthyGpu();
  g.pcie_gen = Reading<int>::Of(2);
  Finding f = One(Evaluate(HealthyHost(), g), "pcie.link_gen_reduced");
  EXPECT_NE(f.summary.find("1/4"), std::string::npos) << f.summary;
}

TEST(PcieRules, SlowLinkWhileIdleIsInfo) {
  GpuState g = HealthyGpu();
  g.pcie_gen = Reading<int>::Of(1);
  g.gpu_util_pct = Reading<int>::Of(0);
  Finding f = One(Evaluate(HealthyHost(), g), "pcie.link_gen_reduced");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(f.decision.find("gpuvet bench"), std::string::npos);
}

TEST(PcieRules, IdleClockReasonOverridesUtilisation) {
  GpuState g = HealthyGpu();
  g.pcie_gen = Reading<int>::Of(1);
  g.clock_event_reasons = Reading<uint64_t>::Of(clock_reason::kGpuIdle);
  EXPECT_EQ(One(Evaluate(HealthyHost(), g), "pcie.link_gen_reduced").severity, Severity::kInfo);
}

TEST(PcieRules, UnknownUtilisationIsTreatedAsIdleAndSaysSo) {
  GpuState g = HealthyGpu();
  g.pcie_gen = Reading<int>::Of(1);
  g.gpu_util_pct = Reading<int>::Error("nvmlDeviceGetUtilizationRates: timed out");
  Finding f = One(Evaluate(HealthyHost(), g), "pcie.link_gen_reduced");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(EvidenceValue(f, "gpu_util_pct").find("treated as idle"), std::string::npos);
}

TEST(PcieRules, SlowBridgeIsIdleAware) {
  HostState h = HealthyHost();
  h.pci_gpus.value[0].upstream_bridge->link.speed_gts = Reading<double>::Of(8);
  auto busy = FindingsWithId(Evaluate(h, HealthyGpu()), "pcie.link_gen_reduced");
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_EQ(busy[0].subject, kBridgeSubject);
  EXPECT_EQ(busy[0].severity, Severity::kWarn);
  EXPECT_EQ(busy[1].severity, Severity::kOk);

  GpuState idle = HealthyGpu();
  idle.gpu_util_pct = Reading<int>::Of(3);
  auto gen = FindingsWithId(Evaluate(h, idle), "pcie.link_gen_reduced");
  ASSERT_EQ(gen.size(), 2u);
  EXPECT_EQ(gen[0].severity, Severity::kInfo);
}

TEST(PcieRules, UnrecognisedSysfsSpeedIsUnknown) {
  GpuState g = HealthyGpu();
  g.pcie_gen = Reading<int>::Unsupported("not supported");
  HostState h = HealthyHost();
  h.pci_gpus.value[0].gpu.link.speed_gts = Reading<double>::Of(3.3);
  auto gen = FindingsWithId(Evaluate(h, g), "pcie.link_gen_reduced");
  ASSERT_FALSE(gen.empty());
  EXPECT_EQ(gen[0].severity, Severity::kUnknown);
  EXPECT_NE(gen[0].summary.find("not a PCIe rate"), std::string::npos);
}

TEST(PcieRules, ReplayRateOverBudgetWarns) {
  // Gen4 x16 budget: 1e-12 x 16e9 x 60 x 16 = 15.36/min; 60 minutes of uptime.
  GpuState g = HealthyGpu();
  g.pcie_replay_counter = Reading<uint64_t>::Of(1000);  // 16.7/min
  Finding over = One(Evaluate(HealthyHost(), g), "pcie.replay_counter");
  EXPECT_EQ(over.severity, Severity::kWarn);
  EXPECT_EQ(over.summary, "PCIe replays at 16.67/min, budget 15.36/min for Gen4 x16");

  g.pcie_replay_counter = Reading<uint64_t>::Of(900);  // 15/min
  Finding under = One(Evaluate(HealthyHost(), g), "pcie.replay_counter");
  EXPECT_EQ(under.severity, Severity::kOk);
  EXPECT_EQ(EvidenceValue(under, "replays_per_min"), "15.00");
}

TEST(PcieRules, ReplayBudgetUsesMaxLinkNotIdleLink) {
  GpuState g = HealthyGpu();
  g.gpu_util_pct = Reading<int>::Of(0);
  g.pcie_gen = Reading<int>::Of(1);
  g.pcie_replay_counter = Reading<uint64_t>::Of(900);
  EXPECT_EQ(One(Evaluate(HealthyHost(), g), "pcie.replay_counter").severity, Severity::kOk);
}

TEST(PcieRules, ReplayWithoutUptimeComparesRawCount) {
  HostState h = HealthyHost();
  h.uptime_s = Reading<double>::Error("/proc/uptime: unreadable");
  GpuState g = HealthyGpu();
  g.pcie_replay_counter = Reading<uint64_t>::Of(81);
  Finding over = One(Evaluate(h, g), "pcie.replay_counter");
  EXPECT_EQ(over.severity, Severity::kWarn);
  EXPECT_NE(over.evidence[0].threshold.find("/proc/uptime"), std::string::npos);
  g.pcie_replay_counter = Reading<uint64_t>::Of(80);
  EXPECT_EQ(One(Evaluate(h, g), "pcie.replay_counter").severity, Severity::kOk);
}

TEST(PcieRules, ReplayCounterErrorIsUnknownAndUnsupportedIsSkipped) {
  GpuState g = HealthyGpu();
  g.pcie_replay_counter = Reading<uint64_t>::Error("nvmlDeviceGetPcieReplayCounter: timed out");
  EXPECT_EQ(One(Evaluate(HealthyHost(), g), "pcie.replay_counter").severity, Severity::kUnknown);
  g.pcie_replay_counter = Reading<uint64_t>::Unsupported("not supported");
  EXPECT_TRUE(FindingsWithId(Evaluate(HealthyHost(), g), "pcie.replay_counter").empty());
}

TEST(PcieRules, CorrectedAerOverBudgetWarns) {
  HostState h = HealthyHost();
  h.pci_gpus.value[0].gpu.aer.value.correctable = 1200;  // 20/min > 16/min
  Finding f = One(Evaluate(h, HealthyGpu()), "pcie.aer_corrected");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(EvidenceValue(f, "correctable_per_min"), "20.00");
}

TEST(PcieRules, CorrectedAerBudgetDoublesOnGen5x16) {
  HostState h = HealthyHost(32);
  h.pci_gpus.value[0].gpu.aer.value.correctable = 1200;  // 20/min <= 32/min
  GpuState g = HealthyGpu();
  g.pcie_gen = Reading<int>::Of(5);
  g.pcie_gen_max = Reading<int>::Of(5);
  EXPECT_EQ(One(Evaluate(h, g), "pcie.aer_corrected").severity, Severity::kOk);
  h.pci_gpus.value[0].gpu.aer.value.correctable = 2000;  // 33/min
  EXPECT_EQ(One(Evaluate(h, g), "pcie.aer_corrected").severity, Severity::kWarn);
}

TEST(PcieRules, CorrectedAerOnBridgeWarnsUnderBridgeSubject) {
  HostState h = HealthyHost();
  h.pci_gpus.value[0].upstream_bridge->aer.value.correctable = 5000;
  auto fs = FindingsWithId(Evaluate(h, HealthyGpu()), "pcie.aer_corrected");
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].subject, kBridgeSubject);
  EXPECT_EQ(fs[0].severity, Severity::kWarn);
  EXPECT_EQ(fs[1].severity, Severity::kOk);
}

TEST(PcieRules, CorrectedAerWithoutUptimeIsUnknownUnlessZero) {
  HostState h = HealthyHost();
  h.uptime_s = Reading<double>::Error("/proc/uptime: garbled");
  EXPECT_EQ(One(Evaluate(h, HealthyGpu()), "pcie.aer_corrected").severity, Severity::kOk);
  h.pci_gpus.value[0].gpu.aer.value.correctable = 3;
  auto fs = FindingsWithId(Evaluate(h, HealthyGpu()), "pcie.aer_corrected");
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].severity, Severity::kUnknown);
  EXPECT_NE(fs[0].summary.find("garbled"), std::string::npos);
}

TEST(PcieRules, UncorrectedAerFatalFailsNonFatalWarns) {
  HostState h = HealthyHost();
  h.pci_gpus.value[0].gpu.aer.value.nonfatal = 2;
  EXPECT_EQ(One(Evaluate(h, HealthyGpu()), "pcie.aer_uncorrected").severity, Severity::kWarn);
  h.pci_gpus.value[0].gpu.aer.value.fatal = 1;
  Finding f = One(Evaluate(h, HealthyGpu()), "pcie.aer_uncorrected");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(f.summary, "1 fatal uncorrectable AER error");
  h.pci_gpus.value[0].gpu.aer.value.fatal = 3;
  EXPECT_EQ(One(Evaluate(h, HealthyGpu()), "pcie.aer_uncorrected").summary,
            "3 fatal uncorrectable AER errors");
}

// A GPU NVML stopped answering for (abandoned after a hang) or lost, and a function NVML does not
// list at all (fallen off the bus): sysfs still has their links and AER counters, and those of
// their bridges, so they are checked under the GPU's name or the PCI address.
TEST(PcieRules, SysfsFunctionsNvmlDidNotAnswerForAreStillChecked) {
  HostState h = HealthyHost();
  GpuPciTopology off_bus;
  off_bus.gpu = HealthyFunction("0000:5d:00.0", 16);
  off_bus.gpu.link.width = Reading<int>::Of(0);  // a fallen-off GPU's link is down
  off_bus.upstream_bridge = HealthyFunction("0000:5c:00.0", 16);
  off_bus.upstream_bridge->aer.value.fatal = 1;
  h.pci_gpus.value.push_back(off_bus);
  GpuState hung = HealthyGpu();
  hung.abandoned = true;
  auto fs = Evaluate(h, test::InventoryOf({hung}));
  // gpu0 was not read by NVML: its sysfs link is still checked, under its own name.
  EXPECT_EQ(One(fs, "pcie.link_width_reduced").severity, Severity::kOk);
  EXPECT_EQ(One(fs, "pcie.aer_uncorrected").severity, Severity::kOk);
  EXPECT_TRUE(FindingsWithId(fs, "pcie.replay_counter").empty());  // an NVML-only counter
  Finding bridge = One(fs, "pcie.aer_uncorrected", "pci 0000:5d:00.0 upstream bridge 0000:5c:00.0");
  EXPECT_EQ(bridge.severity, Severity::kFail);
  Finding gone = One(fs, "pcie.link_width_reduced", "pci 0000:5d:00.0");
  EXPECT_EQ(gone.summary, "PCIe link down (x0 on a x16 link): the device below is gone");
}

TEST(PcieRules, AerUnsupportedIsSkippedAndErrorIsUnknown) {
  HostState h = HealthyHost();
  h.pci_gpus.value[0].gpu.aer = Reading<AerCounts>::Unsupported("no aer_dev_* files");
  h.pci_gpus.value[0].upstream_bridge->aer = Reading<AerCounts>::Unsupported("no aer_dev_* files");
  auto fs = Evaluate(h, HealthyGpu());
  EXPECT_TRUE(FindingsWithId(fs, "pcie.aer_corrected").empty());
  EXPECT_TRUE(FindingsWithId(fs, "pcie.aer_uncorrected").empty());

  h.pci_gpus.value[0].gpu.aer = Reading<AerCounts>::Error("aer_dev_fatal: line 2: garbled");
  fs = Evaluate(h, HealthyGpu());
  EXPECT_EQ(One(fs, "pcie.aer_uncorrected").severity, Severity::kUnknown);
  EXPECT_EQ(One(fs, "pcie.aer_corrected").severity, Severity::kUnknown);
}

TEST(PcieRules, FailedPciScanMakesAerUnknown) {
  HostState h = HealthyHost();
  h.pci_gpus = Reading<std::vector<GpuPciTopology>>::Error("/sys/bus/pci/devices: EACCES");
  auto fs = Evaluate(h, HealthyGpu());
  EXPECT_EQ(One(fs, "pcie.link_width_reduced").severity, Severity::kOk);  // NVML alone
  EXPECT_EQ(One(fs, "pcie.aer_corrected").severity, Severity::kUnknown);
}

// A lost GPU's NVML values are not used (gpu.lost reports it) but its sysfs link still is.
TEST(PcieRules, LostGpuIsCheckedFromSysfsOnly) {
  GpuState g = HealthyGpu();
  g.lost = true;
  g.pcie_width = Reading<int>::Of(1);  // stale NVML value: must not be judged
  auto fs = Evaluate(HealthyHost(), g);
  Finding width = One(fs, "pcie.link_width_reduced");
  EXPECT_EQ(width.severity, Severity::kOk);
  EXPECT_EQ(EvidenceValue(width, "source"), "sysfs");
  EXPECT_TRUE(FindingsWithId(fs, "pcie.replay_counter").empty());
}

TEST(PcieRules, WithoutGpuSourceChecksSysfsAlone) {
  HostState h = HealthyHost();
  h.pci_gpus.value[0].gpu.link.width = Reading<int>::Of(8);
  h.pci_gpus.value[0].gpu.link.speed_gts = Reading<double>::Of(2.5);
  GpuInventory none;
  none.state = GpuSourceState::kDriverNotLoaded;
  auto fs = Evaluate(h, none);
  Finding width = One(fs, "pcie.link_width_reduced", "pci 0000:3b:00.0");
  EXPECT_EQ(width.severity, Severity::kFail);
  auto gen = FindingsWithId(fs, "pcie.link_gen_reduced");
  ASSERT_EQ(gen.size(), 2u);
  EXPECT_EQ(gen[0].severity, Severity::kInfo);  // no utilisation: treated as idle
  EXPECT_EQ(gen[1].subject, "pci 0000:3b:00.0 upstream bridge 0000:3a:00.0");
  EXPECT_TRUE(FindingsWithId(fs, "pcie.replay_counter").empty());
  EXPECT_EQ(One(fs, "pcie.aer_uncorrected", "pci 0000:3b:00.0").severity, Severity::kOk);
}

TEST(PcieRules, WithoutGpuSourceAndPciScanIsOneUnknown) {
  HostState h;
  h.pci_gpus = Reading<std::vector<GpuPciTopology>>::Error("/sys/bus/pci/devices: missing");
  GpuInventory none;
  none.state = GpuSourceState::kNotRun;
  auto fs = Evaluate(h, none);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::kUnknown);
  EXPECT_EQ(fs[0].subject, "host");
}

TEST(PcieRules, PolicyBerChangesReplayBudget) {
  Policy p;
  p.thresholds.pcie_replay_ber = 1e-13;  // budget 1.536/min
  GpuState g = HealthyGpu();
  g.pcie_replay_counter = Reading<uint64_t>::Of(120);  // 2/min
  EXPECT_EQ(One(Evaluate(HealthyHost(), test::InventoryOf({g}), p), "pcie.replay_counter").severity,
            Severity::kWarn);
}

}  // namespace
}  // namespace gpuvet
