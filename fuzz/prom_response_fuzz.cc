// Fuzz target: a Prometheus HTTP API response body (/api/v1/query, query_range).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "sources/fleet/prometheus_client.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  auto series = ParsePromResponse(fuzz::AsText(data, size));
  if (!series.ok()) return 0;
  for (const PromSeries& s : *series) s.Label("instance");
  return 0;
}
