// The metric contract: units, absent fields, lost GPUs, check status values and the textfile.
#include "output/metrics/metrics_renderer.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

GpuState Gpu(int index) {
  GpuState g;
  g.index = index;
  g.uuid = "GPU-" + std::to_string(index);
  g.name = "NVIDIA H100 80GB HBM3";
  g.pci_bus_id = "0000:3b:00.0";
  g.power_w = Reading<double>::Of(312.5);
  g.energy_j = Reading<double>::Of(123456.789);
  g.gpu_util_pct = Reading<int>::Of(97);
  g.sm_clock_mhz = Reading<int>::Of(1980);
  g.temperature_c = Reading<int>::Unsupported("nvmlDeviceGetTemperature: not supported");
  g.power_limit_w = Reading<double>::Error("nvmlDeviceGetEnforcedPowerLimit: UNKNOWN");
  g.default_power_limit_w = Reading<double>::Of(700);
  g.clock_event_reasons =
      Reading<uint64_t>::Of(clock_reason::kSwPowerCap | clock_reason::kHwThermalSlowdown);
  g.ecc_uncorrected_volatile = Reading<uint64_t>::Of(2);
  g.remapped_rows_uncorrectable = Reading<int>::Of(1);
  return g;
}

std::string Render(const GpuInventory& inv) {
  MetricSet set;
  AddGpuMetrics(set, inv);
  return set.Render();
}

TEST(MetricsRenderer, ConvertsToBaseUnits) {
  GpuInventory inv;
  inv.gpus.push_back(Gpu(0));
  std::string text = Render(inv);
  const std::string id = R"({gpu="0",uuid="GPU-0")";
  EXPECT_NE(text.find("gpuvet_gpu_power_watts" + id + "} 312.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpuvet_gpu_energy_joules_total" + id + "} 123456.789\n"), std::string::npos);
  EXPECT_NE(text.find("gpuvet_gpu_utilization_ratio" + id + "} 0.97\n"), std::string::npos);
  EXPECT_NE(text.find("gpuvet_gpu_sm_clock_hertz" + id + "} 1980000000\n"), std::string::npos);
  // The default limit is served even when the enforced one failed (GpuvetPowerLimitReduced).
  EXPECT_NE(text.find("gpuvet_gpu_power_default_limit_watts" + id + "} 700\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE gpuvet_gpu_energy_joules_total counter"), std::string::npos);
  EXPECT_NE(
      text.find(
          R"(gpuvet_gpu_ecc_errors_total{gpu="0",uuid="GPU-0",type="uncorrected",scope="volatile"} 2)"),
      std::string::npos);
  EXPECT_NE(text.find(R"(gpuvet_gpu_remapped_rows{gpu="0",uuid="GPU-0",type="uncorrectable"} 1)"),
            std::string::npos);
}

TEST(MetricsRenderer, UnsupportedAndFailedFieldsHaveNoSample) {
  GpuInventory inv;
  inv.gpus.push_back(Gpu(0));
  std::string text = Render(inv);
  EXPECT_EQ(text.find("gpuvet_gpu_temperature_celsius"), std::string::npos);
  EXPECT_EQ(text.find("gpuvet_gpu_power_limit_watts"), std::string::npos);
  EXPECT_EQ(text.find("gpuvet_gpu_memory_total_bytes"), std::string::npos);  // never read
}

TEST(MetricsRenderer, EveryClockReasonIsASeries) {
  GpuInventory inv;
  inv.gpus.push_back(Gpu(0));
  std::string text = Render(inv);
  const std::string p = R"(gpuvet_gpu_clock_event_reason_active{gpu="0",uuid="GPU-0",reason=")";
  for (const char* off : {"gpu_idle", "applications_clocks", "hw_slowdown", "sync_boost",
                          "sw_thermal", "hw_power_brake"}) {
    EXPECT_NE(text.find(p + off + "\"} 0\n"), std::string::npos) << off;
  }
  EXPECT_NE(text.find(p + "sw_power_cap\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find(p + "hw_thermal\"} 1\n"), std::string::npos);
}

TEST(MetricsRenderer, LostGpuHasIdentityAndLostOnly) {
  GpuInventory inv;
  GpuState g = Gpu(3);
  g.lost = true;
  inv.gpus.push_back(g);
  std::string text = Render(inv);
  EXPECT_NE(text.find(R"(gpuvet_gpu_lost{gpu="3",uuid="GPU-3"} 1)"), std::string::npos);
  EXPECT_NE(text.find("gpuvet_gpu_info{"), std::string::npos);
  EXPECT_EQ(text.find("gpuvet_gpu_power_watts"), std::string::npos);
}

TEST(MetricsRenderer, CheckStatusValuesAndWorstPerSeries) {
  EXPECT_EQ(CheckStatusValue(Severity::kOk), 0);
  EXPECT_EQ(CheckStatusValue(Severity::kInfo), 1);
  EXPECT_EQ(CheckStatusValue(Severity::kWarn), 2);
  EXPECT_EQ(CheckStatusValue(Severity::kFail), 3);
  EXPECT_EQ(CheckStatusValue(Severity::kUnknown), 4);
  std::vector<Finding> findings(3);
  findings[0] = {"device.node", "host", Severity::kWarn, "", {}, "", ""};
  findings[1] = {"device.node", "host", Severity::kFail, "", {}, "", ""};
  findings[2] = {"gpu.lost", "gpu1 (0000:5d:00.0)", Severity::kUnknown, "", {}, "", ""};
  MetricSet set;
  AddCheckStatus(set, findings);
  EXPECT_EQ(set.Render(),
            "# HELP gpuvet_check_status Result of one gpuvet check on one subject: 0 ok, 1 info, "
            "2 warn, 3 fail, 4 unknown.\n"
            "# TYPE gpuvet_check_status gauge\n"
            "gpuvet_check_status{check=\"device.node\",subject=\"host\"} 3\n"
            "gpuvet_check_status{check=\"gpu.lost\",subject=\"gpu1 (0000:5d:00.0)\"} 4\n");
}

TEST(MetricsRenderer, XidSeriesWithTheSameLabelsAreSummed) {
  MetricSet set;
  AddXidCounters(set, {{"", "", 79, 1}, {"", "", 79, 2}, {"0", "GPU-0", 13, 4}});
  std::string text = set.Render();
  EXPECT_NE(text.find(R"(gpuvet_gpu_xid_errors_total{gpu="",uuid="",xid="79"} 3)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(gpuvet_gpu_xid_errors_total{gpu="0",uuid="GPU-0",xid="13"} 4)"),
            std::string::npos);
}

TEST(MetricsRenderer, NodeInfoFallsBackToTheKernelModuleVersion) {
  HostState host;
  host.hostname = "node-1";
  host.kernel_release = "6.1.0";
  host.nvidia_module_version = Reading<std::string>::Of("550.90.07");
  GpuInventory inv;  // NVML did not answer
  MetricSet set;
  AddNodeInfo(set, host, inv, "0.1.0");
  EXPECT_NE(
      set.Render().find(
          R"(gpuvet_node_info{hostname="node-1",driver_version="550.90.07",cuda_version="",nvml_version="",kernel_release="6.1.0",gpuvet_version="0.1.0"} 1)"),
      std::string::npos)
      << set.Render();
}

TEST(MetricsRenderer, TextfileHasNodeInfoChecksAndTimestamp) {
  CheckReport report;
  report.gpuvet_version = "0.1.0";
  report.host.hostname = "node-1";
  report.findings.push_back({"driver.loaded", "host", Severity::kOk, "", {}, "", ""});
  std::string text = RenderCheckTextfile(report, 1767225600);
  EXPECT_NE(text.find("gpuvet_node_info{hostname=\"node-1\""), std::string::npos);
  EXPECT_NE(text.find("gpuvet_check_status{check=\"driver.loaded\",subject=\"host\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("gpuvet_check_timestamp_seconds 1767225600\n"), std::string::npos);
}

TEST(MetricsRenderer, OwnerInfoOnePerOwnerWithoutPids) {
  GpuInventory inv;
  inv.gpus.push_back(Gpu(0));
  inv.gpus.push_back(Gpu(1));
  inv.gpus.push_back(Gpu(2));
  inv.gpus[0].compute_processes = Reading<std::vector<GpuProcess>>::Of({{11, 1}, {12, 2}});
  std::vector<GpuProcess> many;
  for (uint32_t pid = 100; pid < 112; ++pid) many.push_back({pid, 0});
  inv.gpus[1].compute_processes = Reading<std::vector<GpuProcess>>::Of(many);
  HostState host;
  GpuProcessOwner a;
  a.pid = 11;
  a.slurm_job = "4242";
  a.user = "alice";
  GpuProcessOwner b = a;
  b.pid = 12;
  host.gpu_process_owners = {a, b};
  for (uint32_t pid = 100; pid < 112; ++pid) {
    GpuProcessOwner o;
    o.pid = pid;
    o.pod_uid = "pod-" + std::to_string(pid);
    o.uid = 1000;
    host.gpu_process_owners.push_back(o);
  }
  MetricSet set;
  AddGpuOwners(set, inv, host);
  const std::string text = set.Render();
  EXPECT_NE(text.find(R"(gpuvet_gpu_owner_info{gpu="0",uuid="GPU-0",job="4242",pod_uid="",)"
                      R"(container_id="",user="alice"} 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(gpuvet_gpu_processes{gpu="0",uuid="GPU-0"} 2)"), std::string::npos);
  EXPECT_NE(text.find(R"(gpuvet_gpu_owners{gpu="0",uuid="GPU-0"} 1)"), std::string::npos);
  // Twelve owners on gpu1: eight series, the count says twelve.
  size_t series = 0;
  for (size_t at = 0; (at = text.find("gpuvet_gpu_owner_info{gpu=\"1\"", at)) != std::string::npos;
       ++at) {
    ++series;
  }
  EXPECT_EQ(series, kMaxOwnerSeriesPerGpu);
  EXPECT_NE(text.find(R"(gpuvet_gpu_owners{gpu="1",uuid="GPU-1"} 12)"), std::string::npos);
  EXPECT_NE(text.find(R"(user="uid 1000")"), std::string::npos);
  // No process list: no owner series at all; no PID anywhere in the labels.
  EXPECT_EQ(text.find(R"(gpu="2")"), std::string::npos);
  EXPECT_EQ(text.find("pid"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet
