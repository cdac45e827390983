// The gpuvet metric contract (docs/metrics.md) as Prometheus families: node and GPU identity,
// per-GPU gauges and counters in base units, Xid counters and one series per check result. The
// exporter and `gpuvet check --textfile` both render through here, so the names exist once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/gpu_state.h"
#include "core/host_state.h"
#include "core/report.h"
#include "output/metrics/prometheus_text.h"

namespace gpuvet {

// One gpuvet_gpu_xid_errors_total series. `gpu` and `uuid` are "" when the PCI address in the
// kernel log matches no GPU NVML has reported.
struct XidSeries {
  std::string gpu;  // index as text
  std::string uuid;
  int xid = 0;
  uint64_t count = 0;
};

// gpuvet_check_status value of a severity: 0 ok, 1 info, 2 warn, 3 fail, 4 unknown.
int CheckStatusValue(Severity severity);

// gpuvet_node_info{hostname,driver_version,cuda_version,nvml_version,kernel_release,
// gpuvet_version} 1. The driver version falls back to /proc/driver/nvidia/version when NVML did
// not answer; unknown labels are "".
void AddNodeInfo(MetricSet& set, const HostState& host, const GpuInventory& gpus,
                 std::string_view gpuvet_version);

// gpuvet_gpu_info and every per-GPU gauge and counter of the contract. A field that was not read
// (not supported, error) produces no sample rather than a zero. Lost GPUs get gpu_info and
// gpuvet_gpu_lost 1 and nothing else.
void AddGpuMetrics(MetricSet& set, const GpuInventory& gpus);

// Most gpuvet_gpu_owner_info series per GPU (a GPU shared by more owners gets the first ones by
// lowest PID and gpuvet_gpu_owners counts them all).
inline constexpr size_t kMaxOwnerSeriesPerGpu = 8;

// gpuvet_gpu_owner_info{gpu,uuid,job,pod_uid,container_id,user} 1, one series per owner of each
// GPU's processes (GpuOwnerGroups), and gpuvet_gpu_processes{gpu,uuid} / gpuvet_gpu_owners{gpu,
// uuid} counts. No PID label: PIDs would make a new series per process. GPUs without a process
// list get no series.
void AddGpuOwners(MetricSet& set, const GpuInventory& gpus, const HostState& host);

// gpuvet_gpu_xid_errors_total{gpu,uuid,xid}; series with the same labels are summed.
void AddXidCounters(MetricSet& set, const std::vector<XidSeries>& xids);

// gpuvet_check_status{check,subject}: one series per finding; when two findings share a check id
// and subject, the worse severity is kept.
void AddCheckStatus(MetricSet& set, const std::vector<Finding>& findings);

// What `gpuvet check --textfile` writes for node_exporter's textfile collector: node info, the
// check series and gpuvet_check_timestamp_seconds (`unix_time`, when the check ran).
std::string RenderCheckTextfile(const CheckReport& report, double unix_time);

}  // namespace gpuvet
