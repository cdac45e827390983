// `gpuvet.check/v1` as an HTML section: the document read back into a view (strictly: a missing
// key or wrong type is an error naming its path), and the section built from it — the verdict with
// one sentence for the node's owner and one for the job's, findings grouped by area with severity
// colour (each expandable to evidence, meaning and decision), and the GPU inventory with serial,
// UUID and PCI address. `gpuvet check --html` renders its report through the JSON renderer and
// this reader, so both paths show the same numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "output/html/html_doc.h"
#include "output/html/html_section.h"
#include "util/status.h"

namespace gpuvet::html {

struct CheckGpuView {
  int index = 0;
  std::string name, uuid, serial, pci_bus_id, vbios;
  bool lost = false;
  std::optional<double> temperature_c, power_w, power_limit_w, util_pct, memory_used_bytes,
      memory_total_bytes;
  std::optional<double> pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
};

struct CheckView {
  std::string generated_at, policy, hostname, kernel_release;
  std::string origin, source_state, source_detail, driver_version, cuda_version;
  std::optional<double> device_count;
  std::vector<CheckGpuView> gpus;
  std::vector<FindingView> findings;
  std::string severity;
  bool healthy = true;
  SeverityCounts counts;
};

// Reads a parsed `gpuvet.check/v1` document; `what` names it in errors.
Result<CheckView> ReadCheckView(const nlohmann::json& doc, const std::string& what);
// The section; `id` is the section id and the prefix of every chart/table id in it.
Section CheckSection(const CheckView& view, const std::string& id);

}  // namespace gpuvet::html
