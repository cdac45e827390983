// One-rule runners for rule tests (see rule_check.h).
#include "testing/rule_check.h"

#include "testing/gpu_builders.h"

namespace gpuvet::test {

std::vector<Finding> RunCheck(RuleFn rule, const HostState& host, const GpuInventory& gpus,
                              const Policy& policy) {
  std::vector<Finding> out;
  rule(CheckInput{host, gpus}, policy, out);
  return out;
}

std::vector<Finding> RunCheckOnGpu(RuleFn rule, const GpuState& gpu, const Policy& policy) {
  return RunCheck(rule, HostState{}, InventoryOf({gpu}), policy);
}

}  // namespace gpuvet::test
