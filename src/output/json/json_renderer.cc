// JSON renderer. Readings become a value when measured and null otherwise; the reason for a
// missing value lives in the findings, not in the inventory.
#include "output/json/json_renderer.h"

#include <algorithm>
#include <map>

#include "core/catalogue.h"
#include "core/gpu_owner.h"

namespace gpuvet {

namespace {

using nlohmann::json;

template <typename T>
json R(const Reading<T>& r) {  // short name for the many fields below
  return ReadingToJson(r);
}

const char* StateName(GpuSourceState s) {
  switch (s) {
    case GpuSourceState::kOk:
      return "ok";
    case GpuSourceState::kLibraryMissing:
      return "library_missing";
    case GpuSourceState::kDriverNotLoaded:
      return "driver_not_loaded";
    case GpuSourceState::kInitFailed:
      return "init_failed";
    case GpuSourceState::kHung:
      return "hung";
    case GpuSourceState::kNotRun:
      return "not_run";
  }
  return "unknown";
}

json HostToJson(const HostState& h) {
  json j;
  j["hostname"] = h.hostname;
  j["kernel_release"] = h.kernel_release;
  j["uptime_s"] = R(h.uptime_s);
  j["online_cpus"] = R(h.online_cpus);
  j["memory_total_bytes"] = R(h.meminfo.total_bytes);
  j["memory_available_bytes"] = R(h.meminfo.available_bytes);
  j["nvidia_module_version"] = R(h.nvidia_module_version);
  json gov = json::object();
  for (const auto& [name, cpus] : h.cpufreq.governors) gov[name] = cpus.size();
  j["cpu_governors"] = gov;
  json cg;
  cg["version"] = h.cgroup.version;
  cg["path"] = h.cgroup.path;
  cg["cpu_quota_cores"] = h.cgroup.cpu_unlimited ? json(nullptr) : R(h.cgroup.cpu_quota_cores);
  cg["memory_max_bytes"] = h.cgroup.memory_unlimited ? json(nullptr) : R(h.cgroup.memory_max_bytes);
  j["cgroup"] = cg;
  json kl;
  kl["source"] = h.kernel_log.source;
  kl["records"] = R(h.kernel_log.record_count);
  j["kernel_log"] = kl;
  json proc;
  proc["pid"] = h.process.pid;
  proc["target"] = h.process_is_target;
  j["process"] = proc;
  return j;
}

json GpuToJson(const GpuState& g, const HostState& host) {
  json j;
  j["index"] = g.index;
  j["name"] = g.name;
  j["uuid"] = g.uuid;
  j["serial"] = g.serial;
  j["pci_bus_id"] = g.pci_bus_id;
  j["vbios_version"] = g.vbios_version;
  j["lost"] = g.lost;
  j["persistence_mode"] = R(g.persistence_mode);
  j["memory_total_bytes"] = R(g.memory_total_bytes);
  j["memory_used_bytes"] = R(g.memory_used_bytes);
  j["gpu_util_pct"] = R(g.gpu_util_pct);
  j["temperature_c"] = R(g.temperature_c);
  j["power_w"] = R(g.power_w);
  j["power_limit_w"] = R(g.power_limit_w);
  j["default_power_limit_w"] = R(g.default_power_limit_w);
  j["sm_clock_mhz"] = R(g.sm_clock_mhz);
  j["sm_clock_max_mhz"] = R(g.sm_clock_max_mhz);
  j["ecc_enabled"] = R(g.ecc_enabled);
  j["mig_enabled"] = R(g.mig_enabled);
  json pcie;
  pcie["gen"] = R(g.pcie_gen);
  pcie["gen_max"] = R(g.pcie_gen_max);
  pcie["width"] = R(g.pcie_width);
  pcie["width_max"] = R(g.pcie_width_max);
  j["pcie"] = pcie;
  j["numa_node"] = nullptr;
  if (host.pci_gpus.has()) {
    for (const GpuPciTopology& t : *host.pci_gpus) {
      if (t.gpu.address == g.pci_bus_id) j["numa_node"] = R(t.gpu.numa_node);
    }
  }
  // Additive (gpuvet.check/v1): the processes on the GPU and who runs them, when NVML listed any.
  if (g.compute_processes.has() && !g.compute_processes->empty()) {
    j["processes"] = GpuProcessesToJson(g, host.gpu_process_owners);
  }
  return j;
}

}  // namespace

nlohmann::json GpuProcessesToJson(const GpuState& gpu, const std::vector<GpuProcessOwner>& owners) {
  json out = json::array();
  if (!gpu.compute_processes.has()) return out;
  std::vector<GpuProcess> procs = *gpu.compute_processes;
  std::sort(procs.begin(), procs.end(),
            [](const GpuProcess& a, const GpuProcess& b) { return a.pid < b.pid; });
  auto text = [](const std::string& v) { return v.empty() ? json(nullptr) : json(v); };
  for (const GpuProcess& p : procs) {
    json j = {{"pid", p.pid}, {"used_memory_bytes", p.used_memory_bytes}};
    const GpuProcessOwner* o = nullptr;
    for (const GpuProcessOwner& candidate : owners) {
      if (candidate.pid == p.pid) o = &candidate;
    }
    const GpuProcessOwner none;
    const GpuProcessOwner& w = o ? *o : none;
    j["name"] = text(w.comm);
    j["uid"] = w.uid ? json(*w.uid) : json(nullptr);
    j["user"] = text(w.user);
    j["slurm_job"] = text(w.slurm_job);
    j["slurm_job_from"] = text(w.slurm_job_from);
    j["pod_uid"] = text(w.pod_uid);
    j["container_id"] = text(w.container_id);
    j["container_runtime"] = text(w.container_runtime);
    j["qos"] = text(w.qos);
    j["cgroup"] = text(w.cgroup);
    j["note"] = o ? text(w.note) : json(kOwnerNotRead);
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json FindingToJson(const Finding& f) {
  json j;
  const CatalogueEntry* e = FindCatalogueEntry(f.id);
  j["id"] = f.id;
  j["area"] = AreaOf(f.id);
  j["subject"] = f.subject;
  if (f.gpu) {
    // Additive (gpuvet.check/v1): the GPU's identity, null where it was not reported.
    auto text = [](const std::string& v) { return v.empty() ? json(nullptr) : json(v); };
    j["gpu"] = {{"index", f.gpu->index >= 0 ? json(f.gpu->index) : json(nullptr)},
                {"pci_bus_id", text(f.gpu->pci_bus_id)},
                {"serial", text(f.gpu->serial)},
                {"uuid", text(f.gpu->uuid)}};
  }
  if (f.not_in_capture) j["not_in_capture"] = true;
  j["severity"] = std::string(SeverityName(f.severity));
  j["summary"] = f.summary;
  json ev = json::array();
  for (const Evidence& x : f.evidence) {
    json item = {{"name", x.name}, {"value", x.value}};
    if (!x.threshold.empty()) item["threshold"] = x.threshold;
    ev.push_back(item);
  }
  j["evidence"] = ev;
  j["meaning"] = !f.meaning.empty() ? f.meaning : (e ? std::string(e->meaning) : "");
  j["decision"] =
      !f.decision.empty() ? f.decision : std::string(CatalogueDecision(f.id, f.severity));
  return j;
}

std::string RenderJson(const CheckReport& report) {
  json j;
  j["schema"] = kCheckSchema;
  j["gpuvet_version"] = report.gpuvet_version;
  j["generated_at"] = report.generated_at;
  j["policy"] = report.policy_source;
  j["host"] = HostToJson(report.host);

  json src;
  src["origin"] = report.gpus.origin;
  src["state"] = StateName(report.gpus.state);
  src["detail"] = report.gpus.detail;
  src["driver_version"] = R(report.gpus.driver_version);
  src["nvml_version"] = R(report.gpus.nvml_version);
  src["cuda_version"] = report.gpus.cuda_driver_version.has()
                            ? json(FormatCudaVersion(*report.gpus.cuda_driver_version))
                            : json(nullptr);
  src["device_count"] = R(report.gpus.device_count);
  // Additive: when a saved capture was taken, as it says (its host's local time).
  if (report.gpus.from_capture) src["captured_at"] = R(report.gpus.captured_at);
  j["gpu_source"] = src;

  json gpus = json::array();
  for (const GpuState& g : report.gpus.gpus) gpus.push_back(GpuToJson(g, report.host));
  j["gpus"] = gpus;

  json findings = json::array();
  std::map<std::string, int> counts = {
      {"ok", 0}, {"info", 0}, {"warn", 0}, {"unknown", 0}, {"fail", 0}};
  for (const Finding& f : report.findings) {
    findings.push_back(FindingToJson(f));
    ++counts[std::string(SeverityName(f.severity))];
  }
  j["findings"] = findings;

  json verdict;
  verdict["severity"] = std::string(SeverityName(report.verdict));
  verdict["healthy"] = report.verdict != Severity::kFail;
  verdict["exit_code"] = report.verdict == Severity::kFail ? kExitUnhealthy : kExitHealthy;
  verdict["counts"] = counts;
  j["verdict"] = verdict;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gpuvet
