// Fuzz target: a gzip-compressed Kineto trace (.json.gz: corrupt, cut or trailing bytes) through
// the real input path (sniffing, the streaming reader), every trace analysis and both renderers.
#include <cstddef>
#include <cstdint>

#include "analysis/trace/analyze.h"
#include "fuzz_support.h"
#include "output/json/trace_json.h"
#include "output/text/trace_text.h"
#include "sources/trace/trace_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  std::string path = fuzz::WriteScratchFile(fuzz::AsText(data, size), ".json.gz");
  Result<TraceInput> input = ReadTraceInput(path);
  if (!input.ok()) return 0;
  TraceReport report = AnalyzeTraces(std::move(input.value().ranks), TraceOptions{});
  RenderTraceJson(report);
  RenderTraceText(report, false);
  return 0;
}
