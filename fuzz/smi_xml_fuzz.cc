// Fuzz target: a saved `nvidia-smi -q -x` capture, judged by every rule and rendered.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "sources/nvml/nvidia_smi_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  auto inv = ParseNvidiaSmiXml(fuzz::AsText(data, size), "fuzz.xml");
  if (!inv.ok()) return 0;
  CheckReport report;
  report.gpus = std::move(inv).value();
  fuzz::JudgeAndRender(report);
  return 0;
}
