// Fuzz target: a recording file (SQLite, docs/recording.md). The input is an SQL script (seeds:
// `.dump`s of test recordings) run into an in-memory database written out as the file, so
// mutations reach the metadata and the packed sample blobs; then both ways a recording is read —
// whole (ReadRecording, as `report` did) and streamed (AnalyzeRecordingFile: the cursor's passes,
// as `analyze` does, with the HTML timeline) — the recording analysis, text, JSON and the page.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "analysis/recording/recording_analyze.h"
#include "cli/record/analyze_command.h"
#include "fuzz_support.h"
#include "output/html/html_report.h"
#include "output/html/html_timeline.h"
#include "output/json/analyze_json.h"
#include "output/text/analyze_text.h"
#include "sources/recording/recording_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  std::string path = fuzz::SqlScriptToDatabase(fuzz::AsText(data, size), ".gpuvet");
  if (path.empty()) return 0;
  Result<Recording> rec = ReadRecording(path);
  if (rec.ok()) {
    AnalyzeReport report = AnalyzeRecording(*rec, AnalyzeOptions{});
    RenderAnalyzeJson(report);
    RenderAnalyzeText(report, false);
  }
  html::Timeline timeline;
  Result<AnalyzeReport> streamed = AnalyzeRecordingFile(path, AnalyzeOptions{}, &timeline);
  if (!streamed.ok()) return 0;
  // The page reads the JSON back strictly: a document gpuvet wrote must always make a page.
  Result<std::string> page = html::RenderHtmlFromJson(RenderAnalyzeJson(*streamed), path, &timeline,
                                                      "2026-01-01T00:00:00Z");
  if (!page.ok()) std::abort();
  RenderAnalyzeText(*streamed, false);
  return 0;
}
