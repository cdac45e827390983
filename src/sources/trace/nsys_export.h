// An open Nsight Systems export as the nsys reader sees it: which tables and columns this nsys
// version wrote, SELECTs built from them (a column the table lacks reads as NULL), row scans that
// keep what was read when they meet corruption, enum ids translated through the export's own
// ENUM_ tables, and StringIds resolved one id at a time into the names of the trace being filled.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/trace/trace.h"
#include "sources/trace/nsys_kinds.h"
#include "sources/trace/nsys_sqlite.h"
#include "util/status.h"

namespace gpuvet {

// Rows a table scan skipped or adjusted, reported as one warning per table.
struct RowProblems {
  uint64_t no_time = 0;     // start or end NULL, or end - start overflows: skipped
  uint64_t end_before = 0;  // end < start: kept with duration 0
};

// Not thread-safe. Names, warnings (each prefixed with the file path) and events_seen go to the
// RankTrace given at construction, which must outlive this object.
class NsysExport {
 public:
  NsysExport(SqliteDb db, RankTrace* trace);

  // Lists the export's ordinary tables. Errors name the file.
  Status ListTables();
  const std::set<std::string>& tables() const { return tables_; }
  bool Has(const std::string& table) const { return tables_.count(table) > 0; }
  // True when `table` exists and has column `col` (columns are read once per table).
  bool HasColumn(const std::string& table, std::string_view col);
  // The first of `cols` that `table` has, or "" when it has none.
  std::string FirstColumn(const std::string& table, std::initializer_list<std::string_view> cols);
  // "SELECT c1, NULL, c3 FROM table": columns in the given order, NULL for absent or empty ones,
  // so a row's column indices do not depend on the nsys version.
  std::string Select(const std::string& table, std::initializer_list<std::string_view> cols);

  // Steps through `sql`, calling on_row(const SqliteStatement&) for each row; each row counts in
  // events_seen when `events`. Corruption (or, in a truncated file, any error) ends the scan with
  // a warning naming `table` and the rows read, and returns Ok; other errors are returned.
  template <typename OnRow>
  Status Scan(const std::string& table, const std::string& sql, OnRow on_row, bool events = true);

  // Export id -> documented id for the enum in ENUM_ table `table` (matched by symbol name); an
  // empty vector when the table is absent, meaning the export's ids are the documented ones.
  std::vector<int> LoadEnumRemap(const std::string& table, NsysEnum which);
  // The documented id of the enum value in column `col` (-1 when NULL or unknown).
  static int Remap(const std::vector<int>& remap, const SqliteStatement& row, int col);

  // Start (column 0) and duration (column 1 minus column 0) of a row; false, counted in `p`, when
  // the row has no usable times. A negative duration becomes 0, also counted.
  static bool ReadSpan(const SqliteStatement& row, int64_t* start, int64_t* dur, RowProblems* p);
  void ReportProblems(const std::string& table, const RowProblems& p);

  // Index of `s` in the trace's names, adding it once.
  uint32_t Intern(std::string_view s);
  // Name index of column `col`: a StringIds id, or inline text in exports that store it so; 0 ("")
  // for NULL.
  uint32_t NameAt(const SqliteStatement& row, int col);
  // Name index of StringIds id `id`; "string#<id>" (counted, warned by Finish) when not found.
  uint32_t StringName(int64_t id);

  void Warn(const std::string& what);
  // Adds the warnings gathered over the whole read (unresolved string ids).
  void Finish();
  // True once a scan stopped on corruption.
  bool corrupt() const { return corrupt_; }
  const std::string& path() const { return db_.path(); }
  RankTrace& trace() { return t_; }

 private:
  SqliteDb db_;
  RankTrace& t_;
  std::set<std::string> tables_;
  std::map<std::string, std::vector<std::string>> columns_;  // filled on first use per table
  std::unordered_multimap<size_t, uint32_t> interned_;       // hash -> index into t_.names
  std::unordered_map<int64_t, uint32_t> string_ids_;         // StringIds id -> name index
  std::optional<SqliteStatement> string_lookup_;
  uint64_t unresolved_strings_ = 0;
  bool corrupt_ = false;
};

// `message` without a leading "<path>: ", for nesting one message in another.
std::string WithoutPath(const std::string& path, const std::string& message);

template <typename OnRow>
Status NsysExport::Scan(const std::string& table, const std::string& sql, OnRow on_row,
                        bool events) {
  auto stmt = db_.Prepare(sql);
  uint64_t rows = 0;
  Status error = stmt.ok() ? Status::Ok() : stmt.status();
  while (error.ok()) {
    auto row = stmt.value().Step();
    if (!row.ok()) {
      error = row.status();
      break;
    }
    if (!row.value()) return Status::Ok();
    ++rows;
    if (events) ++t_.events_seen;
    on_row(stmt.value());
  }
  // Corruption or truncation: keep what was read and go on with the other tables. (In a
  // truncated file a table listed in the schema may also be missing altogether.)
  if (error.code() != StatusCode::kInvalidInput && !t_.truncated) return error;
  corrupt_ = true;
  Warn(table + ": stopped after " + std::to_string(rows) +
       " rows: " + WithoutPath(db_.path(), error.message()));
  return Status::Ok();
}

}  // namespace gpuvet
