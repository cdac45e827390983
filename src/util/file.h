// Whole-file reads with errors as values, and the one place gpuvet opens a file to read it.
// Sources use these for /proc and /sys, which report errors in ways a plain ifstream hides
// (EACCES, ENODEV from a GPU that left the bus, EIO). Every read is bounded, and a FIFO, device or
// socket where a file is expected is refused without blocking: a fixture tree (--root) or a
// hostile host can put one at any path, and reading it would hang `check` forever.
#pragma once

#include <cstddef>
#include <string>

#include "util/status.h"

namespace gpuvet {

// Cap for one sysfs/procfs attribute. A sysfs show() writes at most one page (4 KiB on x86-64,
// up to 64 KiB on arm64 kernels built with 64 KiB pages), so 64 KiB holds every attribute whole.
inline constexpr size_t kAttributeReadCap = size_t{64} << 10;

// Default cap for larger text: saved kernel logs, nvidia-smi captures, reports, maps. Callers
// reading procfs tables pass their own smaller caps (1 MiB for /proc/stat, meminfo, mountinfo).
inline constexpr size_t kDefaultReadCap = size_t{64} << 20;

// What may stand at a path that is read.
enum class FileKinds {
  kRegular,        // regular files only (every host path: sysfs and procfs attributes are regular)
  kRegularOrPipe,  // also a FIFO or pipe: a path the user named (`--policy <(...)`), read to EOF
};

// Opens `path` for reading without blocking (O_RDONLY|O_NONBLOCK|O_NOCTTY|O_CLOEXEC) after
// checking with stat() and again with fstat() that it is a regular file (or, with
// kRegularOrPipe, a FIFO: then opened blocking, as the user asked to read it). A directory,
// character or block device, socket, or (with kRegular) FIFO is refused with InvalidInput naming
// the path and what is there. Errno mapping as for ReadFile. The caller owns the returned fd.
Result<int> OpenForReading(const std::string& path, FileKinds kinds = FileKinds::kRegular);

// Reads at most `max_bytes` of `path` (the first `max_bytes` when it is longer), opened with
// OpenForReading. NotFound for ENOENT/ENOTDIR, PermissionDenied for EACCES/EPERM, InvalidInput
// for a path that is not a file of `kinds`, Unavailable for other errors (the message names the
// path and errno text).
Result<std::string> ReadFile(const std::string& path, size_t max_bytes = kDefaultReadCap,
                             FileKinds kinds = FileKinds::kRegular);

// ReadFile into `out` (replaced; its storage is reused, so a loop over many files allocates only
// for a file larger than all before it). `out` is empty on error.
Status ReadFileInto(const std::string& path, size_t max_bytes, std::string& out,
                    FileKinds kinds = FileKinds::kRegular);

// Reads a one-line sysfs/proc attribute (at most kAttributeReadCap) and trims it.
Result<std::string> ReadAttribute(const std::string& path);

// True when `path` exists (any type), without following a dangling final symlink as missing.
// Never opens it: device nodes under dev/ are checked for existence and type, never read.
bool PathExists(const std::string& path);

// Writes `contents` to `path` atomically (temp file in the same directory, fsync, rename).
Status WriteFileAtomic(const std::string& path, const std::string& contents);

}  // namespace gpuvet
