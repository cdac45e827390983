// JSON rendering of a check report (schema gpuvet.check/v1, documented in docs/json-schema.md).
// Keys are sorted and no value depends on the clock except `generated_at` (set by --now in tests).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/finding.h"
#include "core/reading.h"
#include "core/report.h"

namespace gpuvet {

// The whole report as a JSON document (pretty-printed, trailing newline).
std::string RenderJson(const CheckReport& report);

// A measured value as JSON: the value, or null when it is not supported or could not be read (the
// findings say why). Shared by every JSON renderer.
template <typename T>
nlohmann::json ReadingToJson(const Reading<T>& r) {
  return r.has() ? nlohmann::json(r.value) : nlohmann::json(nullptr);
}

// One finding as JSON; shared with other reports that carry findings.
nlohmann::json FindingToJson(const Finding& f);

// The processes NVML listed on `gpu` (PID order), each with its owner from `owners` (fields null
// where unknown): [{"pid", "used_memory_bytes", "name", "uid", "user", "slurm_job",
// "slurm_job_from", "pod_uid", "container_id", "container_runtime", "qos", "cgroup", "note"}].
nlohmann::json GpuProcessesToJson(const GpuState& gpu, const std::vector<GpuProcessOwner>& owners);

}  // namespace gpuvet
