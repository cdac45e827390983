// Fuzz target: one fleet report (a gpuvet check or bench JSON document) through the report
// reader, the fleet audit and both renderers. The reader's fast pass (JsonCursor) is checked
// against its nlohmann DOM reference: the same report or the same message, else abort; so is the
// streamed JSON renderer against the DOM one.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "core/policy.h"
#include "fuzz_support.h"
#include "output/json/fleet_json.h"
#include "output/text/fleet_text.h"
#include "rules/fleet/fleet_audit.h"
#include "sources/fleet/fleet_reports.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  Result<FleetReportFile> r = ParseFleetReport(fuzz::AsText(data, size), "fuzz.json");
  Result<FleetReportFile> dom = ParseFleetReportWithDom(fuzz::AsText(data, size), "fuzz.json");
  if (r.ok() != dom.ok()) std::abort();
  if (r.ok() ? DescribeFleetReportFile(*r) != DescribeFleetReportFile(*dom)
             : r.status().message() != dom.status().message()) {
    std::abort();
  }
  if (!r.ok()) return 0;
  std::vector<FleetReportFile> reports;
  reports.push_back(std::move(r).value());
  // --now 2025-01-18T00:00:00Z and a 7-day window, as the fleet fixtures use.
  FleetInput input = BuildFleetFromReports(std::move(reports), 1737158400, 7 * 86400);
  static const Policy policy;
  FleetReport report = AuditFleet(input, policy);
  // The streamed JSON renderer writes what the nlohmann DOM one does, byte for byte.
  if (RenderFleetJson(report, 0) != RenderFleetJsonWithDom(report, 0)) std::abort();
  RenderFleetText(report, false);
  return 0;
}
