// Host rules: what around the GPUs slows them or stops them from being used — CPU placement,
// frequency governors, cgroup limits, host memory and pressure, device nodes, and whether the
// named process holds a GPU context at all. Pure functions of HostState, GpuInventory and Policy.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "rules/rules.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

std::string ProcessSubject(const ProcessState& p) {
  if (p.comm.empty()) return fmt::format("pid {}", p.pid);
  return fmt::format("pid {} ({})", p.pid, p.comm);
}

// A GPU as the host rules see it: its name in findings, NVML state when the GPU source ran, and
// its sysfs topology when found.
struct GpuRef {
  std::string subject;
  const GpuState* nvml = nullptr;
  const GpuPciTopology* pci = nullptr;
};

// NVML's GPUs joined to sysfs when the GPU source ran with GPUs; otherwise the PCI list itself,
// numbered in bus order (the order NVML enumerates in).
std::vector<GpuRef> HostGpus(const CheckInput& in) {
  std::vector<GpuRef> refs;
  if (!in.gpus.gpus.empty()) {
    for (const GpuState& g : in.gpus.gpus) {
      refs.push_back({GpuSubject(g), &g, FindPci(in.host, g.pci_bus_id)});
    }
  } else if (in.host.pci_gpus.has()) {
    const auto& pci = *in.host.pci_gpus;
    for (size_t i = 0; i < pci.size(); ++i) {
      refs.push_back({fmt::format("gpu{} ({})", i, pci[i].gpu.address), nullptr, &pci[i]});
    }
  }
  return refs;
}

// GPUs the jobs in this cgroup can see: NVML's count when it ran, else the PCI GPUs.
int VisibleGpuCount(const CheckInput& in) {
  if (!in.gpus.gpus.empty()) return static_cast<int>(in.gpus.gpus.size());
  return in.host.pci_gpus.has() ? static_cast<int>(in.host.pci_gpus->size()) : 0;
}

bool ListsPid(const GpuState& gpu, int pid) {
  if (!gpu.compute_processes.has()) return false;
  const auto& procs = *gpu.compute_processes;
  return std::any_of(procs.begin(), procs.end(),
                     [&](const GpuProcess& p) { return static_cast<int>(p.pid) == pid; });
}

std::vector<int> Intersect(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// " (node N)" when every CPU in `cpus` is local to one NUMA node a PCI GPU reports, else "".
std::string NodeOf(const HostState& host, const std::vector<int>& cpus) {
  if (!host.pci_gpus.has() || cpus.empty()) return "";
  for (const GpuPciTopology& t : *host.pci_gpus) {
    if (!t.gpu.numa_node.has() || !t.gpu.local_cpus.has()) continue;
    if (Intersect(cpus, *t.gpu.local_cpus).size() == cpus.size()) {
      return fmt::format(" (node {})", *t.gpu.numa_node);
    }
  }
  return "";
}

// numa.process_affinity: for each GPU (only those the process uses, when NVML lists it), whether
// the CPUs the process may run on are local to the GPU's NUMA node.
void CheckNumaAffinity(const CheckInput& in, std::vector<Finding>& out) {
  constexpr const char* kId = "numa.process_affinity";
  const ProcessState& proc = in.host.process;
  std::vector<GpuRef> gpus = HostGpus(in);
  if (gpus.empty()) return;
  if (!proc.cpus_allowed.has()) {
    if (proc.cpus_allowed.error()) {
      out.push_back(MakeFinding(kId, ProcessSubject(proc), Severity::kUnknown,
                                "CPU affinity unknown: " + proc.cpus_allowed.note));
    }
    return;
  }
  if (in.host.process_is_target) {
    std::vector<GpuRef> used;
    for (const GpuRef& g : gpus) {
      if (g.nvml != nullptr && ListsPid(*g.nvml, proc.pid)) used.push_back(g);
    }
    if (!used.empty()) gpus = std::move(used);
  }
  const std::vector<int>& allowed = *proc.cpus_allowed;
  if (allowed.empty()) return;  // a live process always has a CPU; nothing to compare
  const std::string allowed_list = FormatCpuList(allowed);
  const bool everywhere =
      in.host.online_cpus.has() && static_cast<int>(allowed.size()) >= *in.host.online_cpus;
  const std::string who = fmt::format("pid {}", proc.pid);
  bool reported_no_numa = false;
  for (const GpuRef& g : gpus) {
    if (g.pci == nullptr) continue;  // no sysfs entry: pcie rules report the missing function
    const PciFunction& f = g.pci->gpu;
    if (f.numa_node.error() || f.local_cpus.error()) {
      const std::string& why = f.numa_node.error() ? f.numa_node.note : f.local_cpus.note;
      out.push_back(
          MakeFinding(kId, g.subject, Severity::kUnknown, "NUMA placement unknown: " + why));
      continue;
    }
    if (!f.numa_node.has() || !f.local_cpus.has()) {
      if (!reported_no_numa) {
        const std::string& why = f.numa_node.has() ? f.local_cpus.note : f.numa_node.note;
        out.push_back(NotChecked(kId, "host", "no NUMA information: affinity not checked",
                                 {{"numa_node", why, ""}}));
        reported_no_numa = true;
      }
      continue;
    }
    const std::vector<int>& local = *f.local_cpus;
    const std::string local_list = FormatCpuList(local);
    const size_t n_local = Intersect(allowed, local).size();
    std::vector<Evidence> ev = {
        {"cpus_allowed", allowed_list, ""},
        {"gpu_numa_node", std::to_string(*f.numa_node), ""},
        {"gpu_local_cpus", local_list, "cpus_allowed within gpu_local_cpus"},
    };
    if (everywhere) {
      ev.push_back({"online_cpus", std::to_string(*in.host.online_cpus), ""});
      out.push_back(MakeFinding(
          kId, g.subject, Severity::kOk,
          fmt::format("{} may run on all {} CPUs; placement near node {} is up to the scheduler",
                      who, allowed.size(), *f.numa_node),
          std::move(ev)));
    } else if (n_local == allowed.size()) {
      out.push_back(MakeFinding(
          kId, g.subject, Severity::kOk,
          fmt::format("{} runs on CPUs {}, all local to node {}", who, allowed_list, *f.numa_node),
          std::move(ev)));
    } else if (n_local == 0) {
      out.push_back(MakeFinding(
          kId, g.subject, Severity::kWarn,
          fmt::format("{} may run only on CPUs {}{}; {} is on node {} (CPUs {})", who, allowed_list,
                      NodeOf(in.host, allowed), g.subject.substr(0, g.subject.find(' ')),
                      *f.numa_node, local_list),
          std::move(ev)));
    } else {
      out.push_back(MakeFinding(
          kId, g.subject, Severity::kInfo,
          fmt::format("only {} of the {} CPUs {} may run on ({}) are local to node {} (CPUs {})",
                      n_local, allowed.size(), who, allowed_list, *f.numa_node, local_list),
          std::move(ev)));
    }
  }
}

// cpu.governor: every CPU should use the performance governor.
void CheckGovernor(const CheckInput& in, std::vector<Finding>& out) {
  constexpr const char* kId = "cpu.governor";
  const CpuFreqState& cf = in.host.cpufreq;
  if (cf.governors.empty()) {
    out.push_back(NotChecked(kId, "host", "cpufreq not exposed: governor not checked",
                             {{"cpufreq", cf.note, ""}}));
    return;
  }
  std::vector<Evidence> ev;
  std::vector<std::string> slow;
  for (const auto& [name, cpus] : cf.governors) {
    ev.push_back({"governor " + name, "CPUs " + FormatCpuList(cpus), "performance"});
    if (name != "performance")
      slow.push_back(fmt::format("{} on CPUs {}", name, FormatCpuList(cpus)));
  }
  if (!cf.note.empty()) ev.push_back({"note", cf.note, ""});
  if (slow.empty()) {
    out.push_back(MakeFinding(kId, "host", Severity::kOk, "all CPUs use the performance governor",
                              std::move(ev)));
  } else {
    out.push_back(
        MakeFinding(kId, "host", Severity::kWarn, "governor " + Join(slow, ", "), std::move(ev)));
  }
}

std::string CgroupSubject(const CgroupState& cg) {
  return "cgroup " + (cg.path.empty() ? std::string("/") : cg.path);
}

// cgroup.cpu_quota: quota per visible GPU against policy.cpu_cores_per_gpu_min.
void CheckCpuQuota(const CheckInput& in, const Thresholds& t, std::vector<Finding>& out) {
  constexpr const char* kId = "cgroup.cpu_quota";
  const CgroupState& cg = in.host.cgroup;
  const std::string subject = CgroupSubject(cg);
  if (cg.cpu_unlimited) {
    out.push_back(
        MakeFinding(kId, subject, Severity::kOk, "no CPU quota", {{"cpu_quota", "unlimited", ""}}));
    return;
  }
  if (cg.cpu_quota_cores.error()) {
    out.push_back(MakeFinding(kId, subject, Severity::kUnknown,
                              "CPU quota unknown: " + cg.cpu_quota_cores.note));
    return;
  }
  if (!cg.cpu_quota_cores.has()) {
    if (cg.cpu_quota_cores.unsupported()) {
      out.push_back(NotChecked(kId, subject, "CPU quota not checked: " + cg.cpu_quota_cores.note));
    }
    return;
  }
  const double cores = *cg.cpu_quota_cores;
  const int gpus = VisibleGpuCount(in);
  std::vector<Evidence> ev = {{"cpu_quota_cores", FormatSignificant(cores), ""},
                              {"visible_gpus", std::to_string(gpus), ""}};
  if (gpus == 0) {
    out.push_back(MakeFinding(
        kId, subject, Severity::kOk,
        fmt::format("CPU quota {} cores; no visible GPUs to share it", FormatSignificant(cores)),
        std::move(ev)));
    return;
  }
  const double per_gpu = cores / gpus;
  ev.push_back({"cores_per_gpu", FormatSignificant(per_gpu),
                ">= " + FormatSignificant(t.cpu_cores_per_gpu_min)});
  const Severity sev = per_gpu < t.cpu_cores_per_gpu_min ? Severity::kWarn : Severity::kOk;
  out.push_back(MakeFinding(
      kId, subject, sev,
      fmt::format("CPU quota {} cores for {} GPU{} = {} per GPU (minimum {})",
                  FormatSignificant(cores), gpus, gpus == 1 ? "" : "s", FormatSignificant(per_gpu),
                  FormatSignificant(t.cpu_cores_per_gpu_min)),
      std::move(ev)));
}

// cgroup.memory_limit: limit against policy.memory_per_gpu_min_gib × visible GPUs.
void CheckMemoryLimit(const CheckInput& in, const Thresholds& t, std::vector<Finding>& out) {
  constexpr const char* kId = "cgroup.memory_limit";
  const CgroupState& cg = in.host.cgroup;
  const std::string subject = CgroupSubject(cg);
  if (cg.memory_unlimited) {
    out.push_back(MakeFinding(kId, subject, Severity::kOk, "no memory limit",
                              {{"memory_max", "unlimited", ""}}));
    return;
  }
  if (cg.memory_max_bytes.error()) {
    out.push_back(MakeFinding(kId, subject, Severity::kUnknown,
                              "memory limit unknown: " + cg.memory_max_bytes.note));
    return;
  }
  if (!cg.memory_max_bytes.has()) {
    if (cg.memory_max_bytes.unsupported()) {
      out.push_back(
          NotChecked(kId, subject, "memory limit not checked: " + cg.memory_max_bytes.note));
    }
    return;
  }
  const uint64_t limit = *cg.memory_max_bytes;
  const int gpus = VisibleGpuCount(in);
  const double min_bytes = t.memory_per_gpu_min_gib * kBytesPerGib * gpus;
  std::vector<Evidence> ev = {
      {"memory_max", FormatBytes(limit), ""},
      {"visible_gpus", std::to_string(gpus), ""},
  };
  if (gpus > 0) {
    ev.push_back({"memory_per_gpu", FormatBytes(limit / static_cast<uint64_t>(gpus)),
                  ">= " + FormatNumber(t.memory_per_gpu_min_gib) + " GiB"});
  }
  const Severity sev = static_cast<double>(limit) < min_bytes ? Severity::kWarn : Severity::kOk;
  out.push_back(MakeFinding(kId, subject, sev,
                            gpus == 0 ? fmt::format("memory limit {}", FormatBytes(limit))
                                      : fmt::format("memory limit {} for {} GPU{} (minimum {} GiB "
                                                    "per GPU)",
                                                    FormatBytes(limit), gpus, gpus == 1 ? "" : "s",
                                                    FormatNumber(t.memory_per_gpu_min_gib)),
                            std::move(ev)));
}

// memory.available: MemAvailable as a share of MemTotal. Warn only, never fail: available memory
// is a property of the moment's workload, not of the node's health, and a fail would drain a node
// for a job's own (possibly intended) memory use. The warning says how little is left.
void CheckMemoryAvailable(const CheckInput& in, const Thresholds& t, std::vector<Finding>& out) {
  constexpr const char* kId = "memory.available";
  const MemInfo& m = in.host.meminfo;
  for (const Reading<uint64_t>* r : {&m.total_bytes, &m.available_bytes}) {
    if (r->error()) {
      out.push_back(
          MakeFinding(kId, "host", Severity::kUnknown, "available memory unknown: " + r->note));
      return;
    }
  }
  if (!m.total_bytes.has() || !m.available_bytes.has()) {
    const std::string& why = m.total_bytes.has() ? m.available_bytes.note : m.total_bytes.note;
    if (!why.empty()) {
      out.push_back(NotChecked(kId, "host", "available memory not checked: " + why));
    }
    return;
  }
  if (*m.total_bytes == 0) {
    out.push_back(MakeFinding(kId, "host", Severity::kUnknown, "MemTotal reads 0"));
    return;
  }
  const double pct =
      100.0 * static_cast<double>(*m.available_bytes) / static_cast<double>(*m.total_bytes);
  std::vector<Evidence> ev = {
      {"mem_available", FormatBytes(*m.available_bytes), ""},
      {"mem_total", FormatBytes(*m.total_bytes), ""},
      {"available_pct", FormatNumber(pct), ">= " + FormatNumber(t.memory_available_min_pct) + " %"},
  };
  const Severity sev = pct < t.memory_available_min_pct ? Severity::kWarn : Severity::kOk;
  out.push_back(
      MakeFinding(kId, "host", sev,
                  fmt::format("{} of {} available ({} %)", FormatBytes(*m.available_bytes),
                              FormatBytes(*m.total_bytes), FormatNumber(pct)),
                  std::move(ev)));
}

// memory.pressure: PSI avg60 of memory "full", io "full" and cpu "some" against the thresholds.
void CheckPressure(const CheckInput& in, const Thresholds& t, std::vector<Finding>& out) {
  constexpr const char* kId = "memory.pressure";
  struct Probe {
    const char* name;
    const Reading<PsiLine>& reading;
    double threshold;
  };
  const PsiState& psi = in.host.psi;
  const Probe probes[] = {{"memory full", psi.memory_full, t.psi_memory_full_warn_pct},
                          {"io full", psi.io_full, t.psi_io_full_warn_pct},
                          {"cpu some", psi.cpu_some, t.psi_cpu_some_warn_pct}};
  std::vector<Evidence> ev;
  std::vector<std::string> over, errors;
  for (const Probe& p : probes) {
    if (p.reading.error()) errors.push_back(fmt::format("{}: {}", p.name, p.reading.note));
    if (!p.reading.has()) continue;
    const double v = p.reading->avg60;
    ev.push_back({std::string(p.name) + " avg60", FormatNumber(v, 2) + " %",
                  "< " + FormatNumber(p.threshold) + " %"});
    if (v >= p.threshold) over.push_back(fmt::format("{} {} %", p.name, FormatNumber(v, 2)));
  }
  if (!over.empty()) {
    out.push_back(MakeFinding(kId, "host", Severity::kWarn,
                              "tasks stalled over the last minute: " + Join(over, ", "),
                              std::move(ev)));
  } else if (!errors.empty()) {
    out.push_back(MakeFinding(kId, "host", Severity::kUnknown,
                              "pressure unknown: " + Join(errors, "; "), std::move(ev)));
  } else if (!ev.empty()) {
    out.push_back(MakeFinding(kId, "host", Severity::kOk,
                              "memory, io and cpu pressure below thresholds", std::move(ev)));
  } else {
    const std::string& why = psi.cpu_some.note.empty() ? psi.memory_full.note : psi.cpu_some.note;
    out.push_back(
        NotChecked(kId, "host", "PSI not available: pressure not checked", {{"psi", why, ""}}));
  }
}

// device.nodes: every node CUDA opens exists and is read-writable by this user, when a driver is
// expected at all.
void CheckDeviceNodes(const CheckInput& in, std::vector<Finding>& out) {
  constexpr const char* kId = "device.nodes";
  const HostState& host = in.host;
  const bool expected = (host.pci_gpus.has() && !host.pci_gpus->empty()) ||
                        host.nvidia_module_version.has() || !in.gpus.gpus.empty();
  if (!expected || host.device_nodes.empty()) return;
  std::vector<std::string> missing, inaccessible, ok_nodes;
  bool uvm_missing = false;
  std::vector<Evidence> ev;
  for (const DeviceNode& n : host.device_nodes) {
    if (!n.exists) {
      if (n.path == "/dev/nvidia-uvm") {
        uvm_missing = true;
      } else {
        missing.push_back(n.path);
      }
    } else if (!n.readable || !n.writable) {
      inaccessible.push_back(n.path);
      ev.push_back({n.path,
                    fmt::format("mode {:04o}, readable={}, writable={}", n.mode,
                                n.readable ? "yes" : "no", n.writable ? "yes" : "no"),
                    "read-write"});
    } else {
      ok_nodes.push_back(n.path);
    }
  }
  if (!missing.empty()) {
    out.push_back(MakeFinding(
        kId, "host", Severity::kFail,
        fmt::format("missing: {} (CUDA cannot reach the GPUs without them)", Join(missing, ", ")),
        {{"missing", Join(missing, ", "), "present"}}));
  }
  if (!inaccessible.empty()) {
    out.push_back(MakeFinding(kId, "host", Severity::kFail,
                              fmt::format("not read-writable by this user: {} (CUDA cannot open "
                                          "the GPUs as this user)",
                                          Join(inaccessible, ", ")),
                              std::move(ev)));
  }
  if (uvm_missing) {
    out.push_back(MakeFinding(kId, "host", Severity::kWarn,
                              "/dev/nvidia-uvm missing: CUDA creates it on demand only when run as "
                              "root, so unprivileged jobs fail to initialise",
                              {{"missing", "/dev/nvidia-uvm", "present"}}));
  }
  if (missing.empty() && inaccessible.empty() && !uvm_missing) {
    out.push_back(
        MakeFinding(kId, "host", Severity::kOk,
                    fmt::format("{} device nodes present and read-writable", ok_nodes.size()),
                    {{"nodes", Join(ok_nodes, ", "), ""}}));
  }
}

// process.gpu_context: the process named with --pid holds a GPU context (NVML lists it as a
// compute process, or its maps show /dev/nvidia* or the CUDA driver library).
void CheckGpuContext(const CheckInput& in, std::vector<Finding>& out) {
  constexpr const char* kId = "process.gpu_context";
  const HostState& host = in.host;
  if (!host.process_is_target) return;
  const ProcessState& proc = host.process;
  const std::string subject = ProcessSubject(proc);
  // process_info.h documents this note for a pid with no /proc entry.
  if (proc.maps_gpu.error() && StartsWith(proc.maps_gpu.note, "no such process")) {
    out.push_back(MakeFinding(kId, subject, Severity::kUnknown, proc.maps_gpu.note));
    return;
  }
  std::vector<Evidence> ev;
  bool nvml_readable = false;
  for (const GpuState& g : in.gpus.gpus) {
    if (!g.compute_processes.has()) continue;
    nvml_readable = true;
    for (const GpuProcess& p : *g.compute_processes) {
      if (static_cast<int>(p.pid) != proc.pid) continue;
      ev.push_back({"nvml " + GpuSubject(g),
                    p.used_memory_bytes ? "compute process, " + FormatBytes(p.used_memory_bytes)
                                        : "compute process",
                    ""});
    }
  }
  if (proc.maps_gpu.has() && *proc.maps_gpu) {
    for (const std::string& m : proc.gpu_evidence) ev.push_back({"maps", m, ""});
    if (proc.gpu_evidence.empty()) ev.push_back({"maps", "GPU mapping", ""});
  }
  if (!ev.empty()) {
    // The summary first: an argument list may move `ev` before it counts it (g++ did).
    std::string summary =
        fmt::format("holds a GPU context ({} sign{})", ev.size(), ev.size() == 1 ? "" : "s");
    out.push_back(MakeFinding(kId, subject, Severity::kOk, std::move(summary), std::move(ev)));
    return;
  }
  if (!nvml_readable && !proc.maps_gpu.has()) {
    out.push_back(
        MakeFinding(kId, subject, Severity::kUnknown,
                    "GPU use unknown: NVML process lists unavailable and maps unreadable (" +
                        proc.maps_gpu.note + ")"));
    return;
  }
  std::vector<Evidence> checked;
  checked.push_back({"nvml_compute_processes", nvml_readable ? "pid not listed" : "not readable",
                     "lists the pid"});
  checked.push_back({"maps",
                     proc.maps_gpu.has() ? "no /dev/nvidia* or libcuda" : proc.maps_gpu.note,
                     "maps a GPU node or CUDA library"});
  out.push_back(MakeFinding(kId, subject, Severity::kWarn,
                            "holds no GPU context: the process is running on the CPU only",
                            std::move(checked)));
}

// host.virtual_machine: only where a hypervisor was found (info, with every sign as evidence);
// bare metal gets no finding, as nothing follows from it.
void CheckVirtualMachine(const CheckInput& in, std::vector<Finding>& out) {
  const VirtualMachineState& vm = in.host.virtual_machine;
  if (!vm.detected) return;
  std::vector<Evidence> ev = {
      {"hypervisor", vm.hypervisor.empty() ? "unknown" : vm.hypervisor, ""}};
  for (const std::string& e : vm.evidence) ev.push_back({"evidence", e, ""});
  out.push_back(
      MakeFinding("host.virtual_machine", "host", Severity::kInfo,
                  fmt::format("virtual machine ({}): GPU links are judged without reseat advice",
                              vm.hypervisor.empty() ? "hypervisor unknown" : vm.hypervisor),
                  ev));
}

}  // namespace

void CheckHost(const CheckInput& in, const Policy& policy, std::vector<Finding>& out) {
  const Thresholds& t = policy.thresholds;
  CheckVirtualMachine(in, out);
  CheckNumaAffinity(in, out);
  CheckGovernor(in, out);
  CheckCpuQuota(in, t, out);
  CheckMemoryLimit(in, t, out);
  CheckMemoryAvailable(in, t, out);
  CheckPressure(in, t, out);
  CheckDeviceNodes(in, out);
  CheckGpuContext(in, out);
}

}  // namespace gpuvet
