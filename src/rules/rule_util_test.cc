// Tests for the shared rule helpers: GpuActivityOf's busy/idle call and the evidence wording the
// clock and PCIe findings carry.
#include "rules/rule_util.h"

#include <gtest/gtest.h>

#include <random>

#include "rules/rules.h"
#include "testing/gpu_builders.h"

namespace gpuvet {
namespace {

GpuState GpuAt(int util_pct) {
  GpuState g = test::HealthyGpu(0, "0000:3b:00.0");
  g.gpu_util_pct = Reading<int>::Of(util_pct);
  g.clock_event_reasons = Reading<uint64_t>::Of(0);
  return g;
}

TEST(GpuActivityTest, BusyAtOrAboveTheThreshold) {
  Thresholds t;  // busy_util_pct 50
  GpuState g = GpuAt(50);
  GpuActivity a = GpuActivityOf(&g, t);
  EXPECT_TRUE(a.busy);
  EXPECT_EQ(a.evidence.name, "gpu_util_pct");
  EXPECT_EQ(a.evidence.value, "50 (busy: busy at >= busy_util_pct 50)");

  g = GpuAt(49);
  a = GpuActivityOf(&g, t);
  EXPECT_FALSE(a.busy);
  EXPECT_EQ(a.evidence.value, "49 (idle: busy at >= busy_util_pct 50)");
}

TEST(GpuActivityTest, IdleClockReasonWins) {
  GpuState g = GpuAt(90);
  g.clock_event_reasons = Reading<uint64_t>::Of(clock_reason::kGpuIdle);
  GpuActivity a = GpuActivityOf(&g, Thresholds{});
  EXPECT_FALSE(a.busy);
  EXPECT_EQ(a.evidence.value, "90 (idle: GPU idle clock reason set)");
}

TEST(GpuActivityTest, UnknownUtilisationIsIdle) {
  GpuActivity none = GpuActivityOf(nullptr, Thresholds{});
  EXPECT_FALSE(none.busy);
  EXPECT_EQ(none.evidence.value, "unknown (no NVML reading): treated as idle");

  GpuState g = GpuAt(0);
  g.gpu_util_pct = Reading<int>::Error("nvmlDeviceGetUtilizationRates: timeout");
  GpuActivity err = GpuActivityOf(&g, Thresholds{});
  EXPECT_FALSE(err.busy);
  EXPECT_EQ(err.evidence.value,
            "unknown (nvmlDeviceGetUtilizationRates: timeout): treated as idle");

  g.gpu_util_pct = Reading<int>::Error("");
  EXPECT_EQ(GpuActivityOf(&g, Thresholds{}).evidence.value, "unknown (not read): treated as idle");
}

// Two NVML GPUs (serials and UUIDs set) and a third NVIDIA function NVML did not list.
struct SubjectFixture {
  SubjectFixture() {
    GpuState a = test::HealthyGpu(0, "0000:3b:00.0");
    a.serial = "1321021035911";
    a.uuid = "GPU-aaaa";
    GpuState b = test::HealthyGpu(1, "0000:5d:00.0");
    b.serial = "1321021035999";
    b.uuid = "GPU-bbbb";
    gpus = test::InventoryOf({a, b});
    std::vector<GpuPciTopology> pci;
    for (const char* addr : {"0000:3b:00.0", "0000:5d:00.0", "0000:86:00.0"}) {
      pci.push_back({test::NvidiaFunction(addr), std::nullopt});
    }
    host.pci_gpus = Reading<std::vector<GpuPciTopology>>::Of(pci);
  }
  HostState host;
  GpuInventory gpus;
  CheckInput in() const { return {host, gpus}; }
};

TEST(GpuOfSubjectTest, ReadsEveryFormTheRulesWrite) {
  SubjectFixture fx;
  std::optional<FindingGpu> g = GpuOfSubject(fx.in(), "gpu1 (0000:5d:00.0)");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->index, 1);
  EXPECT_EQ(g->pci_bus_id, "0000:5d:00.0");
  EXPECT_EQ(g->serial, "1321021035999");
  EXPECT_EQ(g->uuid, "GPU-bbbb");

  g = GpuOfSubject(fx.in(), "gpu0");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->serial, "1321021035911");

  // A bridge finding names the GPU behind it.
  g = GpuOfSubject(fx.in(), "gpu1 upstream bridge 0000:5c:00.0");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->uuid, "GPU-bbbb");

  // The address wins over the number: kernel-signal subjects number unlisted functions by their
  // sysfs position, which is no NVML index.
  g = GpuOfSubject(fx.in(), "gpu0 (0000:5d:00.0)");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->index, 1);

  // A function NVML did not list: its address, nothing more.
  g = GpuOfSubject(fx.in(), "pci 0000:86:00.0");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->index, -1);
  EXPECT_EQ(g->pci_bus_id, "0000:86:00.0");
  EXPECT_TRUE(g->serial.empty());
  g = GpuOfSubject(fx.in(), "pci 0000:86:00.0 upstream bridge 0000:85:00.0");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->pci_bus_id, "0000:86:00.0");
}

TEST(GpuOfSubjectTest, OtherSubjectsAreNotGpus) {
  SubjectFixture fx;
  for (const char* s : {"host", "pid 4242", "pci 0000:01:00.0", "gpu7", "gpus", "gpu", "gpu1x",
                        "cgroup /slurm/job1", "", "/dev/nvidia0", "pci "}) {
    EXPECT_FALSE(GpuOfSubject(fx.in(), s)) << "'" << s << "'";
  }
}

// Subjects are text: every prefix and fixed-seed mutations of the real forms parse or give
// nullopt, never crash, and any answer names a GPU of the inventory or the bus.
TEST(GpuOfSubjectTest, CutAndMutatedSubjectsNeverCrash) {
  SubjectFixture fx;
  const std::string forms[] = {"gpu1 (0000:5d:00.0)", "gpu0 upstream bridge 0000:3a:00.0",
                               "pci 0000:86:00.0 upstream bridge 0000:85:00.0"};
  auto valid = [&](const std::optional<FindingGpu>& g) {
    if (!g) return true;
    for (const char* a : {"0000:3b:00.0", "0000:5d:00.0", "0000:86:00.0"}) {
      if (g->pci_bus_id == a) return true;
    }
    return false;
  };
  std::mt19937 rng(17);
  for (const std::string& form : forms) {
    for (size_t cut = 0; cut <= form.size(); ++cut) {
      EXPECT_TRUE(valid(GpuOfSubject(fx.in(), form.substr(0, cut)))) << form.substr(0, cut);
    }
    for (int i = 0; i < 500; ++i) {
      std::string m = form;
      for (int k = 0; k < 3; ++k) {
        m[rng() % m.size()] = static_cast<char>(rng() % 256);
      }
      EXPECT_TRUE(valid(GpuOfSubject(fx.in(), m))) << m;
    }
  }
}

// RunRules names the GPU of every finding about one, and of nothing else.
TEST(GpuOfSubjectTest, RunRulesFillsEveryGpuFinding) {
  SubjectFixture fx;
  int gpu_findings = 0;
  for (const Finding& f : RunRules(fx.in(), Policy{})) {
    if (f.subject.rfind("gpu", 0) == 0) {
      ++gpu_findings;
      ASSERT_TRUE(f.gpu) << f.id << " " << f.subject;
      EXPECT_FALSE(f.gpu->serial.empty()) << f.id << " " << f.subject;
    } else if (f.subject == "host") {
      EXPECT_FALSE(f.gpu) << f.id;
    }
  }
  EXPECT_GT(gpu_findings, 0);
}

}  // namespace
}  // namespace gpuvet
