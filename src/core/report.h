// CheckReport: everything `gpuvet check` learned, handed to the renderers. Renderers see only this.
#pragma once

#include <string>
#include <vector>

#include "core/finding.h"
#include "core/gpu_state.h"
#include "core/host_state.h"

namespace gpuvet {

inline constexpr const char* kCheckSchema = "gpuvet.check/v1";

struct CheckReport {
  std::string gpuvet_version;
  std::string generated_at;   // ISO 8601 UTC, from the clock or --now
  std::string policy_source;  // "built-in defaults" or the policy file path
  HostState host;
  GpuInventory gpus;
  std::vector<Finding> findings;  // sorted: area order of the catalogue, then subject, then id
  Severity verdict = Severity::kOk;
};

// Process exit codes of `gpuvet check` (documented in README and docs/exit-codes.md).
inline constexpr int kExitHealthy = 0;    // no fail (warnings and unknowns allowed)
inline constexpr int kExitUnhealthy = 1;  // at least one fail
inline constexpr int kExitUsage = 2;      // bad flags, unreadable or malformed input
inline constexpr int kExitInternal = 3;   // a bug: an escaped exception or impossible state

}  // namespace gpuvet
