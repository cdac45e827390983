// Test helpers for the Nsight Systems reader tests: synthetic exports built at test time from
// tests/data/nsys/make_synthetic.sql with the sqlite3 C API (no binary is checked in), in a
// directory of the running test's own, and one-line-per-element views of a RankTrace so a
// mismatch shows exactly which field differs.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/trace/trace.h"
#include "sources/trace/nsys_reader.h"
#include "util/status.h"

namespace gpuvet::nsys_test {

namespace fs = std::filesystem;

// A directory of this test's own: ctest runs every test as its own process, in parallel, so a
// shared path would let two tests build the same database at once.
inline fs::path TestDir() {
  const char* base = std::getenv("GPUVET_TEST_TMPDIR");
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string leaf = "nsys-" + std::to_string(::getpid());
  if (info != nullptr) leaf += std::string("-") + info->test_suite_name() + "." + info->name();
  fs::path dir = (base != nullptr ? fs::path(base) : fs::path(::testing::TempDir())) / leaf;
  fs::create_directories(dir);
  return dir;
}

inline std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteText(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// The SQL of export `name` from make_synthetic.sql: the lines after "-- @@export <name>" up to
// the next marker.
inline std::string ExportSql(const std::string& name) {
  std::istringstream in(
      ReadText(fs::path(GPUVET_SOURCE_DIR) / "tests/data/nsys/make_synthetic.sql"));
  std::string line, sql;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("-- @@export ", 0) == 0) {
      inside = line == "-- @@export " + name;
      continue;
    }
    if (inside) sql += line + "\n";
  }
  return sql;
}

// Builds `<tmp>/<file>` from `sql` (replacing any earlier copy) and returns its path.
inline std::string BuildDb(const std::string& file, const std::string& sql) {
  fs::path path = TestDir() / file;
  fs::remove(path);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err != nullptr ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return path.string();
}

inline std::string BuildExport(const std::string& name) {
  std::string sql = ExportSql(name);
  EXPECT_FALSE(sql.empty()) << "no '-- @@export " << name << "' section";
  return BuildDb(name + ".sqlite", sql);
}

// The only trace of a single-process, single-device export (errors pass through).
inline Result<RankTrace> ReadSingle(const std::string& path) {
  auto r = ReadNsysSqlite(path);
  if (!r.ok()) return r.status();
  EXPECT_EQ(r->size(), 1u) << path;
  if (r->size() != 1) return Internal(path + ": " + std::to_string(r->size()) + " traces");
  return std::move(r->front());
}

inline const char* OpKind(GpuOpKind k) {
  switch (k) {
    case GpuOpKind::kKernel:
      return "kernel";
    case GpuOpKind::kMemcpy:
      return "memcpy";
    case GpuOpKind::kMemset:
      return "memset";
  }
  return "?";
}

inline const char* Copy(CopyKind k) {
  constexpr const char* kNames[] = {"-", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "other"};
  return kNames[static_cast<int>(k)];
}

inline const char* Mem(MemKind k) {
  constexpr const char* kNames[] = {"?", "pageable", "pinned", "device", "managed", "array"};
  return kNames[static_cast<int>(k)];
}

inline const char* Runtime(RuntimeKind k) {
  constexpr const char* kNames[] = {"launch",       "graph_launch", "memcpy",
                                    "memcpy_async", "memset",       "device_sync",
                                    "stream_sync",  "event_sync",   "other"};
  return kNames[static_cast<int>(k)];
}

// One line per element, so a mismatch shows exactly which field differs.
inline std::vector<std::string> Ops(const RankTrace& t) {
  std::vector<std::string> out;
  for (const GpuOp& o : t.gpu_ops) {
    out.push_back(std::string(OpKind(o.kind)) + " " + std::to_string(o.start_ns) + "+" +
                  std::to_string(o.dur_ns) + " dev" + std::to_string(o.device) + " s" +
                  std::to_string(o.stream) + " c" + std::to_string(o.correlation) + " " +
                  std::to_string(o.bytes) + "B " + Copy(o.copy) + " " + Mem(o.src) + ">" +
                  Mem(o.dst) + (o.graph_launched ? " graph" : "") + " | " + t.Name(o.name));
  }
  return out;
}

inline std::vector<std::string> Calls(const RankTrace& t) {
  std::vector<std::string> out;
  for (const RuntimeCall& c : t.runtime) {
    out.push_back(std::to_string(c.start_ns) + "+" + std::to_string(c.dur_ns) + " t" +
                  std::to_string(c.tid) + " c" + std::to_string(c.correlation) + " " +
                  Runtime(c.kind) + " | " + t.Name(c.name));
  }
  return out;
}

inline std::vector<std::string> Ranges(const RankTrace& t, const std::vector<TraceRange>& ranges) {
  std::vector<std::string> out;
  for (const TraceRange& r : ranges) {
    out.push_back(std::to_string(r.start_ns) + "+" + std::to_string(r.dur_ns) + " t" +
                  std::to_string(r.tid) + " | " + t.Name(r.name));
  }
  return out;
}

inline bool AnyWarningHas(const RankTrace& t, const std::string& text) {
  for (const std::string& w : t.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace gpuvet::nsys_test
