// The metric contract rendered from GpuInventory, HostState and findings. Units are converted
// here to Prometheus base units: percent -> ratio, MHz -> Hz, and counters carry "_total".
#include "output/metrics/metrics_renderer.h"

#include <map>
#include <tuple>
#include <utility>

#include "core/gpu_owner.h"

namespace gpuvet {

namespace {

constexpr MetricType kGauge = MetricType::kGauge;
constexpr MetricType kCounter = MetricType::kCounter;

// NVML clock event reason bits and their label values (order of nvml.h).
struct ReasonName {
  uint64_t bit;
  const char* label;
};
constexpr ReasonName kReasons[] = {
    {clock_reason::kGpuIdle, "gpu_idle"},
    {clock_reason::kApplicationsClocksSetting, "applications_clocks"},
    {clock_reason::kSwPowerCap, "sw_power_cap"},
    {clock_reason::kHwSlowdown, "hw_slowdown"},
    {clock_reason::kSyncBoost, "sync_boost"},
    {clock_reason::kSwThermalSlowdown, "sw_thermal"},
    {clock_reason::kHwThermalSlowdown, "hw_thermal"},
    {clock_reason::kHwPowerBrakeSlowdown, "hw_power_brake"},
};

// Adds `r` when it holds a value, scaled by `scale`, with the GPU labels plus `extra`.
template <typename T>
void AddReading(MetricSet& set, std::string_view name, std::string_view help, MetricType type,
                const MetricLabels& gpu_labels, const Reading<T>& r, double scale = 1.0,
                MetricLabels extra = {}) {
  if (!r.has()) return;
  MetricLabels labels = gpu_labels;
  for (auto& kv : extra) labels.push_back(std::move(kv));
  set.Add(name, help, type, std::move(labels), static_cast<double>(*r) * scale);
}

void AddGpu(MetricSet& set, const GpuState& g) {
  const MetricLabels id = {{"gpu", std::to_string(g.index)}, {"uuid", g.uuid}};
  set.Add("gpuvet_gpu_info",
          "GPU identity: name, PCI bus id, VBIOS version and serial number as labels; value 1.",
          kGauge,
          {{"gpu", std::to_string(g.index)},
           {"uuid", g.uuid},
           {"name", g.name},
           {"pci_bus_id", g.pci_bus_id},
           {"vbios_version", g.vbios_version},
           {"serial", g.serial}},
          1);
  set.Add("gpuvet_gpu_lost",
          "1 when NVML answered GPU_IS_LOST for this GPU (fallen off the bus), else 0.", kGauge, id,
          g.lost ? 1 : 0);
  if (g.lost) return;

  AddReading(set, "gpuvet_gpu_power_watts", "Power draw in watts (nvmlDeviceGetPowerUsage).",
             kGauge, id, g.power_w);
  AddReading(set, "gpuvet_gpu_power_limit_watts",
             "Enforced power limit in watts (nvmlDeviceGetEnforcedPowerLimit).", kGauge, id,
             g.power_limit_w);
  AddReading(set, "gpuvet_gpu_power_default_limit_watts",
             "Board default power limit in watts (nvmlDeviceGetPowerManagementDefaultLimit).",
             kGauge, id, g.default_power_limit_w);
  AddReading(set, "gpuvet_gpu_energy_joules_total",
             "Energy consumed since the driver was loaded, in joules "
             "(nvmlDeviceGetTotalEnergyConsumption).",
             kCounter, id, g.energy_j);
  AddReading(set, "gpuvet_gpu_temperature_celsius", "GPU core temperature in degrees Celsius.",
             kGauge, id, g.temperature_c);
  AddReading(set, "gpuvet_gpu_utilization_ratio",
             "Share of the last sample period in which a kernel ran (0-1; NVML GPU utilization).",
             kGauge, id, g.gpu_util_pct, 0.01);
  AddReading(set, "gpuvet_gpu_memory_utilization_ratio",
             "Share of the last sample period in which device memory was read or written (0-1).",
             kGauge, id, g.memory_util_pct, 0.01);
  AddReading(set, "gpuvet_gpu_memory_used_bytes", "Device memory in use, in bytes.", kGauge, id,
             g.memory_used_bytes);
  AddReading(set, "gpuvet_gpu_memory_total_bytes", "Device memory size, in bytes.", kGauge, id,
             g.memory_total_bytes);
  AddReading(set, "gpuvet_gpu_sm_clock_hertz", "Current SM clock in hertz.", kGauge, id,
             g.sm_clock_mhz, 1e6);
  AddReading(set, "gpuvet_gpu_memory_clock_hertz", "Current memory clock in hertz.", kGauge, id,
             g.mem_clock_mhz, 1e6);
  AddReading(set, "gpuvet_gpu_pcie_link_generation", "Current PCIe link generation.", kGauge, id,
             g.pcie_gen);
  AddReading(set, "gpuvet_gpu_pcie_link_generation_max",
             "Maximum PCIe link generation of the GPU and its slot.", kGauge, id, g.pcie_gen_max);
  AddReading(set, "gpuvet_gpu_pcie_link_width_lanes", "Current PCIe link width in lanes.", kGauge,
             id, g.pcie_width);
  AddReading(set, "gpuvet_gpu_pcie_link_width_max_lanes",
             "Maximum PCIe link width of the GPU and its slot, in lanes.", kGauge, id,
             g.pcie_width_max);
  AddReading(set, "gpuvet_gpu_pcie_replay_errors_total",
             "PCIe replay counter (link-level retransmissions) since the driver was loaded.",
             kCounter, id, g.pcie_replay_counter);

  if (g.clock_event_reasons.has()) {
    for (const ReasonName& r : kReasons) {
      MetricLabels labels = id;
      labels.emplace_back("reason", r.label);
      set.Add("gpuvet_gpu_clock_event_reason_active",
              "1 when this clock event (throttle) reason is active, else 0.", kGauge,
              std::move(labels), (*g.clock_event_reasons & r.bit) != 0 ? 1 : 0);
    }
  }

  constexpr std::string_view kEccHelp =
      "ECC errors counted by NVML; scope volatile since the driver loaded, aggregate over the "
      "GPU's lifetime.";
  AddReading(set, "gpuvet_gpu_ecc_errors_total", kEccHelp, kCounter, id, g.ecc_corrected_volatile,
             1.0, {{"type", "corrected"}, {"scope", "volatile"}});
  AddReading(set, "gpuvet_gpu_ecc_errors_total", kEccHelp, kCounter, id, g.ecc_uncorrected_volatile,
             1.0, {{"type", "uncorrected"}, {"scope", "volatile"}});
  AddReading(set, "gpuvet_gpu_ecc_errors_total", kEccHelp, kCounter, id, g.ecc_corrected_aggregate,
             1.0, {{"type", "corrected"}, {"scope", "aggregate"}});
  AddReading(set, "gpuvet_gpu_ecc_errors_total", kEccHelp, kCounter, id,
             g.ecc_uncorrected_aggregate, 1.0, {{"type", "uncorrected"}, {"scope", "aggregate"}});

  constexpr std::string_view kRemapHelp = "Rows remapped to spare rows (Ampere and newer).";
  AddReading(set, "gpuvet_gpu_remapped_rows", kRemapHelp, kGauge, id, g.remapped_rows_correctable,
             1.0, {{"type", "correctable"}});
  AddReading(set, "gpuvet_gpu_remapped_rows", kRemapHelp, kGauge, id, g.remapped_rows_uncorrectable,
             1.0, {{"type", "uncorrectable"}});
  AddReading(set, "gpuvet_gpu_remap_pending",
             "1 when a row remap is pending and takes effect at the next GPU reset.", kGauge, id,
             g.remap_pending);
  AddReading(set, "gpuvet_gpu_remap_failure",
             "1 when a row remap failed (no spare row left); the GPU needs service.", kGauge, id,
             g.remap_failure);
  constexpr std::string_view kRetiredHelp =
      "Memory pages retired for single-bit (sbe) or double-bit (dbe) ECC errors (pre-Ampere).";
  AddReading(set, "gpuvet_gpu_retired_pages", kRetiredHelp, kGauge, id, g.retired_pages_sbe, 1.0,
             {{"cause", "sbe"}});
  AddReading(set, "gpuvet_gpu_retired_pages", kRetiredHelp, kGauge, id, g.retired_pages_dbe, 1.0,
             {{"cause", "dbe"}});
}

std::string CudaLabel(const GpuInventory& gpus) {
  return gpus.cuda_driver_version.has() ? FormatCudaVersion(*gpus.cuda_driver_version) : "";
}

}  // namespace

int CheckStatusValue(Severity severity) {
  switch (severity) {
    case Severity::kOk:
      return 0;
    case Severity::kInfo:
      return 1;
    case Severity::kWarn:
      return 2;
    case Severity::kFail:
      return 3;
    case Severity::kUnknown:
      return 4;
  }
  return 4;
}

void AddNodeInfo(MetricSet& set, const HostState& host, const GpuInventory& gpus,
                 std::string_view gpuvet_version) {
  std::string driver = gpus.driver_version.has()          ? *gpus.driver_version
                       : host.nvidia_module_version.has() ? *host.nvidia_module_version
                                                          : "";
  set.Add("gpuvet_node_info",
          "Node identity and software versions as labels; value 1. The fleet names a node by its "
          "hostname label.",
          kGauge,
          {{"hostname", host.hostname},
           {"driver_version", driver},
           {"cuda_version", CudaLabel(gpus)},
           {"nvml_version", gpus.nvml_version.has() ? *gpus.nvml_version : ""},
           {"kernel_release", host.kernel_release},
           {"gpuvet_version", std::string(gpuvet_version)}},
          1);
}

void AddGpuOwners(MetricSet& set, const GpuInventory& gpus, const HostState& host) {
  for (const GpuState& g : gpus.gpus) {
    if (g.lost || !g.compute_processes.has()) continue;
    const std::vector<GpuOwnerGroup> groups = GpuOwnerGroups(g, host.gpu_process_owners);
    const MetricLabels id = {{"gpu", std::to_string(g.index)}, {"uuid", g.uuid}};
    set.Add("gpuvet_gpu_processes", "Compute processes NVML lists on the GPU.", kGauge, id,
            static_cast<double>(g.compute_processes->size()));
    set.Add("gpuvet_gpu_owners",
            "Distinct owners (Slurm job, pod and container, user) of the GPU's processes.", kGauge,
            id, static_cast<double>(groups.size()));
    for (size_t i = 0; i < groups.size() && i < kMaxOwnerSeriesPerGpu; ++i) {
      const GpuOwnerGroup& o = groups[i];
      set.Add("gpuvet_gpu_owner_info",
              "Who runs processes on the GPU: Slurm job id, Kubernetes pod UID and container id, "
              "user (empty when unknown); value 1. Join kube_pod_info on uid for pod and "
              "namespace.",
              kGauge,
              {{"gpu", std::to_string(g.index)},
               {"uuid", g.uuid},
               {"job", o.job},
               {"pod_uid", o.pod_uid},
               {"container_id", o.container_id},
               {"user", o.user}},
              1);
    }
  }
}

void AddGpuMetrics(MetricSet& set, const GpuInventory& gpus) {
  for (const GpuState& g : gpus.gpus) AddGpu(set, g);
}

void AddXidCounters(MetricSet& set, const std::vector<XidSeries>& xids) {
  std::map<std::tuple<std::string, std::string, int>, uint64_t> merged;
  for (const XidSeries& x : xids) merged[{x.gpu, x.uuid, x.xid}] += x.count;
  for (const auto& [key, count] : merged) {
    const auto& [gpu, uuid, xid] = key;
    set.Add("gpuvet_gpu_xid_errors_total",
            "NVIDIA Xid reports seen in the kernel log while the exporter runs, each record "
            "counted once.",
            kCounter, {{"gpu", gpu}, {"uuid", uuid}, {"xid", std::to_string(xid)}},
            static_cast<double>(count));
  }
}

void AddCheckStatus(MetricSet& set, const std::vector<Finding>& findings) {
  // Worst severity per (check, subject), in first-appearance order.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, Severity> worst;
  for (const Finding& f : findings) {
    auto key = std::make_pair(f.id, f.subject);
    auto [it, inserted] = worst.emplace(key, f.severity);
    if (inserted) {
      order.push_back(key);
    } else if (static_cast<int>(f.severity) > static_cast<int>(it->second)) {
      it->second = f.severity;  // Severity's order ranks unknown below fail
    }
  }
  for (const auto& key : order) {
    set.Add("gpuvet_check_status",
            "Result of one gpuvet check on one subject: 0 ok, 1 info, 2 warn, 3 fail, 4 unknown.",
            kGauge, {{"check", key.first}, {"subject", key.second}}, CheckStatusValue(worst[key]));
  }
}

std::string RenderCheckTextfile(const CheckReport& report, double unix_time) {
  MetricSet set;
  AddNodeInfo(set, report.host, report.gpus, report.gpuvet_version);
  AddCheckStatus(set, report.findings);
  set.Add("gpuvet_check_timestamp_seconds", "Unix time at which `gpuvet check` wrote this file.",
          kGauge, {}, unix_time);
  return set.Render();
}

}  // namespace gpuvet
