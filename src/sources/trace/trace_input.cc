// Trace input discovery and dispatch to the Kineto and Nsight readers.
#include "sources/trace/trace_input.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <utility>

#include "sources/trace/kineto_reader.h"
#include "sources/trace/nsys_reader.h"
#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace fs = std::filesystem;

TraceFormat SniffTraceFormat(const std::string& path) {
  // The first 64 bytes, through the one bounded reader (a FIFO or device is refused, never read).
  Result<std::string> head = ReadFile(path, 64);
  if (!head.ok() || head->empty()) return TraceFormat::kUnknown;
  const auto* buf = reinterpret_cast<const unsigned char*>(head->data());
  const ssize_t n = static_cast<ssize_t>(head->size());
  if (n >= 16 && std::memcmp(buf, "SQLite format 3", 16) == 0) return TraceFormat::kNsysSqlite;
  if (n >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) return TraceFormat::kKinetoJson;  // gzip
  for (ssize_t i = 0; i < n; ++i) {
    unsigned char c = buf[i];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == 0xef && i + 2 < n && buf[i + 1] == 0xbb && buf[i + 2] == 0xbf) {  // UTF-8 BOM
      i += 2;
      continue;
    }
    return (c == '{' || c == '[') ? TraceFormat::kKinetoJson : TraceFormat::kUnknown;
  }
  return TraceFormat::kUnknown;
}

namespace {

// The ranks in one file: one for a Kineto trace, one per process/device for an nsys export.
Result<std::vector<RankTrace>> ReadOne(const std::string& path) {
  switch (SniffTraceFormat(path)) {
    case TraceFormat::kKinetoJson: {
      Result<RankTrace> one = ReadKinetoTrace(path);
      if (!one.ok()) return one.status();
      std::vector<RankTrace> ranks;
      ranks.push_back(std::move(one).value());
      return ranks;
    }
    case TraceFormat::kNsysSqlite:
      return ReadNsysSqlite(path);
    case TraceFormat::kUnknown:
      break;
  }
  if (::access(path.c_str(), R_OK) != 0) {
    return NotFound(path + ": " + std::strerror(errno));
  }
  return InvalidInput(path +
                      ": not a trace gpuvet reads (expected PyTorch profiler JSON, .json.gz, or "
                      "an `nsys export --type sqlite` file)");
}

// Files in a directory that look like traces by name; content decides the reader.
bool LooksLikeTraceFile(const std::string& name) {
  return EndsWith(name, ".json") || EndsWith(name, ".json.gz") || EndsWith(name, ".sqlite") ||
         EndsWith(name, ".gz");
}

}  // namespace

Result<TraceInput> ReadTraceInput(const std::string& path) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return NotFound(path + ": no such file or directory");
  TraceInput input;
  if (!fs::is_directory(st)) {
    // A FIFO would block the format sniff (and a pipe cannot be read twice): files only.
    if (!fs::is_regular_file(st)) {
      const char* kind = fs::is_fifo(st)             ? "a FIFO or pipe"
                         : fs::is_character_file(st) ? "a character device"
                         : fs::is_block_file(st)     ? "a block device"
                         : fs::is_socket(st)         ? "a socket"
                                                     : "not a regular file";
      return InvalidInput(path + ": " + kind +
                          ", not a trace file: save the trace to a file and pass its path");
    }
    if (fs::file_size(path, ec) == 0 && !ec)
      return InvalidInput(path + ": empty file, not a trace");
    Result<std::vector<RankTrace>> one = ReadOne(path);
    if (!one.ok()) return one.status();
    input.ranks = std::move(one).value();
    return input;
  }
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
    if (e.is_regular_file(ec) && LooksLikeTraceFile(e.path().filename().string())) {
      files.push_back(e.path().string());
    }
  }
  if (ec) return Unavailable(path + ": cannot list directory: " + ec.message());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    Result<std::vector<RankTrace>> r = ReadOne(f);
    if (r.ok()) {
      for (RankTrace& t : r.value()) input.ranks.push_back(std::move(t));
    } else {
      input.problems.push_back(r.status().message());
    }
  }
  if (input.ranks.empty()) {
    if (!input.problems.empty()) return InvalidInput(Join(input.problems, "; "));
    return InvalidInput(path + ": no trace files (*.json, *.json.gz, *.sqlite) in this directory");
  }
  std::stable_sort(input.ranks.begin(), input.ranks.end(),
                   [](const RankTrace& a, const RankTrace& b) {
                     if (a.rank != b.rank) return a.rank < b.rank;
                     return a.source < b.source;
                   });
  return input;
}

}  // namespace gpuvet
