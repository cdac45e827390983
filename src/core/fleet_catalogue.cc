// The fleet finding table (see fleet_catalogue.h). Sorted by id; fleet_audit_test checks that.
#include "core/fleet_catalogue.h"

#include <cassert>

namespace gpuvet {

namespace {

constexpr FleetFindingInfo kFleetFindings[] = {
    {"fleet.bench_regression", "Benchmark figure against the pool median",
     "A benchmark figure of this node is a robust outlier below nodes with the same GPU model and "
     "topology: the same hardware delivers less here (link, clocks, cooling, NUMA, firmware).",
     "Compare the node's `gpuvet check` (pcie, throttle, clocks) with a good node of the pool; "
     "rerun `gpuvet bench`; drain it when the regression persists."},
    {"fleet.check_failed", "Failing node check",
     "The node's latest `gpuvet check` failed this check (see `gpuvet explain ID`).",
     "Follow the check's decision (`gpuvet explain ID`); drain the node until it passes."},
    {"fleet.cuda_drift", "CUDA driver version against the allowed set and the pool",
     "The CUDA version the driver supports is outside the policy's allowed set, or differs from "
     "what most nodes of the same pool run: jobs that work elsewhere may fail here.",
     "Install the fleet's driver package on this node (configuration management drift)."},
    {"fleet.driver_drift", "Driver version against the allowed set and the pool",
     "The NVIDIA driver version is outside the policy's allowed set, or differs from the majority "
     "of nodes with the same GPU model and count: multi-node jobs mix driver behaviour and "
     "performance, and a node outside the allowed set runs an unvalidated driver.",
     "Reinstall the fleet's driver version; drain the node meanwhile when it is outside the "
     "allowed set."},
    {"fleet.ecc_sbe_rate", "Corrected ECC error rate over the window",
     "Corrected (single-bit) ECC errors keep arriving on this GPU. The data is still right, but "
     "a rising rate precedes uncorrectable errors and row-remap exhaustion.",
     "Watch the rate; at the fail rate drain the node, run `gpuvet check` (ecc.row_remap) and a "
     "field diagnostic (`dcgmi diag -r 3`), and plan an RMA when remapping runs out."},
    {"fleet.ecc_uncorrected", "Uncorrectable ECC errors",
     "The GPU reported uncorrectable (double-bit) ECC errors since its last reset: a job that "
     "touched the memory may have been killed or computed wrong results.",
     "Drain the node, reset the GPU (row remapping completes at reset), rerun `gpuvet check`."},
    {"fleet.pcie_downgrade", "PCIe link below its maximum",
     "The GPU's PCIe link runs narrower than it can (always a fault: reseat, riser, slot), or at a "
     "lower generation while busy (a link that trained down), so host-device copies are slower.",
     "Drain the node, reseat the GPU or riser, check the slot and BIOS settings; see "
     "pcie.link_width_reduced / pcie.link_gen_reduced in `gpuvet explain`."},
    {"fleet.stale", "Freshness of the node's data",
     "The newest report or sample of this node is older than the audit window: the node stopped "
     "reporting (down, exporter dead, scrape failing) and everything said about it is old.",
     "Check the node, its exporter or report job, and the Prometheus target status."},
    {"fleet.throttling", "Clock throttling share over the window",
     "For this share of the window the GPU ran with clocks held down by heat (thermal or HW "
     "slowdown) or by the power cap: it delivers less than its pool.",
     "Check cooling (fans, airflow, inlet temperature) for thermal throttling and the power limit "
     "(`nvidia-smi -q -d POWER`) for power capping."},
    {"fleet.vbios_drift", "VBIOS version against the allowed set and the pool",
     "The GPU's VBIOS differs from the policy's allowed set or from most GPUs of the pool: "
     "firmware fixes (and bugs) differ between otherwise identical nodes.",
     "Flash the pool's VBIOS with the vendor's tool during a maintenance window."},
};

}  // namespace

std::span<const FleetFindingInfo> FleetFindings() { return kFleetFindings; }

const FleetFindingInfo* FindFleetFinding(std::string_view id) {
  for (const FleetFindingInfo& f : kFleetFindings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

Finding MakeFleetFinding(std::string_view id, std::string subject, Severity severity,
                         std::string summary, std::vector<Evidence> evidence) {
  assert(FindFleetFinding(id) != nullptr);
  return NewFinding(id, std::move(subject), severity, std::move(summary), std::move(evidence));
}

}  // namespace gpuvet
