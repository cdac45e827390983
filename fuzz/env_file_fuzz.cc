// Fuzz target: an environment file (`--env-file`: docker env-file lines or NUL-separated environ
// records) through its reader, the container/visibility rules and every renderer.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "sources/host/gpu_environment.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  std::string path = fuzz::WriteScratchFile(fuzz::AsText(data, size), ".env");
  CheckReport report;
  report.host.container.env = ReadGpuEnvironment(HostPaths(), 0, path);
  fuzz::JudgeAndRender(report);
  return 0;
}
