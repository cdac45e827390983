// CPU sources: how many CPUs are online and which cpufreq governor each uses, from
// /sys/devices/system/cpu. A VM or container often exposes no cpufreq at all; that is noted, not an
// error.
#pragma once

#include <string>
#include <string_view>

#include "core/host_paths.h"
#include "core/host_state.h"
#include "util/status.h"

namespace gpuvet {

// Number of CPUs in the text of /sys/devices/system/cpu/online ("0-63", "0-3,8-11").
// InvalidInput for a garbled or empty list.
Result<int> ParseOnlineCpuCount(std::string_view text);

// Validates a scaling_governor attribute ("performance\n" -> "performance"). InvalidInput when it
// is empty or not one word of [a-z0-9_-].
Result<std::string> ParseGovernor(std::string_view text);

// Reads /sys/devices/system/cpu/online. Error with the path and reason when unreadable or garbled.
Reading<int> ReadOnlineCpus(const HostPaths& paths);

// Reads cpuN/cpufreq/scaling_governor for every cpuN directory and groups CPUs by governor.
// Offline CPUs (no cpufreq directory) are left out. When no CPU exposes a governor, `governors` is
// empty and `note` says why (cpufreq not exposed, or the first read error).
CpuFreqState ReadCpuFreq(const HostPaths& paths);

}  // namespace gpuvet
