// Fuzz target: one JSON document as `gpuvet report` reads it (any schema it knows: check, bench,
// trace, trace_compare, analyze, fleet) through the schema's strict reader and the HTML page.
// A document the reader accepts must render; one it refuses must say why.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "fuzz_support.h"
#include "output/html/html_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  std::map<std::string, int> ids;
  Result<html::Section> s =
      html::SectionFromJsonText(std::string(fuzz::AsText(data, size)), "fuzz.json", nullptr, ids);
  if (!s.ok()) {
    if (s.status().message().empty()) std::abort();
    return 0;
  }
  if (html::RenderReportPage({*s}, "2026-01-01T00:00:00Z").empty()) std::abort();
  return 0;
}
