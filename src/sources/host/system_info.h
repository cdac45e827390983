// System identity: hostname, kernel release, uptime and the loaded NVIDIA kernel module version,
// from /proc. The module version is what the kernel runs, which can differ from the user-space
// libraries after an upgrade without a reboot.
#pragma once

#include <string>
#include <string_view>

#include "core/host_paths.h"
#include "core/reading.h"
#include "util/status.h"

namespace gpuvet {

struct SystemInfo {
  Reading<std::string> hostname;               // /proc/sys/kernel/hostname
  Reading<std::string> kernel_release;         // /proc/sys/kernel/osrelease
  Reading<double> uptime_s;                    // first field of /proc/uptime
  Reading<std::string> nvidia_module_version;  // "550.90.07"
};

// Extracts the version from /proc/driver/nvidia/version: the first dotted number on the
// "NVRM version:" line, e.g. "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Thu May…"
// or "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build…".
// InvalidInput when there is no such line or no version on it.
Result<std::string> ParseNvidiaModuleVersion(std::string_view text);

// Parses /proc/uptime ("12345.67 54321.00") -> seconds since boot. InvalidInput on garbage.
Result<double> ParseUptime(std::string_view text);

// Reads all SystemInfo fields. The module version is Unsupported when the file is absent
// ("nvidia kernel module not loaded (/proc/driver/nvidia/version absent)"); other failures are
// Errors naming the file.
SystemInfo ReadSystemInfo(const HostPaths& paths);

}  // namespace gpuvet
