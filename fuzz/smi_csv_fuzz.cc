// Fuzz target: an `nvidia-smi --query-gpu --format=csv` log through the importer, the recording
// analysis and both renderers.
#include <cstddef>
#include <cstdint>

#include "analysis/recording/recording_analyze.h"
#include "fuzz_support.h"
#include "output/json/analyze_json.h"
#include "output/text/analyze_text.h"
#include "sources/recording/smi_log_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  SmiImportOptions options;
  options.source_name = "fuzz";
  Result<Recording> rec = ParseQueryCsvLog(fuzz::AsText(data, size), options);
  if (!rec.ok()) return 0;
  AnalyzeReport report = AnalyzeRecording(*rec, AnalyzeOptions{});
  RenderAnalyzeJson(report);
  RenderAnalyzeText(report, false);
  return 0;
}
