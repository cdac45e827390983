// Runs one rule over hand-built measurements, as RunRules would but without the other rules, the
// skip list or the severity overrides, so a rule test sees exactly what its rule emitted.
#pragma once

#include <vector>

#include "core/finding.h"
#include "core/gpu_state.h"
#include "core/host_state.h"
#include "core/policy.h"
#include "rules/rules.h"

namespace gpuvet::test {

// The findings `rule` emits for `host` and `gpus` under `policy`.
std::vector<Finding> RunCheck(RuleFn rule, const HostState& host, const GpuInventory& gpus,
                              const Policy& policy = Policy{});

// The findings `rule` emits for an inventory (state kOk) holding only `gpu`, on an empty host.
std::vector<Finding> RunCheckOnGpu(RuleFn rule, const GpuState& gpu,
                                   const Policy& policy = Policy{});

}  // namespace gpuvet::test
