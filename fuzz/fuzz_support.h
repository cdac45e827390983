// Helpers the fuzz targets share: a per-process scratch file for readers that take a path, an
// SQLite database built from an SQL script (so mutations reach the numbers and strings of an
// Nsight export or a recording instead of breaking its page structure), and the check pipeline
// (rules and every renderer) that a parsed input must survive (JudgeAndRender: fuzz_check.cc,
// the rest: fuzz_io.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/report.h"

namespace gpuvet::fuzz {

// The bytes libFuzzer hands a target, as a string_view.
inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Writes `bytes` to this process's scratch file whose name ends in `suffix` (under $TMPDIR, or
// /dev/shm when present, else /tmp) and returns its path. The file is rewritten on each call;
// aborts when it cannot be written (a broken harness must not look like a clean run).
std::string WriteScratchFile(std::string_view bytes, std::string_view suffix);

// Executes `sql` (errors ignored: a mutated script still leaves what its valid statements made)
// in an in-memory database with bounded work and size, then writes that database to the scratch
// file ending in `suffix` and returns its path. "" when nothing could be written.
std::string SqlScriptToDatabase(std::string_view sql, std::string_view suffix);

// Runs every check rule over `report` with the built-in policy, then renders it as JSON, text
// and the Prometheus textfile. A renderer that throws escapes (libFuzzer reports the abort).
void JudgeAndRender(CheckReport& report);

}  // namespace gpuvet::fuzz
