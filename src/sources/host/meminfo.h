// Memory sources: /proc/meminfo totals and pressure stall information (/proc/pressure/*), which
// says how much time tasks lost waiting for memory, CPU or I/O.
#pragma once

#include <optional>
#include <string_view>

#include "core/host_paths.h"
#include "core/host_state.h"
#include "util/status.h"

namespace gpuvet {

// Parses /proc/meminfo text ("MemTotal:  263736528 kB" lines; kB are KiB, converted to bytes).
// A key that is absent is Unsupported (MemAvailable is missing before Linux 3.14); a value that is
// not "<number> kB" is an Error naming `path` and the line number.
MemInfo ParseMeminfo(std::string_view text, std::string_view path);

// Parses one PSI line after its kind word: "avg10=0.00 avg60=1.50 avg300=0.00 total=12345".
// InvalidInput for a missing or non-numeric field.
Result<PsiLine> ParsePsiLine(std::string_view fields);

// One /proc/pressure/RESOURCE file: its "some" and "full" lines (cpu has no "full" line before
// Linux 5.13).
struct PsiFile {
  std::optional<PsiLine> some;
  std::optional<PsiLine> full;
};

// Parses a whole pressure file. InvalidInput naming the line for anything but some/full lines.
Result<PsiFile> ParsePsiFile(std::string_view text);

// Reads /proc/meminfo. All fields Error (with the reason) when the file cannot be read.
MemInfo ReadMeminfo(const HostPaths& paths);

// Reads /proc/pressure/{cpu,memory,io}. Unsupported when PSI is absent (kernel without
// CONFIG_PSI, or booted with psi=0); Error naming the file when a read or parse fails.
PsiState ReadPsi(const HostPaths& paths);

}  // namespace gpuvet
