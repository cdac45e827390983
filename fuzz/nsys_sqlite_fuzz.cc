// Fuzz target: an Nsight Systems SQLite export. The input is an SQL script (seeds: the synthetic
// exports' make_synthetic.sql) run into an in-memory database that is then written out, so
// mutations reach the timestamps, ids and string table the reader trusts; then every trace
// analysis and both renderers.
#include <cstddef>
#include <cstdint>

#include "analysis/trace/analyze.h"
#include "fuzz_support.h"
#include "output/json/trace_json.h"
#include "output/text/trace_text.h"
#include "sources/trace/trace_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  std::string path = fuzz::SqlScriptToDatabase(fuzz::AsText(data, size), ".sqlite");
  if (path.empty()) return 0;
  Result<TraceInput> input = ReadTraceInput(path);
  if (!input.ok()) return 0;
  TraceReport report = AnalyzeTraces(std::move(input.value().ranks), TraceOptions{});
  RenderTraceJson(report);
  RenderTraceText(report, false);
  return 0;
}
