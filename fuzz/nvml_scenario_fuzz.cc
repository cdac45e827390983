// Fuzz target: a fake-NVML scenario JSON (docs/nvml-scenario.md) parsed and written back.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "sources/nvml/scenario_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  auto scenario = ParseScenario(fuzz::AsText(data, size), "fuzz.json");
  if (!scenario.ok()) return 0;
  WriteScenario(*scenario);
  return 0;
}
