// Whole-file reads with errors as values. Sources use these for /proc and /sys, which report
// errors in ways a plain ifstream hides (EACCES, ENODEV from a GPU that left the bus, EIO).
#pragma once

#include <string>

#include "util/status.h"

namespace gpuvet {

// Reads at most `max_bytes` of `path`. NotFound for ENOENT/ENOTDIR, PermissionDenied for
// EACCES/EPERM, Unavailable for other errors (the message names the path and errno text).
Result<std::string> ReadFile(const std::string& path, size_t max_bytes = 64 << 20);

// Reads a one-line sysfs/proc attribute and trims it.
Result<std::string> ReadAttribute(const std::string& path);

// True when `path` exists (any type), without following a dangling final symlink as missing.
bool PathExists(const std::string& path);

// Writes `contents` to `path` atomically (temp file in the same directory, fsync, rename).
Status WriteFileAtomic(const std::string& path, const std::string& contents);

}  // namespace gpuvet
