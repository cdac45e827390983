// The environment variables that decide which GPUs a job sees (NVIDIA_VISIBLE_DEVICES,
// CUDA_VISIBLE_DEVICES, …): from an --env-file, the inspected process's /proc/PID/environ, a
// fixture tree's /proc/self/environ, or gpuvet's own environment. Only those variables are kept.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>

#include "core/host_paths.h"
#include "core/host_state.h"
#include "util/status.h"

namespace gpuvet {

// The variables kept: GPU visibility, driver capabilities, device order, and container markers
// ("container" set by podman/systemd-nspawn/LXC, KUBERNETES_SERVICE_HOST in every pod).
std::span<const std::string_view> GpuEnvironmentVariables();

// Parses an environment: NUL-separated "KEY=VALUE" records (/proc/PID/environ) when the text
// holds a NUL, else lines as in `docker run --env-file` ("KEY=VALUE", optional "export ",
// "# comments", blank lines, a value in matching quotes unquoted; a bare "KEY" line, which docker
// fills from its own environment, is skipped). Keeps only GpuEnvironmentVariables(). InvalidInput
// naming `shown_path` and the line for a line whose key is not a valid variable name.
Result<std::map<std::string, std::string>> ParseEnvironment(std::string_view text,
                                                            std::string_view shown_path);

// Reads the environment to check: `env_file` when not empty; else /proc/PID/environ for pid > 0;
// else, on a fixture tree, its /proc/self/environ; else gpuvet's own environment. An unreadable
// source becomes an Error reading naming it (permission denied on another user's process says
// so); a fixture tree without the file gives Unsupported.
GpuEnvironment ReadGpuEnvironment(const HostPaths& paths, int pid, const std::string& env_file);

}  // namespace gpuvet
