// Fuzz target: a saved plain `nvidia-smi -q` capture, judged by every rule and rendered.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "sources/nvml/nvidia_smi_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  auto inv = ParseNvidiaSmiText(fuzz::AsText(data, size), "fuzz.txt");
  if (!inv.ok()) return 0;
  CheckReport report;
  report.gpus = std::move(inv).value();
  fuzz::JudgeAndRender(report);
  return 0;
}
