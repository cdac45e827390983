// Fuzz target: a recording file (SQLite, docs/recording.md). The input is an SQL script (seeds:
// `.dump`s of test recordings) run into an in-memory database written out as the file, so
// mutations reach the metadata and the packed sample blobs; then the recording analysis and both
// renderers.
#include <cstddef>
#include <cstdint>

#include "analysis/recording/recording_analyze.h"
#include "fuzz_support.h"
#include "output/analyze_json.h"
#include "output/analyze_text.h"
#include "sources/recording/recording_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  std::string path = fuzz::SqlScriptToDatabase(fuzz::AsText(data, size), ".gpuvet");
  if (path.empty()) return 0;
  Result<Recording> rec = ReadRecording(path);
  if (!rec.ok()) return 0;
  AnalyzeReport report = AnalyzeRecording(*rec, AnalyzeOptions{});
  RenderAnalyzeJson(report);
  RenderAnalyzeText(report, false);
  return 0;
}
