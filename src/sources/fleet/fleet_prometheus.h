// Builds the fleet model from Prometheus scraping `gpuvet exporter` (the metric contract in
// docs/metrics.md): node and GPU identity from gpuvet_node_info / gpuvet_gpu_info, link state,
// ECC counters and throttle reasons over the window, failing checks from gpuvet_check_status.
// Benchmarks are not exported, so bench regressions need --reports.
#pragma once

#include "core/fleet.h"
#include "sources/fleet/prometheus_client.h"
#include "util/status.h"

namespace gpuvet {

// The range-query step for a window: about 500 points, at least 1 s (Prometheus refuses more
// than 11,000 points per series).
double FleetQueryStep(double window_s);

// Queries `client` for the window [now − window_s, now]. Any failed query is an error (a partial
// picture of the fleet would hide nodes); no gpuvet_node_info series at all is InvalidInput.
Result<FleetInput> ReadFleetFromPrometheus(PrometheusClient& client, double now, double window_s);

}  // namespace gpuvet
