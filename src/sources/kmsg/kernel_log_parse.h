// Internal to the kernel log source: the line parser that also reports which format most lines
// are in, so the reader can name the format of a saved log without parsing it twice.
#pragma once

#include <string_view>
#include <vector>

#include "core/host_state.h"
#include "sources/kmsg/kernel_log.h"

namespace gpuvet::kernel_log_internal {

// ParseKernelLog(text), also setting `*dominant` to the format most recognised lines are in
// (kUnknown when none is recognised). `dominant` must not be null.
std::vector<KernelLogRecord> ParseKernelLogWithFormat(std::string_view text,
                                                      KernelLogFormat* dominant);

}  // namespace gpuvet::kernel_log_internal
