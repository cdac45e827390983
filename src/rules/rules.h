// The rule table: every check gpuvet runs over measurements, in report order. Each rule is a pure
// function from measurements + policy to findings; it emits an `ok` finding for what passed, so a
// report says what was checked, and `unknown` (with the reason) for what could not be read.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/policy.h"
#include "rules/rule_util.h"

namespace gpuvet {

using RuleFn = void (*)(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);

struct Rule {
  std::string_view name;  // for debugging and docs
  RuleFn fn;
  std::span<const std::string_view> areas;  // the catalogue areas of the findings it emits
  bool gpu_only;  // judges GPU data alone: runs on an nvidia-smi capture from another machine
};

// driver.*, gpu.count_expected, gpu.lost, gpu.query_failed (driver_rules.cc)
void CheckDriver(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);
// gpu.recovery_action, gpu.error_value, ecc.unrepairable_memory, ecc.repair_pending,
// ecc.sram_threshold, nvlink.fabric: the driver 570+ health fields and nvidia-smi's error texts
// in a capture (gpu_health_rules.cc)
void CheckGpuHealth(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);
// pcie.* for each GPU and its upstream bridge (pcie_rules.cc)
void CheckPcie(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);
// throttle.*, clocks.sm_below_max, thermal.margin, power.limit (clock_rules.cc)
void CheckClocks(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);
// ecc.* (ecc_rules.cc)
void CheckEcc(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);
// settings.persistence_mode, mig.mode, nvlink.* (gpu_settings_rules.cc)
void CheckGpuSettings(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);
// xid.*, kernel.log_access (xid_rules.cc)
void CheckXid(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);
// host.virtual_machine, numa.*, cpu.*, cgroup.*, memory.*, device.*, process.* (host_rules.cc)
void CheckHost(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);

// kernel.* signals beyond Xid: NFS, hung tasks, I/O errors, OOM kills, library crashes, peermem,
// AER (kernel_signal_rules.cc)
void CheckKernelSignals(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);
// container.*: runtime, GPU visibility variables, device cgroup, NVML Unknown Error
// (container_rules.cc)
void CheckContainer(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);

// ib.port_state, ib.port_rate, ib.port_errors, ib.gpu_nic_affinity: InfiniBand/RoCE ports and
// the GPU-to-NIC placement (network_rules.cc)
void CheckNetwork(const CheckInput& in, const Policy& policy, std::vector<Finding>& out);

// All rules in report order.
std::span<const Rule> Rules();

// True when the findings of `area` come from rules that judge GPU data alone (Rule::gpu_only), so
// they apply to a capture taken on another machine (`gpuvet check --nvidia-smi-xml`).
bool IsGpuOnlyArea(std::string_view area);

// Runs every rule, drops skipped ids/areas, applies the policy's severity overrides, and sorts
// findings by area (order of first appearance); within an area the rules' emission order
// (GPU index order) is kept.
std::vector<Finding> RunRules(const CheckInput& in, const Policy& policy);

}  // namespace gpuvet
